// End to end: a real apiserver process with --admission-control-config-file and
// --enable-admission-plugins naming NamespaceAutoProvision, PodNodeSelector,
// PodTolerationRestriction, EventRateLimit, DenyEscalatingExec and
// OwnerReferencesPermissionEnforcement (ABAC lets the anonymous test client write configmaps,
// pods, events and namespaces, not replicasets/finalizers). A bad plugin section stops the start,
// naming the file and plugin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-admission-e2e-'));
let server: ApiServerProcess;

function file(name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const anonymous = (resource: string) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'system:anonymous', namespace: '*', resource, apiGroup: '*' } });
const POLICY = file('abac.jsonl', [
  ...['namespaces', 'configmaps', 'pods', 'events'].map(anonymous),
  JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'system:anonymous', nonResourcePath: '*' } }),
]);
const ERL = file('erl.yaml', ['apiVersion: eventratelimit.admission.svc.io/v1alpha1', 'kind: Configuration', 'limits:', '- type: Namespace', '  qps: 1', '  burst: 3']);
file('erl-bad.yaml', ['apiVersion: eventratelimit.admission.svc.io/v1alpha1', 'kind: Configuration', 'limits:', '- type: Namespace', '  qps: 0', '  burst: 3']);
const admissionFile = (erl: string) =>
  file(`admission-${erl}`, [
    'apiVersion: apiserver.config.svc.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '- name: EventRateLimit',
    `  path: ${erl}`,
    '- name: PodNodeSelector',
    '  configuration:',
    '    podNodeSelectorPluginConfig:',
    '      clusterDefaultNodeSelector: tier=shared',
    '      team: env=prod,disk=ssd',
    '- name: PodTolerationRestriction',
    '  configuration:',
    '    apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1',
    '    kind: Configuration',
    '    default:',
    '    - {key: dedicated, operator: Equal, value: shared, effect: NoSchedule}',
  ]);
const PLUGINS = '--enable-admission-plugins=NamespaceAutoProvision,PodNodeSelector,PodTolerationRestriction,EventRateLimit,DenyEscalatingExec,OwnerReferencesPermissionEnforcement';
const args = (config: string) => [`--admission-control-config-file=${config}`, PLUGINS, '--authorization-mode=ABAC', `--authorization-policy-file=${POLICY}`];

test.before(async () => {
  server = await startApiServer({ args: args(admissionFile('erl.yaml')) });
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const pod = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

test('a malformed plugin section stops the start, naming the file and the plugin', async () => {
  const err = await startApiServer({ args: args(admissionFile('erl-bad.yaml')), readyTimeoutMs: 30_000 }).then(
    () => undefined,
    (e: Error) => e.message,
  );
  assert.ok(err, 'the server should not have started');
  assert.match(err!, /--admission-control-config-file: admission plugin EventRateLimit: configuration in \S*erl-bad\.yaml: limits\[0\]\.qps: Invalid value: 0: must be positive/);
});

test('NamespaceAutoProvision creates the namespace; PodNodeSelector applies the cluster default there', async () => {
  const created = await server.request('POST', '/api/v1/namespaces/auto-made/pods', pod('p1'));
  assert.is(created.status, 201, created.text);
  assert.equal((created.json as { spec: { nodeSelector: unknown } }).spec.nodeSelector, { tier: 'shared' });
  assert.is((await server.request('GET', '/api/v1/namespaces/auto-made')).status, 200);
});

test("PodNodeSelector: the namespace's selector is merged; a conflict and a label outside the whitelist are refused", async () => {
  const ns = await server.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'env=prod' } } });
  assert.is(ns.status, 201, ns.text);
  const ok = await server.request('POST', '/api/v1/namespaces/team/pods', pod('p1', { nodeSelector: { disk: 'ssd' } }));
  assert.is(ok.status, 201, ok.text);
  assert.equal((ok.json as { spec: { nodeSelector: unknown } }).spec.nodeSelector, { env: 'prod', disk: 'ssd' });
  const conflict = await server.request('POST', '/api/v1/namespaces/team/pods', pod('p2', { nodeSelector: { env: 'dev' } }));
  assert.is(conflict.status, 403);
  assert.is((conflict.json as { message: string }).message, 'pods "p2" is forbidden: pod node label selector conflicts with its namespace node label selector');
  const outside = await server.request('POST', '/api/v1/namespaces/team/pods', pod('p3', { nodeSelector: { zone: 'a' } }));
  assert.is((outside.json as { message: string }).message, 'pods "p3" is forbidden: pod node label selector labels conflict with its namespace whitelist');
});

