/**
 * The aggregation layer and the TLS options, through a real apiserver process over HTTPS:
 *
 * - an extension API server inside this test (node:https, group wardle.example.com/v1alpha1, one
 *   resource `flunders`) that accepts only the proxy's client certificate (verified with the
 *   front-proxy CA) and reads the caller from X-Remote-User / X-Remote-Group / X-Remote-Extra-*;
 * - an APIService pointing at it through a Service and Endpoints (127.0.0.1:<port>,
 *   --enable-aggregator-routing): Available False ServiceNotFound, then EndpointsNotFound, then
 *   True; kubectl 1.35 lists the extension's resource and sees the group in merged discovery;
 *   503 once its Endpoints are gone;
 * - the local APIServices (`v1.`, `v1.apps`, ...) with the established priorities;
 * - kubectl 1.35 and the Python client create an apiregistration.k8s.io/v1 APIService from a
 *   manifest; the second create is a 409;
 * - --tls-min-version=VersionTLS13: openssl s_client with TLS 1.2 is refused, with TLS 1.3 served;
 * - --max-connection-bytes-per-sec=65536: a watch's 200 KB of initial events take over 2 s.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { dirname, join } from 'node:path';
import { type Agent, request as undiciRequest } from 'undici';
import { sendRequest } from '../helpers/api-http.js';
import { type ApiServerProcess, ROOT, startApiServer } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { KUBECTL_V35, kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { type CertificateAuthority, clientAgent, createCA, type IssuedCertificate } from '../helpers/pki.js';
import { createCertificateAuthority, issueServingCertificate } from '../../src/cli/pki.js';

const GROUP = 'wardle.example.com';
const APISERVICE = `v1alpha1.${GROUP}`;
const CREATE_TWICE = join(ROOT, 'test', 'fixtures', 'python', 'create_from_yaml_twice.py');

let proxyCa: CertificateAuthority;
let clientCa: CertificateAuthority;
let alice: IssuedCertificate;
let server: ApiServerProcess;
let kubeconfig: string;
let ext: Server;
let extPort = 0;
let extCaPem = '';
const seen: { headers: IncomingHttpHeaders; cn: string; authorized: boolean; path: string }[] = [];
const agents: Agent[] = [];

const resourceList = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${GROUP}/v1alpha1`,
  resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] }],
};

function flunder(name: string): object {
  return { apiVersion: `${GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: {} };
}

/** The extension API server: refuses callers without the proxy's certificate or identity. */
async function startExtension(): Promise<void> {
  const extCa = await createCertificateAuthority('wardle-ca');
  extCaPem = extCa.certPem;
  const serving = await issueServingCertificate(extCa, ['api.wardle.svc']);
  ext = createServer({ cert: serving.cert, key: serving.key, ca: proxyCa.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const sock = req.socket as TLSSocket;
    const peer = sock.getPeerCertificate();
    const cn = peer && peer.subject ? String(peer.subject.CN) : '';
    seen.push({ headers: req.headers, cn, authorized: sock.authorized, path: req.url ?? '' });
    const json = (code: number, body: object) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!sock.authorized || cn !== 'front-proxy-client' || !req.headers['x-remote-user']) {
      return json(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
    const path = (req.url ?? '').split('?')[0];
    if (path === `/apis/${GROUP}/v1alpha1`) return json(200, resourceList);
    if (path === `/apis/${GROUP}/v1alpha1/namespaces/default/flunders`) {
      const items = [flunder('my-flunder')];
      if (String(req.headers['accept'] ?? '').includes('as=Table')) {
        return json(200, {
          kind: 'Table',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: '1' },
          columnDefinitions: [
            { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
            { name: 'Caller', type: 'string', format: '', description: 'Who asked', priority: 0 },
          ],
          rows: items.map((i) => ({ cells: [(i as { metadata: { name: string } }).metadata.name, String(req.headers['x-remote-user'])], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: (i as { metadata: object }).metadata } })),
        });
      }
      return json(200, { kind: 'FlunderList', apiVersion: `${GROUP}/v1alpha1`, metadata: { resourceVersion: '1' }, items });
    }
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 });
  });
  await new Promise<void>((r) => ext.listen(0, '127.0.0.1', () => r()));
  extPort = (ext.address() as { port: number }).port;
}

