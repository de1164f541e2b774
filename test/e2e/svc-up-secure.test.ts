// `svc up` secure by default, as a real process with its own defaults (no --bind-address, no
// --cert-dir): it listens on loopback only, keeps a cluster CA in <data-dir>/certs (key 0600), and
// the admin.svcconfig it writes carries a client certificate (svc-admin in system:masters, signed
// by that CA) that kubectl uses; under Node,RBAC a request with no credentials is anonymous and may
// not write; `svc certs issue` gives a component a configuration of its own, seen as that user.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ChainVerifier, subjectOf } from '../../src/apiserver/auth/x509.js';
import { eventually } from '../helpers/client.js';
import { kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { startSvc } from '../helpers/svc-process.js';
import { startSvcUp, type SvcUp } from '../helpers/svc-up.js';

let up: SvcUp;

test.before(async () => {
  // Node,RBAC named explicitly: the established secure modes (UP_AUTHORIZATION_MODES once flipped). Leases:
  // the default policy grants the components their lease locks, not the endpoints half of endpointsleases.
  up = await startSvcUp('svc-up-secure', ['--nodes=1', '--authorization-mode=Node,RBAC', '--leader-elect-resource-lock=leases']);
});

test.after(async () => {
  await up?.stop();
});

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host, port, timeout: 5000 });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

test('binds 127.0.0.1 unless --bind-address says otherwise', async () => {
  const ready = up.svc.lines.find((l) => l.msg === 'ready') as { url?: string } | undefined;
  assert.is(ready?.url, `https://127.0.0.1:${up.port}`);
  assert.ok(await accepts('127.0.0.1', up.port), 'loopback accepts');
  // Another address of this machine does not (a machine with no other address has nothing to reach it from).
  const other = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .find((a) => a.family === 'IPv4' && !a.internal);
  if (other) assert.not.ok(await accepts(other.address, up.port), `${other.address}:${up.port} must not accept connections`);
});

test('the admin configuration carries a client certificate of the cluster CA in system:masters, and kubectl uses it', async () => {
  const certs = join(up.dir, 'data', 'certs');
  assert.is(statSync(join(certs, 'ca.key')).mode & 0o777, 0o600);
  assert.is(statSync(join(certs, 'admin.key')).mode & 0o777, 0o600);
  assert.is(statSync(up.kubeconfig).mode & 0o777, 0o600);
  const text = readFileSync(up.kubeconfig, 'utf8');
  assert.not.match(text, /token:/);
  const user = (parse(text) as { users: { user: Record<string, string> }[] }).users[0]!.user;
  const leaf = new X509Certificate(Buffer.from(user['client-certificate-data']!, 'base64'));
  assert.equal(subjectOf(leaf), { commonName: 'svc-admin', organizations: ['system:masters'] });
  new ChainVerifier(readFileSync(join(certs, 'ca.crt'), 'utf8'), 'ca.crt').verify([leaf]);
  assert.match(await up.kubectlOk(['get', 'namespaces', '-o', 'name']), 'namespace/default');
  await up.kubectlOk(['create', 'configmap', 'secure-default', '--from-literal=a=b'], { bin: KUBECTL_V35 });
  const me = JSON.parse(await up.kubectlOk(['auth', 'whoami', '-o', 'json'], { bin: KUBECTL_V35 })) as { status: { userInfo: { username: string; groups: string[] } } };
  assert.is(me.status.userInfo.username, 'svc-admin');
  assert.ok(me.status.userInfo.groups.includes('system:masters'), JSON.stringify(me));
  // The controllers run as their own service accounts under RBAC: a ReplicaSet gets its pods, which run.
  await up.kubectlOk(['create', '-f', up.manifest('rs.yaml', 'apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: secure-web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: secure-web}}\n  template:\n    metadata: {labels: {app: secure-web}}\n    spec: {containers: [{name: c, image: nginx}]}\n')]);
  await eventually(async () => (await up.kubectlOk(['get', 'pods', '-l', 'app=secure-web', '--field-selector=status.phase=Running', '-o', 'name'])).trim().split('\n').filter(Boolean).length === 2, 60_000, 'two running pods');
});

