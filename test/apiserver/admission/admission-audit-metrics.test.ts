// Admission's reach beyond the chain, through a real apiserver process over HTTPS with an audit
// log file and a real HTTPS webhook server run by this test:
// - per-webhook credentials: --admission-control-config-file gives both webhook plugins a
//   WebhookAdmissionConfiguration whose kubeconfig has a user for the URL hook's host:port and one
//   for `*.hooks.svc` (the service hook, port 443). The webhook server trusts only the CA of those
//   users' client certificates (not the --proxy-client-cert-file one) and checks each user's token;
//   a bad file refuses the start with a message naming it;
// - audit annotations: a mutating and a validating webhook's `auditAnnotations` (on an admitted
//   and on a refused request) and PodSecurityPolicy's admit-policy/validate-policy are in the
//   requests' audit events;
// - reinvocation: the service hook injects a sidecar container, so the whole mutating chain runs
//   again: LimitRanger gives the sidecar the namespace's default limits, and the IfNeeded hook
//   called before the change is called again and sees them;
// - metrics: the admission and audit metrics on /metrics with the established names and labels;
// - --audit-dynamic-configuration (DynamicAuditing gate): refused without its alpha API; with it,
//   two AuditSinks (Metadata and Request) each receive EventLists at their own level while the
//   static log keeps its policy file's (a sink's stages are unit-tested in admission-chain-rules).
import { createServer, type Server } from 'node:https';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';
import { createCA, type CertificateAuthority } from '../../helpers/pki.js';
import { answerReview } from '../../helpers/admission-review.js';
import { eventually } from '../../helpers/client.js';

type Loose = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'svc-adm-audit-'));
const auditLog = join(dir, 'audit.log');
let serverCa: CertificateAuthority;
let clientCa: CertificateAuthority;
let proxyCa: CertificateAuthority;
let api: ApiServerProcess;
let hooks: Server;
let hookPort = 0;
/** Every call the webhook server accepted: path, the caller's certificate CN and Authorization header. */
const calls: { path: string; cn: string; auth: string; object: Loose }[] = [];

const NS = 'injected';
const POD_RULES = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];

const answer = answerReview;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Loose;
    const path = (req.url ?? '').split('?')[0]!;
    const cn = String((req.socket as TLSSocket).getPeerCertificate()?.subject?.CN ?? '');
    const auth = String(req.headers['authorization'] ?? '');
    const object = review['request']['object'] as Loose;
    // Each caller must show its own user's token: a wrong pairing is refused like a stranger.
    const expected: Record<string, string> = { '/observe': 'Bearer url-user-token', '/deny': 'Bearer url-user-token', '/inject': 'Bearer service-user-token' };
    if (auth !== expected[path]) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'unknown caller', code: 401 }));
      return;
    }
    calls.push({ path, cn, auth, object });
    switch (path) {
      case '/observe':
        return answer(res, review, { allowed: true });
      case '/inject': {
        const containers = (object['spec']['containers'] ?? []) as Loose[];
        if (containers.some((c) => c['name'] === 'sidecar')) return answer(res, review, { allowed: true });
        const patch = [{ op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'sidecar:1' } }];
        return answer(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64'), auditAnnotations: { sidecar: 'injected' } });
      }
      case '/deny': {
        const deny = object['metadata']?.['labels']?.['deny'] === 'yes';
        return answer(res, review, deny ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'pods labelled deny=yes are not welcome' }, auditAnnotations: { why: 'labelled-deny' } } : { allowed: true });
      }
      default:
        res.writeHead(404).end();
    }
  });
}

function kubeconfig(urlUser: { certFile: string; keyFile: string }, svcUser: { certPem: string; keyPem: string }): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'users:',
    `- name: "127.0.0.1:${hookPort}"`,
    '  user:',
    `    client-certificate: ${urlUser.certFile}`,
    `    client-key: ${urlUser.keyFile}`,
    '    token: url-user-token',
    '- name: "*.hooks.svc"',
    '  user:',
    `    client-certificate-data: ${Buffer.from(svcUser.certPem).toString('base64')}`,
    `    client-key-data: ${Buffer.from(svcUser.keyPem).toString('base64')}`,
    '    token: service-user-token',
    '- name: "*"',
    '  user:',
    '    token: nobody-expects-this',
    '',
  ].join('\n');
}

