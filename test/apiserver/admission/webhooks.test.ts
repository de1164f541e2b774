// Admission webhooks end to end: a real API server calling a small HTTPS webhook server run by
// this test (its certificate from a test CA given as caBundle; it demands the API server's
// --proxy-client-cert-file certificate). Mutating (a JSON patch through a service reference, and
// reinvocation), validating (a refusal), failurePolicy Fail and Ignore with a webhook that is
// down, a slow webhook past timeoutSeconds, dry run against sideEffects, and a configuration's
// change counting within a second. Objects are ConfigMaps in namespaces labelled for the hooks.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';
import { createCA, type CertificateAuthority } from '../../helpers/pki.js';
import { answerReview } from '../../helpers/admission-review.js';
import { eventually } from '../../helpers/client.js';
import { kubeconfigFor, kubectl } from '../../helpers/kubectl.js';

type Loose = Record<string, any>;

let ca: CertificateAuthority;
let api: ApiServerProcess;
let hooks: Server;
let hookPort = 0;
/** Calls of /together in flight now, and the most seen at once. */
let together = 0;
let mostTogether = 0;
/** Reviews received, by path. */
const received: { path: string; review: Loose; clientCN: string }[] = [];

const NS = 'hooked';
const RULES = [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

const answer = answerReview;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Loose;
    const path = (req.url ?? '').split('?')[0]!;
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    received.push({ path, review, clientCN: String(peer?.subject?.CN ?? '') });
    const obj = review['request']['object'] as Loose | null;
    switch (path) {
      case '/label': {
        const patch = [{ op: 'add', path: '/metadata/labels/touched-by', value: 'webhook' }];
        if (!obj?.['metadata']?.['labels']) patch.unshift({ op: 'add', path: '/metadata/labels', value: {} } as never);
        return answer(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64'), warnings: ['labelled by the test webhook'] });
      }
      case '/move': {
        const patch = [{ op: 'replace', path: '/metadata/namespace', value: 'plain' }];
        return answer(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
      }
      case '/observe':
        return answer(res, review, { allowed: true });
      case '/deny': {
        const deny = obj?.['metadata']?.['labels']?.['deny'] === 'yes';
        return answer(res, review, deny ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'configmaps labelled deny=yes are not welcome' } } : { allowed: true });
      }
      case '/together': {
        // Held until a second call is in flight too (or 3 s pass): only parallel calls meet here.
        together++;
        mostTogether = Math.max(mostTogether, together);
        const started = Date.now();
        const wait = () => {
          if (mostTogether >= 2 || Date.now() - started > 3000) {
            together--;
            answer(res, review, { allowed: true });
          } else setTimeout(wait, 10);
        };
        return wait();
      }
      case '/slow':
        setTimeout(() => answer(res, review, { allowed: true }), 3000);
        return;
      default:
        res.writeHead(404).end();
    }
  });
}

test.before(async () => {
  ca = await createCA('webhook-ca');
  const serving = await ca.issue({ cn: 'hook', extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth], dnsNames: ['hook.hooks.svc'], ips: ['127.0.0.1'] }, 'hook-serving');
  const proxy = await ca.issue({ cn: 'front-proxy-client' }, 'proxy-client');
  hooks = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, handle);
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookPort = (hooks.address() as AddressInfo).port;
  api = await startApiServer({ args: [`--proxy-client-cert-file=${proxy.certFile}`, `--proxy-client-key-file=${proxy.keyFile}`] });
  for (const [name, labels] of [[NS, { webhooks: 'on' }], ['hooks', {}], ['plain', {}]] as const) {
    const r = await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    assert.is(r.status, 201, r.text);
  }
  // The service the mutating hook is named by: no selector, its Endpoints written here (no controller runs).
  assert.is((await api.request('POST', '/api/v1/namespaces/hooks/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: hookPort }] } })).status, 201);
  const eps = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hookPort }] }] };
  assert.is((await api.request('POST', '/api/v1/namespaces/hooks/endpoints', eps)).status, 201);
});

test.after(async () => {
  await api?.stop();
  api?.cleanup();
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
  ca?.cleanup();
});