test('PodTolerationRestriction: the cluster default is merged; a namespace whitelist refuses other tolerations', async () => {
  const whitelist = JSON.stringify([{ key: 'dedicated', operator: 'Exists' }, { key: 'node.svc.io/not-ready', operator: 'Exists' }, { key: 'node.svc.io/unreachable', operator: 'Exists' }]);
  const ns = await server.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tol', annotations: { 'scheduler.alpha.svc.io/tolerationsWhitelist': whitelist } } });
  assert.is(ns.status, 201, ns.text);
  const ok = await server.request('POST', '/api/v1/namespaces/tol/pods', pod('p1'));
  assert.is(ok.status, 201, ok.text);
  const tolerations = (ok.json as { spec: { tolerations: { key: string }[] } }).spec.tolerations.map((t) => t.key);
  assert.ok(tolerations.includes('dedicated'), JSON.stringify(tolerations));
  const refused = await server.request('POST', '/api/v1/namespaces/tol/pods', pod('p2', { tolerations: [{ key: 'gpu', operator: 'Exists' }] }));
  assert.is(refused.status, 500);
  assert.is((refused.json as { message: string }).message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
});

test('EventRateLimit: a burst of events in one namespace gets the established 429', async () => {
  const event = (i: number) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}` }, involvedObject: { kind: 'Pod', namespace: 'events', name: 'p' }, reason: 'Test', message: 'burst', type: 'Normal' });
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => server.request('POST', '/api/v1/namespaces/events/events', event(i))));
  const codes = answers.map((a) => a.status);
  assert.ok(codes.filter((c) => c === 201).length >= 3, codes.join(','));
  const limited = answers.find((a) => a.status === 429);
  assert.ok(limited, codes.join(','));
  assert.is((limited!.json as { message: string }).message, 'Too many requests: limit reached on type Namespace for key events');
});

test('DenyEscalatingExec refuses exec into a host-network pod before the server answers that exec is not available', async () => {
  assert.is((await server.request('POST', '/api/v1/namespaces/exec/pods', pod('host', { hostNetwork: true }))).status, 201);
  assert.is((await server.request('POST', '/api/v1/namespaces/exec/pods', pod('plain'))).status, 201);
  const refused = await server.request('POST', '/api/v1/namespaces/exec/pods/host/exec?command=sh&stdin=true&stdout=true');
  assert.is(refused.status, 403, refused.text);
  assert.is((refused.json as { message: string }).message, 'pods "host" is forbidden: cannot exec into or attach to a container using host network');
  const attach = await server.request('GET', '/api/v1/namespaces/exec/pods/host/attach?stdout=true');
  assert.is(attach.status, 403, attach.text);
  const plain = await server.request('POST', '/api/v1/namespaces/exec/pods/plain/exec?command=sh&stdout=true');
  assert.is(plain.status, 400, plain.text);
});

test('OwnerReferencesPermissionEnforcement: blockOwnerDeletion needs update on the owner\'s finalizers', async () => {
  const cm = (name: string, ref: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: [{ name: 'owner', uid: 'u-1', blockOwnerDeletion: true, ...ref }] } });
  const refused = await server.request('POST', '/api/v1/namespaces/owners/configmaps', cm('c1', { apiVersion: 'apps/v1', kind: 'ReplicaSet' }));
  assert.is(refused.status, 403, refused.text);
  assert.match((refused.json as { message: string }).message, /^configmaps "c1" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: /);
  const allowed = await server.request('POST', '/api/v1/namespaces/owners/configmaps', cm('c2', { apiVersion: 'v1', kind: 'ConfigMap' }));
  assert.is(allowed.status, 201, allowed.text);
});

test.run();