function admissionConfig(kubeconfigFile: string): string {
  return [
    'apiVersion: apiserver.config.svc.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '- name: MutatingAdmissionWebhook',
    '  configuration:',
    '    apiVersion: apiserver.config.k8s.io/v1',
    '    kind: WebhookAdmissionConfiguration',
    `    kubeConfigFile: ${kubeconfigFile}`,
    '- name: ValidatingAdmissionWebhook',
    '  configuration:',
    '    apiVersion: apiserver.config.svc.io/v1',
    '    kind: WebhookAdmissionConfiguration',
    `    kubeConfigFile: ${kubeconfigFile}`,
    '',
  ].join('\n');
}

const PERMISSIVE_PSP = {
  apiVersion: 'policy/v1beta1',
  kind: 'PodSecurityPolicy',
  metadata: { name: 'permissive' },
  spec: { privileged: true, volumes: ['*'], runAsUser: { rule: 'RunAsAny' }, seLinux: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' } },
};

test.before(async () => {
  serverCa = await createCA('hook-serving-ca');
  clientCa = await createCA('hook-client-ca');
  proxyCa = await createCA('front-proxy-ca');
  const serving = await serverCa.issue({ cn: 'hook', extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth], dnsNames: ['hook.hooks.svc'], ips: ['127.0.0.1'] }, 'hook-serving');
  const urlUser = await clientCa.issue({ cn: 'url-caller', extendedKeyUsages: [x509.ExtendedKeyUsage.clientAuth] }, 'url-caller');
  const svcUser = await clientCa.issue({ cn: 'service-caller', extendedKeyUsages: [x509.ExtendedKeyUsage.clientAuth] }, 'service-caller');
  const proxy = await proxyCa.issue({ cn: 'front-proxy-client', extendedKeyUsages: [x509.ExtendedKeyUsage.clientAuth] }, 'proxy-client');
  // Only the kubeconfig users' CA is trusted: the proxy client certificate would be refused.
  hooks = createServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCa.certPem, requestCert: true, rejectUnauthorized: true }, handle);
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookPort = (hooks.address() as AddressInfo).port;
  const kubeconfigFile = join(dir, 'webhooks.svcconfig');
  writeFileSync(kubeconfigFile, kubeconfig(urlUser, svcUser));
  writeFileSync(join(dir, 'admission.yaml'), admissionConfig(kubeconfigFile));
  writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  api = await startApiServer({
    args: [
      `--proxy-client-cert-file=${proxy.certFile}`,
      `--proxy-client-key-file=${proxy.keyFile}`,
      `--admission-control-config-file=${join(dir, 'admission.yaml')}`,
      '--enable-admission-plugins=PodSecurityPolicy',
      `--audit-policy-file=${join(dir, 'policy.yaml')}`,
      `--audit-log-path=${auditLog}`,
    ],
  });
  const create = async (path: string, body: Loose) => {
    const r = await api.request('POST', path, body);
    assert.is(r.status, 201, r.text);
  };
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { webhooks: 'on' } } });
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooks' } });
  await create(`/api/v1/namespaces/${NS}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'defaults' }, spec: { limits: [{ type: 'Container', default: { cpu: '300m', memory: '64Mi' } }] } });
  await create('/apis/policy/v1beta1/podsecuritypolicies', PERMISSIVE_PSP);
  await create('/api/v1/namespaces/hooks/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: hookPort }] } });
  await create('/api/v1/namespaces/hooks/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hookPort }] }] });
  const caBundle = Buffer.from(serverCa.certPem).toString('base64');
  const hook = (name: string, clientConfig: Loose, extra: Loose = {}) => ({ name, clientConfig: { caBundle, ...clientConfig }, rules: POD_RULES, namespaceSelector: { matchLabels: { webhooks: 'on' } }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra });
  // Configurations run in name order: the observer (IfNeeded) before the injector.
  await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'a-observer' },
    webhooks: [hook('observe.hooks.example.com', { url: `https://127.0.0.1:${hookPort}/observe` }, { reinvocationPolicy: 'IfNeeded' })],
  });
  await create('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'b-injector' },
    webhooks: [hook('inject.hooks.example.com', { service: { namespace: 'hooks', name: 'hook', path: '/inject' } })],
  });
  await create('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'denier' },
    webhooks: [hook('deny.hooks.example.com', { url: `https://127.0.0.1:${hookPort}/deny` })],
  });
});