test.before(async () => {
  [proxyCa, clientCa] = await Promise.all([createCA('front-proxy-ca'), createCA('client-ca')]);
  const proxyClient = await proxyCa.issue({ cn: 'front-proxy-client' });
  alice = await clientCa.issue({ cn: 'alice', orgs: ['devs'] });
  await startExtension();
  server = await startApiServer({
    args: [
      `--client-ca-file=${clientCa.certFile}`,
      `--requestheader-client-ca-file=${proxyCa.certFile}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${proxyClient.certFile}`,
      `--proxy-client-key-file=${proxyClient.keyFile}`,
      '--enable-aggregator-routing=true',
      '--tls-min-version=VersionTLS13',
      '--max-connection-bytes-per-sec=65536',
    ],
  });
  kubeconfig = kubeconfigFor(server);
});

test.after(async () => {
  for (const a of agents) await a.close().catch(() => undefined);
  await server?.stop();
  server?.cleanup();
  ext?.close();
  proxyCa?.cleanup();
  clientCa?.cleanup();
});

async function availability(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
  const r = await server.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
  const conds = (r.json?.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[];
  return conds.find((c) => c.type === 'Available') ?? {};
}

test('local APIServices: one per served group/version, with the established priorities, Local and available', async () => {
  const r = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices');
  assert.is(r.status, 200);
  const byName = new Map((r.json.items as { metadata: { name: string }; spec: Record<string, unknown> }[]).map((i) => [i.metadata.name, i]));
  assert.equal(byName.get('v1.')?.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  assert.equal(byName.get('v1.apps')?.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  assert.equal(byName.get('v1.rbac.authorization.svc.io')?.spec['groupPriorityMinimum'], 17000);
  assert.equal(byName.get('v2.autoscaling')?.spec['versionPriority'], 30);
  const local = await availability('v1.apps');
  assert.equal([local.status, local.reason, local.message], ['True', 'Local', 'Local APIServices are always available']);
  const table = await kubectl(kubeconfig, ['get', 'apiservices', 'v1.apps', 'v1.'], 30_000, { bin: KUBECTL_V35 });
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
  assert.match(table.stdout, /\nv1\.apps\s+Local\s+True\s+\d+[sm]\n/);
});

test('a service-backed APIService: ServiceNotFound, EndpointsNotFound, then Available; kubectl 1.35 lists the extension resource', async () => {
  const caBundle = Buffer.from(extCaPem).toString('base64');
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: APISERVICE },
    spec: { group: GROUP, version: 'v1alpha1', service: { namespace: 'wardle', name: 'api' }, caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
  };
  const created = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService);
  assert.is(created.status, 201, JSON.stringify(created.json));
  assert.is(created.json.spec.service.port, 443, 'the service port defaults to 443');
  await eventually(async () => (await availability(APISERVICE)).reason === 'ServiceNotFound', 20_000, 'ServiceNotFound');
  assert.is((await availability(APISERVICE)).message, 'service/api in "wardle" is not present');

  assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: 'wardle' } })).status, 201);
  const svc = await server.request('POST', '/api/v1/namespaces/wardle/services', { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: extPort }] } });
  assert.is(svc.status, 201, JSON.stringify(svc.json));
  await eventually(async () => (await availability(APISERVICE)).reason === 'EndpointsNotFound', 20_000, 'EndpointsNotFound');
  assert.is((await availability(APISERVICE)).status, 'False');

  const eps = await server.request('POST', '/api/v1/namespaces/wardle/endpoints', {
    metadata: { name: 'api' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: extPort }] }],
  });
  assert.is(eps.status, 201, JSON.stringify(eps.json));
  await eventually(async () => (await availability(APISERVICE)).status === 'True', 20_000, 'Available');
  assert.is((await availability(APISERVICE)).reason, 'Passed');
  // The discovery check came with the proxy's certificate, as system:svc-aggregator in system:masters.
  const check = seen.find((s) => s.path === `/apis/${GROUP}/v1alpha1`)!;
  assert.ok(check.authorized);
  assert.is(check.headers['x-remote-user'], 'system:svc-aggregator');

  const got = await kubectl(kubeconfig, ['get', 'flunders'], 30_000, { bin: KUBECTL_V35 });
  assert.is(got.code, 0, got.stderr);
  assert.match(got.stdout, /^NAME\s+CALLER\n/);
  assert.match(got.stdout, /\nmy-flunder\s+system:anonymous\n/);
  const table = await kubectl(kubeconfig, ['get', 'apiservice', APISERVICE], 30_000, { bin: KUBECTL_V35 });
  assert.match(table.stdout, new RegExp(`\\n${APISERVICE.replace(/\./g, '\\.')}\\s+wardle/api\\s+True\\s+`));
  const resources = await kubectl(kubeconfig, ['api-resources', `--api-group=${GROUP}`], 30_000, { bin: KUBECTL_V35 });
  assert.is(resources.code, 0, resources.stderr);
  assert.match(resources.stdout, /flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder/);
});