const caBundle = () => Buffer.from(ca.certPem).toString('base64');
const byUrl = (path: string, port = hookPort) => ({ url: `https://127.0.0.1:${port}${path}`, caBundle: caBundle() });
const webhook = (name: string, clientConfig: Loose, extra: Loose = {}) => ({
  name,
  clientConfig,
  rules: RULES,
  namespaceSelector: { matchLabels: { webhooks: 'on' } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});

async function configure(kind: 'mutating' | 'validating', name: string, webhooks: Loose[], version = 'v1'): Promise<void> {
  const plural = `${kind}webhookconfigurations`;
  const Kind = kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  const r = await api.request('POST', `/apis/admissionregistration.k8s.io/${version}/${plural}`, { apiVersion: `admissionregistration.k8s.io/${version}`, kind: Kind, metadata: { name }, webhooks });
  assert.is(r.status, 201, r.text);
}

async function unconfigure(kind: 'mutating' | 'validating', name: string): Promise<void> {
  const r = await api.request('DELETE', `/apis/admissionregistration.svc.io/v1/${kind}webhookconfigurations/${name}`);
  assert.is(r.status, 200, r.text);
}

const configMap = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } });
const create = (ns: string, body: Loose, query = '') => api.request('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, body);

test('a mutating webhook reached through its service patches the object; the review is the established one, sent with the proxy client certificate', async () => {
  await configure('mutating', 'labeller', [webhook('label.hooks.example.com', { service: { namespace: 'hooks', name: 'hook', path: '/label' }, caBundle: caBundle() })]);
  await eventually(async () => (await create(NS, configMap(`probe-${received.length}`))).json?.metadata?.labels?.['touched-by'] === 'webhook', 5000, 'the mutating webhook to count');
  received.length = 0;
  const r = await create(NS, configMap('patched', { app: 'a' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.metadata.labels, { app: 'a', 'touched-by': 'webhook' });
  assert.match(String(r.headers['warning']), 'labelled by the test webhook');
  const got = await api.request('GET', `/api/v1/namespaces/${NS}/configmaps/patched`);
  assert.equal(got.json.metadata.labels['touched-by'], 'webhook', 'stored as patched');
  const call = received.find((c) => c.path === '/label')!;
  assert.is(call.clientCN, 'front-proxy-client');
  const req = call.review['request'];
  assert.is(call.review['apiVersion'], 'admission.k8s.io/v1');
  assert.equal([req.kind, req.resource, req.operation, req.namespace, req.name, req.dryRun], [{ group: '', version: 'v1', kind: 'ConfigMap' }, { group: '', version: 'v1', resource: 'configmaps' }, 'CREATE', NS, 'patched', false]);
  assert.equal(req.requestKind, req.kind);
  assert.equal(req.object.metadata.labels, { app: 'a' });
  assert.equal(req.options, { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' });
  assert.is(req.userInfo.username, 'system:anonymous');
  // Outside the selected namespace the hook is not called.
  assert.equal((await create('plain', configMap('untouched'))).json.metadata.labels ?? {}, {});
});

test('a patch may not move the object to another namespace', async () => {
  await configure('mutating', 'mover', [webhook('move.hooks.example.com', byUrl('/move'), { objectSelector: { matchLabels: { move: 'yes' } } })]);
  let r = await create(NS, configMap('moving', { move: 'yes' }));
  await eventually(async () => (r = await create(NS, configMap('moving', { move: 'yes' }))).status === 400, 5000, 'the mover to count');
  assert.is(r.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
  assert.is((await api.request('GET', '/api/v1/namespaces/plain/configmaps/moving')).status, 404);
  await unconfigure('mutating', 'mover');
});

test('reinvocationPolicy IfNeeded: a hook is called again when a later hook changed the object', async () => {
  await configure('mutating', 'a-observer', [webhook('observe.hooks.example.com', byUrl('/observe'), { reinvocationPolicy: 'IfNeeded' })]);
  await eventually(async () => {
    received.length = 0;
    await create(NS, configMap(`reinvoke-probe-${Date.now()}`));
    return received.some((c) => c.path === '/observe');
  }, 5000, 'the observer to count');
  received.length = 0;
  assert.is((await create(NS, configMap('reinvoked'))).status, 201);
  const observed = received.filter((c) => c.path === '/observe');
  assert.is(observed.length, 2, 'once, then again after the labeller (a later configuration) changed the object');
  assert.equal(observed[1]!.review['request'].object.metadata.labels['touched-by'], 'webhook');
  await unconfigure('mutating', 'a-observer');
});

test('a validating webhook refuses with its message; kubectl lists the configurations', async () => {
  await configure('validating', 'denier', [webhook('deny.hooks.example.com', byUrl('/deny'))]);
  let r = await create(NS, configMap('refused', { deny: 'yes' }));
  await eventually(async () => (r = await create(NS, configMap('refused', { deny: 'yes' }))).status === 403, 5000, 'the validating webhook to count');
  assert.is(r.json.message, 'admission webhook "deny.hooks.example.com" denied the request: configmaps labelled deny=yes are not welcome');
  assert.is(r.json.reason, 'Forbidden');
  assert.is((await create(NS, configMap('welcome'))).status, 201);
  const out = await kubectl(kubeconfigFor(api), ['get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations']);
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stdout, /denier\s+1\s+/);
  assert.match(out.stdout, /labeller\s+1\s+/);
});

test('validating webhooks are called at once, not one after another', async () => {
  await configure('validating', 'together', [
    webhook('one.together.example.com', byUrl('/together'), { objectSelector: { matchLabels: { together: 'yes' } } }),
    webhook('two.together.example.com', byUrl('/together'), { objectSelector: { matchLabels: { together: 'yes' } } }),
  ]);
  await eventually(async () => {
    await create(NS, configMap(`together-${Date.now()}`, { together: 'yes' }));
    return mostTogether >= 2;
  }, 10_000, 'both calls in flight together');
  await unconfigure('validating', 'together');
});

test('a webhook that is down: failurePolicy Fail refuses (500, failed calling webhook), Ignore admits', async () => {
  const down = await freePort();
  await configure('validating', 'down-fail', [webhook('down.hooks.example.com', byUrl('/deny', down))]);
  let r = await create(NS, configMap('down-1'));
  await eventually(async () => (r = await create(NS, configMap(`down-${Date.now()}`))).status === 500, 5000, 'the failing webhook to count');
  assert.match(r.json.message, `Internal error occurred: failed calling webhook "down.hooks.example.com": failed to call webhook: Post "https://127.0.0.1:${down}/deny?timeout=10s": dial tcp 127.0.0.1:${down}: connect: connection refused`);
  await unconfigure('validating', 'down-fail');
  await configure('validating', 'down-ignore', [webhook('down.hooks.example.com', byUrl('/deny', down), { failurePolicy: 'Ignore' })]);
  await eventually(async () => (await create(NS, configMap(`ignored-${Date.now()}`))).status === 201, 5000, 'Ignore to admit');
  await unconfigure('validating', 'down-ignore');
});

test('a slow webhook past timeoutSeconds 1: refused after about a second with the deadline in the message', async () => {
  await configure('validating', 'slow', [webhook('slow.hooks.example.com', byUrl('/slow'), { timeoutSeconds: 1 })]);
  await eventually(async () => (await create(NS, configMap(`slow-probe-${Date.now()}`))).status === 500, 8000, 'the slow webhook to count');
  const started = Date.now();
  const r = await create(NS, configMap('slow'));
  const took = Date.now() - started;
  assert.is(r.status, 500, r.text);
  assert.match(r.json.message, /failed calling webhook "slow.hooks.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/slow\?timeout=1s": context deadline exceeded/);
  assert.ok(took >= 900 && took < 2900, `answered after ${took} ms`);
  await unconfigure('validating', 'slow');
});

test('dry run: a webhook with side effects refuses it (v1beta1 sideEffects Some); None is called with dryRun true', async () => {
  received.length = 0;
  const dry = await create(NS, configMap('dry'), '?dryRun=All');
  assert.is(dry.status, 201, dry.text);
  assert.ok(received.some((c) => c.path === '/label' && c.review['request'].dryRun === true), 'the None webhook saw dryRun');
  await configure('validating', 'effects', [{ ...webhook('effects.hooks.example.com', byUrl('/observe')), sideEffects: 'Some', admissionReviewVersions: ['v1beta1'] }], 'v1beta1');
  let r = dry;
  await eventually(async () => (r = await create(NS, configMap('dry'), '?dryRun=All')).status === 400, 5000, 'the side-effect webhook to count');
  assert.is(r.json.message, 'admission webhook "effects.hooks.example.com" does not support dry run');
  assert.is((await create(NS, configMap('not-dry'))).status, 201, 'a real request still calls it');
  await unconfigure('validating', 'effects');
});

test('a configuration change counts within a second', async () => {
  // Measured from the change being stored to the sending of the first request that saw it (a
  // request's own round trips through the webhooks are not the configuration's delay).
  const name = 'quick';
  let sent = 0;
  const createSent = async (deny: string) => {
    sent = Date.now();
    return (await create(NS, configMap(`q-${sent}`, { deny }))).status;
  };
  await configure('validating', name, [webhook('quick.hooks.example.com', byUrl('/deny'))]);
  const stored = Date.now();
  await eventually(async () => (await createSent('yes')) === 403, 5000, 'the new configuration to count');
  const counted = sent - stored;
  await unconfigure('validating', name);
  await unconfigure('validating', 'denier');
  const deleted = Date.now();
  await eventually(async () => (await createSent('yes')) === 201, 5000, 'the deletion to count');
  const gone = sent - deleted;
  assert.ok(counted < 1000, `the new configuration counted ${counted} ms after it was stored`);
  assert.ok(gone < 1000, `the deletion counted ${gone} ms after it was stored`);
});

test.run();