test.after(async () => {
  await api?.stop();
  api?.cleanup();
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
  for (const ca of [serverCa, clientCa, proxyCa]) ca?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'main', image: 'busybox' }] } });

/** The ResponseComplete event of the request with this audit ID (the log is written before the answer ends). */
function eventOf(auditID: string): Loose {
  const events = readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Loose);
  const ev = events.find((e) => e['auditID'] === auditID && e['stage'] === 'ResponseComplete');
  assert.ok(ev, `no ResponseComplete event for ${auditID}`);
  return ev!;
}

const auditIdOf = (r: { headers: Record<string, unknown> }): string => String(r.headers['audit-id']);

test('webhooks get the kubeconfig users\' credentials; a sidecar re-runs the mutating chain; annotations reach the audit events', async () => {
  // The configurations count once the watch cache has them (milliseconds): probe until the injector answers.
  let r = await api.request('POST', `/api/v1/namespaces/${NS}/pods`, pod('probe'));
  await eventually(async () => {
    if (r.status === 201 && calls.some((c) => c.path === '/inject')) return true;
    r = await api.request('POST', `/api/v1/namespaces/${NS}/pods`, pod(`probe-${Date.now()}`));
    return false;
  }, 10_000, 'the webhook configurations to count');
  calls.length = 0;
  r = await api.request('POST', `/api/v1/namespaces/${NS}/pods`, pod('web'));
  assert.is(r.status, 201, r.text);
  // Credentials: each hook called with its own user's certificate and token (the proxy client certificate would have failed the TLS handshake).
  assert.equal(
    calls.map((c) => [c.path, c.cn]),
    [['/observe', 'url-caller'], ['/inject', 'service-caller'], ['/observe', 'url-caller'], ['/deny', 'url-caller']],
  );
  // Reinvocation: LimitRanger ran again after the injection and defaulted the sidecar; the IfNeeded observer saw that.
  const sidecar = (r.json.spec.containers as Loose[]).find((c) => c['name'] === 'sidecar');
  assert.equal(sidecar?.['resources'], { limits: { cpu: '300m', memory: '64Mi' }, requests: { cpu: '300m', memory: '64Mi' } });
  const seen = calls.filter((c) => c.path === '/observe').map((c) => (c.object['spec']['containers'] as Loose[]).map((x) => [x['name'], x['resources']?.['limits']?.['cpu'] ?? null]));
  assert.equal(seen, [[['main', '300m']], [['main', '300m'], ['sidecar', '300m']]]);
  // Annotations: the webhook's (under its name) and PodSecurityPolicy's, beside authorization's.
  const ev = eventOf(auditIdOf(r));
  assert.is(ev['annotations']['inject.hooks.example.com/sidecar'], 'injected');
  assert.is(ev['annotations']['podsecuritypolicy.policy.svc.io/admit-policy'], 'permissive');
  assert.is(ev['annotations']['podsecuritypolicy.policy.svc.io/validate-policy'], 'permissive');
  assert.is(ev['annotations']['authorization.svc.io/decision'], 'allow');
  assert.is(r.json.metadata.annotations['svc.io/psp'], 'permissive');

  // A refusal keeps the refusing webhook's annotations.
  const refused = await api.request('POST', `/api/v1/namespaces/${NS}/pods`, pod('unwelcome', { deny: 'yes' }));
  assert.is(refused.status, 403, refused.text);
  assert.is(refused.json.message, 'admission webhook "deny.hooks.example.com" denied the request: pods labelled deny=yes are not welcome');
  const denied = eventOf(auditIdOf(refused));
  assert.is(denied['responseStatus']['code'], 403);
  assert.is(denied['annotations']['deny.hooks.example.com/why'], 'labelled-deny');
  assert.is(denied['annotations']['inject.hooks.example.com/sidecar'], 'injected');
});