test('discovery merges the extension group: /apis lists it, /apis/<group> describes it, aggregated discovery carries its resources', async () => {
  const apis = await server.request('GET', '/apis');
  const names = (apis.json.groups as { name: string }[]).map((g) => g.name);
  assert.ok(names.includes(GROUP), names.join());
  assert.ok(names.indexOf('apps') < names.indexOf(GROUP), 'built-in groups (higher priority) first');
  const group = await server.request('GET', `/apis/${GROUP}`);
  assert.is(group.status, 200);
  assert.equal(group.json.preferredVersion, { groupVersion: `${GROUP}/v1alpha1`, version: 'v1alpha1' });
  // /apis/<group>/<version> is the extension server's own document, proxied.
  const version = await server.request('GET', `/apis/${GROUP}/v1alpha1`);
  assert.equal(version.json, resourceList);
  const aggregated = await server.request('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
  const item = (aggregated.json.items as { metadata: { name: string }; versions: { version: string; freshness: string; resources: { resource: string; scope: string }[] }[] }[]).find((i) => i.metadata.name === GROUP)!;
  assert.ok(item, 'the extension group is in aggregated discovery');
  assert.equal(item.versions.map((v) => [v.version, v.freshness, v.resources.map((r) => `${r.resource}/${r.scope}`)]), [['v1alpha1', 'Current', ['flunders/Namespaced']]]);
});

test('the proxy passes the caller as X-Remote-* headers with its client certificate, never the caller\'s credentials', async () => {
  const a = clientAgent(server, alice);
  agents.push(a);
  seen.length = 0;
  const r = await sendRequest(a, server.url, 'GET', `/apis/${GROUP}/v1alpha1/namespaces/default/flunders`, undefined, { 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters', authorization: 'Bearer stolen' });
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['my-flunder']);
  const call = seen.find((s) => s.path.startsWith(`/apis/${GROUP}/v1alpha1/namespaces/default/flunders`))!;
  assert.ok(call.authorized, 'the extension verified the proxy client certificate with the front-proxy CA');
  assert.is(call.cn, 'front-proxy-client');
  assert.is(call.headers['x-remote-user'], 'alice');
  assert.is(call.headers['x-remote-group'], 'devs, system:authenticated');
  assert.is(call.headers['authorization'], undefined);
  assert.is(Object.keys(call.headers).filter((h) => h.startsWith('x-remote-extra-')).length, 0);
});

test('an APIService whose Endpoints are gone is unavailable: MissingEndpoints-or-EndpointsNotFound and 503', async () => {
  assert.is((await server.request('DELETE', '/api/v1/namespaces/wardle/endpoints/api')).status, 200);
  await eventually(async () => (await availability(APISERVICE)).status === 'False', 20_000, 'unavailable');
  assert.is((await availability(APISERVICE)).reason, 'EndpointsNotFound');
  const r = await server.request('GET', `/apis/${GROUP}/v1alpha1/namespaces/default/flunders`);
  assert.is(r.status, 503);
  assert.is(r.json.reason, 'ServiceUnavailable');
});

test('kubectl 1.35 and the Python client create an apiregistration.k8s.io/v1 APIService from a manifest; a second create is a 409', async () => {
  const dir = dirname(kubeconfig);
  const manifest = (name: string, group: string) =>
    ['apiVersion: apiregistration.k8s.io/v1', 'kind: APIService', 'metadata:', `  name: ${name}`, 'spec:', `  group: ${group}`, '  version: v1', '  groupPriorityMinimum: 100', '  versionPriority: 10', '  insecureSkipTLSVerify: true', '  service:', '    namespace: default', '    name: nowhere', ''].join('\n');
  const kubectlFile = join(dir, 'kubectl-apiservice.yaml');
  writeFileSync(kubectlFile, manifest('v1.kubectl.example.com', 'kubectl.example.com'));
  const first = await kubectl(kubeconfig, ['create', '-f', kubectlFile], 30_000, { bin: KUBECTL_V35 });
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, 'apiservice.apiregistration.k8s.io/v1.kubectl.example.com created');
  const second = await kubectl(kubeconfig, ['create', '-f', kubectlFile], 30_000, { bin: KUBECTL_V35 });
  assert.is(second.code, 1);
  assert.match(second.stderr, 'Error from server (AlreadyExists)');
  assert.match(second.stderr, 'apiservices.apiregistration.k8s.io "v1.kubectl.example.com" already exists');

  const pyFile = join(dir, 'python-apiservice.yaml');
  writeFileSync(pyFile, manifest('v1.python.example.com', 'python.example.com'));
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('/usr/bin/python3', [CREATE_TWICE, kubeconfig, pyFile, 'py-aggregation'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.is(out.code, 0, out.stderr + out.stdout);
  const line = JSON.parse(out.stdout.trim().split('\n').pop()!);
  assert.is(line.status, 409);
  assert.is(JSON.parse(line.body).reason, 'AlreadyExists');
  assert.is((await server.request('GET', '/apis/apiregistration.svc.io/v1/apiservices/v1.python.example.com')).status, 200);
});

function openssl(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('openssl', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.end('');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test('--tls-min-version=VersionTLS13: a TLS 1.2 handshake is refused, TLS 1.3 is served', async () => {
  const old = await openssl(['s_client', '-connect', `127.0.0.1:${server.port}`, '-tls1_2', '-servername', 'localhost']);
  assert.is.not(old.code, 0, old.out);
  assert.match(old.out, /alert protocol version|no protocols available|handshake failure/i);
  const now = await openssl(['s_client', '-connect', `127.0.0.1:${server.port}`, '-tls1_3', '-servername', 'localhost']);
  assert.is(now.code, 0, now.out);
  assert.match(now.out, /Protocol\s*:\s*TLSv1\.3|New, TLSv1\.3/);
});

test('--max-connection-bytes-per-sec: a watch (long-running) is written at that rate; a list is not throttled', async () => {
  const big = 'x'.repeat(50_000);
  for (let i = 0; i < 4; i++) {
    const r = await server.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `big-${i}` }, data: { v: big } });
    assert.is(r.status, 201);
  }
  const list = await server.request('GET', '/api/v1/namespaces/default/configmaps');
  assert.ok(list.json.items.length >= 4);
  const started = Date.now();
  const r = await undiciRequest(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&timeoutSeconds=30`, { dispatcher: server.agent });
  assert.is(r.statusCode, 200);
  let lines = 0;
  let elapsed = 0;
  let text = '';
  for await (const chunk of r.body) {
    text += String(chunk).slice(0, 200);
    lines += String(chunk).split('\n').length - 1;
    if (lines >= 4) {
      elapsed = Date.now() - started;
      break;
    }
  }
  r.body.destroy();
  // 200 KB at 64 KB/s, the first second's 64 KB at once: at least (200 - 64) / 64 = 2.1 s.
  assert.is(lines >= 4, true, `the watch ended after ${lines} events: ${text.slice(0, 400)}`);
  assert.ok(elapsed >= 1_900, `4 events of 50 KB arrived after ${elapsed} ms`);
});

test.run();