test('csrsigning signs with the cluster CA (its own account under RBAC): an approved request gets a certificate the server accepts', async () => {
  const key = join(up.dir, 'dana.key');
  const csrFile = join(up.dir, 'dana.csr');
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csrFile, '-subj', '/O=team/CN=dana'], { stdio: 'ignore' });
  const request = Buffer.from(readFileSync(csrFile)).toString('base64');
  await up.kubectlOk(['create', '-f', up.manifest('csr.yaml', `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: dana}\nspec:\n  request: ${request}\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n`)], { bin: KUBECTL_V35 });
  await up.kubectlOk(['certificate', 'approve', 'dana'], { bin: KUBECTL_V35 });
  let pem = '';
  await eventually(async () => (pem = Buffer.from(await up.kubectlOk(['get', 'csr', 'dana', '-o', 'jsonpath={.status.certificate}']), 'base64').toString()) !== '', 60_000, 'the certificate');
  const leaf = new X509Certificate(pem);
  assert.equal(subjectOf(leaf), { commonName: 'dana', organizations: ['team'] });
  new ChainVerifier(readFileSync(join(up.dir, 'data', 'certs', 'ca.crt'), 'utf8'), 'ca.crt').verify([leaf]);
});

test('a request with no credentials is anonymous: discovery and version are readable, writes are refused', async () => {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connect: { ca: readFileSync(join(up.dir, 'data', 'certs', 'apiserver.crt'), 'utf8'), servername: 'localhost' } });
  try {
    const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const r = await request(`https://127.0.0.1:${up.port}${path}`, { method, dispatcher: agent, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
      return { status: r.statusCode, text: await r.body.text() };
    };
    assert.is((await call('GET', '/version')).status, 200);
    const write = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'anon' } });
    assert.is(write.status, 403);
    assert.match(write.text, 'User \\"system:anonymous\\" cannot create resource \\"configmaps\\"');
    assert.is((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
  } finally {
    await agent.close();
  }
});

test('svc certs issue: a client configuration for a component, from the same CA and server', async () => {
  const out = join(up.dir, 'scheduler.svcconfig');
  const p = startSvc(['certs', 'issue', 'system:svc-scheduler', `--data-dir=${join(up.dir, 'data')}`, `--out=${out}`]);
  assert.is(await p.exited, 0, p.output());
  assert.is(statSync(out).mode & 0o777, 0o600);
  const user = (parse(readFileSync(out, 'utf8')) as { users: { user: Record<string, string> }[] }).users[0]!.user;
  assert.equal(subjectOf(new X509Certificate(Buffer.from(user['client-certificate-data']!, 'base64'))), { commonName: 'system:svc-scheduler', organizations: [] });
  // The server sees the component's own user: what its default role allows, nothing more.
  const who = await kubectl(out, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], 90_000, { bin: KUBECTL_V35 });
  assert.is(who.code, 0, who.stderr);
  assert.is(who.stdout, 'system:svc-scheduler');
  assert.is((await kubectl(out, ['get', 'nodes', '-o', 'name'])).code, 0);
  const denied = await kubectl(out, ['get', 'configmap', 'secure-default']);
  assert.is(denied.code, 1);
  assert.match(denied.stderr, 'User "system:svc-scheduler" cannot get resource "configmaps"');
  // Before svc up has made a CA there is nothing to sign with: a clear error, exit 1.
  const none = startSvc(['certs', 'issue', 'nobody', `--data-dir=${join(up.dir, 'no-such-data')}`]);
  assert.is(await none.exited, 1);
  assert.match(none.output(), /start svc up with --data-dir=.*no-such-data first/);
});

test.run();