test('the admission and audit metrics, with the established names and labels', async () => {
  const text = (await api.request('GET', '/metrics')).text;
  const value = (series: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    assert.ok(line, `no series ${series} in /metrics`);
    return Number(line!.slice(series.length + 1));
  };
  assert.ok(value('apiserver_admission_webhook_admission_duration_seconds_count{name="inject.hooks.example.com",type="admit",operation="CREATE",rejected="false"}') >= 2);
  assert.ok(value('apiserver_admission_webhook_admission_duration_seconds_count{name="deny.hooks.example.com",type="validating",operation="CREATE",rejected="true"}') >= 1);
  assert.ok(value('apiserver_admission_webhook_rejection_count{name="deny.hooks.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"}') >= 1);
  assert.ok(value('apiserver_admission_controller_admission_duration_seconds_count{name="LimitRanger",type="admit",operation="CREATE",rejected="false"}') >= 4, 'LimitRanger ran twice for each injected pod');
  assert.ok(value('apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionWebhook",type="validate",operation="CREATE",rejected="true"}') >= 1);
  assert.ok(value('apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"}') >= 1);
  assert.ok(value('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"}') >= 2);
  const events = value('apiserver_audit_event_total');
  assert.ok(events >= 10, `apiserver_audit_event_total ${events}`);
  assert.ok(value('apiserver_audit_level_total{level="Metadata"}') >= 10);
  assert.is(value('apiserver_audit_requests_rejected_total'), 0);
  assert.match(text, /# TYPE apiserver_audit_error_total counter/);
});

test('a WebhookAdmissionConfiguration that cannot be used refuses the start, naming the file and the problem', async () => {
  const bad = join(dir, 'bad-admission.yaml');
  writeFileSync(bad, admissionConfig('relative/webhooks.svcconfig'));
  let message = '';
  try {
    const s = await startApiServer({ args: [`--admission-control-config-file=${bad}`], readyTimeoutMs: 30_000 });
    await s.stop();
    s.cleanup();
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /exited early \(1\)/);
  assert.match(message, `admission plugin MutatingAdmissionWebhook: configuration in ${bad}: kubeConfigFile: Invalid value: "relative/webhooks.svcconfig": must be an absolute file path`);
});

test('--audit-dynamic-configuration: each AuditSink gets what its own policy asks for, the static log what the policy file does', async () => {
  // Refused without its API (alpha, off by default), naming what to add.
  let refusal = '';
  try {
    const bad = await startApiServer({ args: ['--feature-gates=DynamicAuditing=true', '--audit-dynamic-configuration'], readyTimeoutMs: 30_000 });
    await bad.stop();
    bad.cleanup();
  } catch (err) {
    refusal = (err as Error).message;
  }
  assert.match(refusal, '--audit-dynamic-configuration needs the auditregistration.k8s.io/v1alpha1 API (an alpha API, off by default): add --runtime-config=auditregistration.k8s.io/v1alpha1=true');
  const logPath = join(dir, 'dynamic', 'audit.log');
  const policyFile = join(dir, 'dynamic-policy.yaml');
  writeFileSync(policyFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["configmaps"]}]\n');
  const got: Record<string, Loose[]> = { meta: [], req: [] };
  const lists: string[] = [];
  const receiver = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const list = JSON.parse(body) as { kind: string; apiVersion: string; items: Loose[] };
      lists.push(`${list.apiVersion} ${list.kind}`);
      got[(req.url ?? '').slice(1)]?.push(...list.items);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  let dyn: ApiServerProcess | undefined;
  try {
    const s = (dyn = await startApiServer({
      args: ['--feature-gates=DynamicAuditing=true', '--audit-dynamic-configuration', '--runtime-config=auditregistration.k8s.io/v1alpha1=true', `--audit-policy-file=${policyFile}`, `--audit-log-path=${logPath}`],
    }));
    const sink = (name: string, level: string, stages: string[]) => ({
      apiVersion: 'auditregistration.k8s.io/v1alpha1',
      kind: 'AuditSink',
      metadata: { name },
      spec: { policy: { level, stages }, webhook: { throttle: { qps: 50, burst: 50 }, clientConfig: { url: `http://127.0.0.1:${port}/${name}` } } },
    });
    const invalid = await s.request('POST', '/apis/auditregistration.k8s.io/v1alpha1/auditsinks', sink('bad', 'Metadata', []));
    assert.is(invalid.status, 422, invalid.text);
    assert.match(invalid.json.message, 'spec.policy.stages: Required value');
    const made = await s.request('POST', '/apis/auditregistration.k8s.io/v1alpha1/auditsinks', sink('meta', 'Metadata', ['RequestReceived', 'ResponseComplete']));
    assert.is(made.status, 201, made.text);
    assert.equal(made.json.spec.webhook.throttle, { qps: 50, burst: 50 });
    assert.is((await s.request('POST', '/apis/auditregistration.k8s.io/v1alpha1/auditsinks', sink('req', 'Request', ['RequestReceived', 'ResponseComplete']))).status, 201);
    await eventually(() => (s.output().match(/dynamic audit: sink added/g) ?? []).length >= 2, 10_000, 'both sinks to count');
    assert.is((await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'dyn' } })).status, 201);
    // A batch goes at 400 events (or after 30 s): 220 creates, two events each, fill one for each sink.
    const ids = new Set<string>();
    for (let round = 0; round < 11; round++) {
      await Promise.all(Array.from({ length: 20 }, async (_, i) => {
        const r = await s.request('POST', '/api/v1/namespaces/dyn/configmaps', { metadata: { name: `c-${round}-${i}` }, data: { k: 'v' } });
        assert.is(r.status, 201, r.text);
        ids.add(String(r.headers['audit-id']));
      }));
    }
    await eventually(() => got['meta']!.length >= 400 && got['req']!.length >= 400, 20_000, 'a full batch at each sink');
    assert.ok(lists.every((l) => l === 'audit.k8s.io/v1 EventList'), lists.join());
    const creates = (events: Loose[]) => events.filter((e) => ids.has(e['auditID']));
    const meta = creates(got['meta']!);
    assert.ok(meta.length >= 300, `${meta.length}`);
    for (const e of meta) assert.equal([e['level'], e['requestObject'], e['responseObject']], ['Metadata', undefined, undefined]);
    const req = creates(got['req']!);
    assert.ok(req.some((e) => e['stage'] === 'RequestReceived') && req.some((e) => e['stage'] === 'ResponseComplete'));
    for (const e of req) {
      assert.is(e['level'], 'Request');
      assert.is(e['responseObject'], undefined);
      if (e['stage'] === 'ResponseComplete') assert.is(e['requestObject']['data']['k'], 'v');
    }
    // The static log: its own policy (Metadata, no RequestReceived), not the sinks' RequestResponse.
    const logged = readFileSync(logPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Loose).filter((e) => ids.has(e['auditID']));
    assert.is(logged.length, ids.size);
    for (const e of logged) assert.equal([e['level'], e['stage'], e['requestObject']], ['Metadata', 'ResponseComplete', undefined]);
  } finally {
    await dyn?.stop();
    dyn?.cleanup();
    receiver.close();
  }
});

test.run();
