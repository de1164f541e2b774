// Every common kubectl command against `svc up`, one test per command, named after it: run by
// kubectl-v35.test.ts (the newest kubectl: Protobuf typed creates, meta.k8s.io v1 Tables, aggregated
// discovery, watch-list) and kubectl-v31-commands.test.ts (JSON bodies). Both send the established
// spellings (paths under rbac.authorization.k8s.io and coordination.k8s.io ...) and get answers in
// the same spelling.
import * as assert from 'uvu/assert';
import { chmodSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import { resources, type Connection } from '../../src/client/index.js';
import { eventually } from '../helpers/client.js';
import { kubectl, kubectlStream, type ToolOptions } from '../helpers/kubectl.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

/** Runs every command test with the kubectl at `bin` (which reports client `version`, e.g. '1.35'). */
export function runKubectlCommands(bin: string, version: string): void {
// (Not indented: the manifests below are template literals whose indentation is YAML's.)
const test = suite(`kubectl ${version}`);
let up: SvcUp;
let kubeconfig = '';
let api: Connection;
const NS = `k${version.replace('.', '')}`;

test.before(async () => {
  up = await startSvcUp(`kubectl-v${version}`);
  ({ kubeconfig, api } = up);
});

test.after(async () => {
  await up?.stop();
});

function run(args: string[], opts: ToolOptions = {}) {
  return kubectl(kubeconfig, args, 90_000, { bin, ...opts });
}

const k = (...args: string[]): Promise<string> => up.kubectlOk(args, { bin });
const manifest = (name: string, text: string): string => up.manifest(name, text);

test('version', async () => {
  const out = await k('version');
  assert.match(out, new RegExp(`Client Version: v${version.replace('.', '\\.')}\\.`));
  assert.match(out, /Server Version: v\d+\.\d+\.\d+/);
});

test('api-resources', async () => {
  const out = await k('api-resources');
  for (const line of [
    /^configmaps\s+cm\s+v1\s+true\s+ConfigMap/m,
    /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m,
    /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease/m,
    /^clusterroles\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRole/m,
  ]) {
    assert.match(out, line);
  }
});

test('create namespace', async () => {
  // kubectl 1.32 and newer send this typed create as Protobuf (application/vnd.kubernetes.protobuf, `k8s\0` envelope).
  assert.match(await k('create', 'namespace', NS), `namespace/${NS} created`);
  assert.is((await api.client.get(resources.namespaces, '', NS)).metadata.name, NS);
});

test('create configmap', async () => {
  assert.match(await k('-n', NS, 'create', 'configmap', 'settings', '--from-literal=color=blue'), 'configmap/settings created');
  assert.equal((await api.client.get(resources.configmaps, NS, 'settings'))['data'], { color: 'blue' });
});

test('create secret', async () => {
  assert.match(await k('-n', NS, 'create', 'secret', 'generic', 'token', '--from-literal=key=s3cr3t'), 'secret/token created');
  const secret = await api.client.get(resources.secrets, NS, 'token');
  assert.is(Buffer.from(String((secret['data'] as Record<string, string>)['key']), 'base64').toString(), 's3cr3t');
});

test('create deployment', async () => {
  assert.match(await k('-n', NS, 'create', 'deployment', 'web', '--image=nginx:1', '--replicas=3'), 'deployment.apps/web created');
});

test('rollout status', async () => {
  assert.match(await k('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s'), 'successfully rolled out');
});

test('create deployment: the template hashes as its JSON twin (kubectl 1.35 sends Protobuf with every Go zero value)', async () => {
  // The same Deployment created from its JSON manifest in another namespace: same template, same
  // pod-template-hash, only if the Protobuf body's `stdin: false`, `hostIPC: false`, `generation: 0`
  // ... read as absent, as the established server reads them.
  const twin = `${NS}-json`;
  await k('create', 'namespace', twin);
  const json = await k('create', 'deployment', 'web', '--image=nginx:1', '--replicas=3', '--dry-run=client', '-o', 'json');
  await k('-n', twin, 'create', '-f', manifest('web-twin.json', json));
  const hashes = async (ns: string) => (await api.client.list(resources.replicasets, { namespace: ns })).items.map((rs) => rs.metadata.labels?.['pod-template-hash']);
  await eventually(async () => (await hashes(twin)).length === 1, 30_000, `the ReplicaSet of ${twin}/web`);
  assert.equal(await hashes(twin), await hashes(NS));
  const templateOf = async (ns: string) => (await api.client.get(resources.deployments, ns, 'web')).spec?.template;
  assert.equal(await templateOf(NS), await templateOf(twin));
  await k('delete', 'namespace', twin, '--wait=false');
});

test('wait', async () => {
  assert.match(await k('-n', NS, 'wait', '--for=condition=Available', 'deployment/web', '--timeout=30s'), 'condition met');
});

test('get (columns of the v1 Table)', async () => {
  const deploy = await k('-n', NS, 'get', 'deployments');
  assert.match(deploy, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/m);
  assert.match(deploy, /^web\s+3\/3\s+3\s+3\s+/m);
  const cms = await k('-n', NS, 'get', 'configmaps');
  assert.match(cms, /^NAME\s+DATA\s+AGE/m);
  assert.match(cms, /^settings\s+1\s+/m);
  const nodes = await k('get', 'nodes');
  assert.match(nodes, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/m);
  assert.match(nodes, /\sReady\s/);
});

test('get -o wide', async () => {
  const pods = await k('-n', NS, 'get', 'pods', '-o', 'wide');
  assert.match(pods, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/m);
  assert.match(pods, /^web-\S+\s+1\/1\s+Running\s+/m);
});

test('get -o json', async () => {
  const obj = JSON.parse(await k('-n', NS, 'get', 'configmap', 'settings', '-o', 'json'));
  assert.is(obj.apiVersion, 'v1');
  assert.equal(obj.data, { color: 'blue' });
});

test('get -o yaml', async () => {
  const out = await k('-n', NS, 'get', 'deployment', 'web', '-o', 'yaml');
  assert.match(out, /^apiVersion: apps\/v1$/m);
  assert.match(out, /^kind: Deployment$/m);
});

test('get --chunk-size', async () => {
  for (let i = 0; i < 7; i++) await api.client.create(resources.configmaps, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `chunk-${i}`, namespace: NS } });
  const out = await k('-n', NS, 'get', 'configmaps', '--chunk-size=2', '-o', 'name');
  for (let i = 0; i < 7; i++) assert.match(out, `configmap/chunk-${i}`);
});

test('get -w', async () => {
  const w = kubectlStream(kubeconfig, ['-n', NS, 'get', 'configmaps', '-w'], bin);
  try {
    await eventually(async () => /^settings\s/m.test(w.output()), 20_000, 'the initial list');
    await api.client.create(resources.configmaps, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', namespace: NS }, data: { a: '1', b: '2' } });
    await eventually(async () => /^watched\s+2\s/m.test(w.output()), 20_000, `the new ConfigMap in the watch: ${w.output()}`);
  } finally {
    w.child.kill();
  }
});

test('create job', async () => {
  assert.match(await k('-n', NS, 'create', 'job', 'once', '--image=busybox'), 'job.batch/once created');
  // A simulated container runs until deleted unless annotated; the job controller's pod runs.
  await eventually(async () => (await k('-n', NS, 'get', 'job', 'once', '-o', 'jsonpath={.status.active}')) === '1', 30_000, 'the Job has an active pod');
  // Active counts a pending pod too; Running and ready is the node's later write.
  await eventually(async () => /^once-\S+\s+1\/1\s+Running\s/m.test(await k('-n', NS, 'get', 'pods', '-l', 'job-name=once')), 30_000, 'the Job\'s pod 1/1 Running');
});

test('create cronjob (batch/v1) and create job --from=cronjob/', async () => {
  assert.match(await k('-n', NS, 'create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/1 * * * *'), 'cronjob.batch/tick created');
  assert.is(await k('-n', NS, 'get', 'cronjob', 'tick', '-o', 'jsonpath={.apiVersion} {.spec.schedule}'), 'batch/v1 */1 * * * *');
  assert.match(await k('-n', NS, 'create', 'job', 'from-tick', '--from=cronjob/tick'), 'job.batch/from-tick created');
  assert.is(await k('-n', NS, 'get', 'job', 'from-tick', '-o', 'jsonpath={.metadata.ownerReferences[0].apiVersion}/{.metadata.ownerReferences[0].kind}'), 'batch/v1/CronJob');
  // Gone before the next minute fires it; the garbage collector takes the Job it owns.
  assert.match(await k('-n', NS, 'delete', 'cronjob', 'tick'), 'cronjob.batch "tick" deleted');
  await eventually(async () => (await run(['-n', NS, 'get', 'job', 'from-tick'])).stderr.includes('NotFound'), 30_000, 'the owned Job is collected');
});

test('label', async () => {
  assert.match(await k('-n', NS, 'label', 'configmap', 'settings', 'tier=front'), 'labeled');
  assert.match(await k('-n', NS, 'get', 'configmaps', '-l', 'tier=front', '-o', 'name'), 'configmap/settings');
});

test('annotate', async () => {
  assert.match(await k('-n', NS, 'annotate', 'configmap', 'settings', 'owner=team-a'), 'annotated');
  assert.is(await k('-n', NS, 'get', 'configmap', 'settings', '-o', 'jsonpath={.metadata.annotations.owner}'), 'team-a');
});

test('patch (merge and json)', async () => {
  await k('-n', NS, 'patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"size":"L"}}');
  await k('-n', NS, 'patch', 'configmap', 'settings', '--type=json', '-p', '[{"op":"replace","path":"/data/color","value":"red"}]');
  assert.equal((await api.client.get(resources.configmaps, NS, 'settings'))['data'], { color: 'red', size: 'L' });
});

test('scale', async () => {
  assert.match(await k('-n', NS, 'scale', 'deployment/web', '--replicas=5'), 'scaled');
  await k('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
  assert.is(await k('-n', NS, 'get', 'deployment', 'web', '-o', 'jsonpath={.status.availableReplicas}'), '5');
});

test('rollout history and undo', async () => {
  await k('-n', NS, 'set', 'image', 'deployment/web', 'nginx=nginx:2');
  await k('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
  const history = await k('-n', NS, 'rollout', 'history', 'deployment/web');
  assert.match(history, /^1\s/m);
  assert.match(history, /^2\s/m);
  const first = (await api.client.list(resources.replicasets, { namespace: NS })).items.find((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'] === '1');
  assert.ok(first, 'the first revision has its ReplicaSet');
  await k('-n', NS, 'rollout', 'undo', 'deployment/web');
  await k('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
  assert.is(await k('-n', NS, 'get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1');
  // The undo goes back to the first revision's ReplicaSet (now revision 3), not a third one.
  const sets = (await api.client.list(resources.replicasets, { namespace: NS })).items.filter((rs) => rs.metadata.name?.startsWith('web-'));
  assert.is(sets.length, 2, `ReplicaSets after undo: ${sets.map((rs) => rs.metadata.name).join(', ')}`);
  const reused = sets.find((rs) => rs.metadata.uid === first.metadata.uid);
  assert.is(reused?.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
  assert.is(reused?.spec?.replicas, 5);
  const after = await k('-n', NS, 'rollout', 'history', 'deployment/web');
  assert.not.match(after, /^1\s/m);
  assert.match(after, /^2\s/m);
  assert.match(after, /^3\s/m);
});

test('apply -f with manifests for the established groups (RBAC, a Lease), validated by the server', async () => {
  const file = manifest('established.yaml', `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: k35-reader
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: k35-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: k35-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: readers
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: k35-lock
  namespace: ${NS}
spec:
  holderIdentity: me
  leaseDurationSeconds: 15
`);
  const out = await k('apply', '-f', file);
  assert.match(out, 'clusterrole.rbac.authorization.k8s.io/k35-reader created');
  assert.match(out, 'lease.coordination.k8s.io/k35-lock created');
  // Read back through kubectl: the established spelling, also inside the object.
  const binding = JSON.parse(await k('get', 'clusterrolebinding.rbac.authorization.k8s.io', 'k35-reader', '-o', 'json'));
  assert.is(binding.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.is(binding.roleRef.apiGroup, 'rbac.authorization.k8s.io');
  assert.match(await k('-n', NS, 'get', 'leases.coordination.k8s.io'), /^k35-lock\s+me\s/m);
  // Stored once, in our spelling.
  const stored = await api.client.get(resources.clusterrolebindings, '', 'k35-reader');
  assert.is(stored.apiVersion, 'rbac.authorization.svc.io/v1');
  assert.is((stored['roleRef'] as { apiGroup: string }).apiGroup, 'rbac.authorization.svc.io');
});

test('apply -f (client-side: create, change, prune a field)', async () => {
  const file = manifest('applied.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {a: "1", b: "2"}
data:
  x: "1"
  y: "2"
`);
  assert.match(await k('-n', NS, 'apply', '-f', file), 'configmap/applied created');
  writeFileSync(file, `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {a: "1", c: "3"}
data:
  x: "1"
  z: "3"
`);
  assert.match(await k('-n', NS, 'apply', '-f', file), 'configmap/applied configured');
  const cm = await api.client.get(resources.configmaps, NS, 'applied');
  assert.equal(cm['data'], { x: '1', z: '3' }, 'y was pruned, z added');
  assert.equal(cm.metadata.labels, { a: '1', c: '3' });
  assert.ok(cm.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);
});

test('apply -f with an unknown field (kubectl asks the server to validate strictly)', async () => {
  const file = manifest('typo.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: typo
dta:
  x: "1"
`);
  const r = await run(['-n', NS, 'apply', '-f', file]);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'unknown field "dta"');
  const ok = await run(['-n', NS, 'apply', '--validate=false', '-f', file]);
  assert.is(ok.code, 0, ok.stderr);
});

test('apply --server-side (a conflict between two field managers, then --force-conflicts)', async () => {
  const first = manifest('ssa-1.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  owner: first
`);
  const second = manifest('ssa-2.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  owner: second
`);
  assert.match(await k('-n', NS, 'apply', '--server-side', '-f', first), 'serverside-applied');
  const conflict = await run(['-n', NS, 'apply', '--server-side', '--field-manager=other', '-f', second]);
  assert.is(conflict.code, 1);
  assert.match(conflict.stderr, /conflict with "kubectl"/);
  assert.match(await k('-n', NS, 'apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', second), 'serverside-applied');
  assert.equal((await api.client.get(resources.configmaps, NS, 'ssa'))['data'], { owner: 'second' });
});

test('apply --dry-run=server', async () => {
  const file = manifest('dry.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  x: "changed"
`);
  assert.match(await k('-n', NS, 'apply', '--dry-run=server', '-f', file), '(server dry run)');
  assert.equal((await api.client.get(resources.configmaps, NS, 'applied'))['data'], { x: '1', z: '3' }, 'nothing stored');
});

test('diff', async () => {
  const file = manifest('diff.yaml', `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  labels: {a: "1", c: "3"}
data:
  x: "2"
  z: "3"
`);
  const r = await run(['-n', NS, 'diff', '-f', file]);
  assert.is(r.code, 1, `diff exits 1 when there are differences: ${r.stderr}`);
  assert.match(r.stdout, /^-\s+x: "1"$/m);
  assert.match(r.stdout, /^\+\s+x: "2"$/m);
});

test('edit', async () => {
  const editor = manifest('editor.sh', '#!/bin/sh\nsed -i "s/z: \\"3\\"/z: \\"edited\\"/" "$1"\n');
  chmodSync(editor, 0o755);
  assert.match((await run(['-n', NS, 'edit', 'configmap', 'applied'], { env: { KUBE_EDITOR: editor, EDITOR: editor } })).stdout, 'configmap/applied edited');
  assert.is(((await api.client.get(resources.configmaps, NS, 'applied'))['data'] as Record<string, string>)['z'], 'edited');
});

test('patch (strategic: the default type)', async () => {
  await k('-n', NS, 'create', 'deployment', 'strategic', '--image=app:1', '--replicas=1');
  // A second container through a strategic merge patch: containers merge by name.
  await k('-n', NS, 'patch', 'deployment', 'strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"side:1"}]}}}}');
  await k('-n', NS, 'patch', 'deployment', 'strategic', '--type=strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}');
  const containers = (await k('-n', NS, 'get', 'deployment', 'strategic', '-o', 'jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}')).trim();
  assert.is(containers, 'app=app:2 side=side:1');
});

test('rollout restart', async () => {
  assert.match(await k('-n', NS, 'rollout', 'restart', 'deployment/strategic'), 'restarted');
  assert.match(await k('-n', NS, 'get', 'deployment', 'strategic', '-o', 'jsonpath={.spec.template.metadata.annotations}'), 'kubectl.kubernetes.io/restartedAt');
  await k('-n', NS, 'rollout', 'status', 'deployment/strategic', '--timeout=60s');
});

test('explain pods.spec.containers', async () => {
  const out = await k('explain', 'pods.spec.containers');
  assert.match(out, /^KIND:\s+Pod$/m);
  assert.match(out, /^FIELD: containers <\[\]Object>$/m);
  for (const field of ['image', 'env', 'ports', 'volumeMounts']) assert.match(out, new RegExp(`^  ${field}\\s`, 'm'));
});

test('auth can-i', async () => {
  // A SelfSubjectAccessReview of authorization.k8s.io (Protobuf from 1.32 on), answered by the authorizer in force (AlwaysAllow).
  assert.is((await k('auth', 'can-i', 'create', 'pods')).trim(), 'yes');
  assert.match(await k('auth', 'can-i', '--list'), /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/m);
});

test('delete --cascade=orphan and --cascade=foreground', async () => {
  await k('-n', NS, 'create', 'deployment', 'orphaned', '--image=nginx:1', '--replicas=1');
  await k('-n', NS, 'rollout', 'status', 'deployment/orphaned', '--timeout=60s');
  await k('-n', NS, 'delete', 'deployment', 'orphaned', '--cascade=orphan');
  const left = await api.client.list(resources.replicasets, { namespace: NS, labelSelector: 'app=orphaned' });
  assert.is(left.items.length, 1, 'the ReplicaSet outlives its orphaning owner');
  await k('-n', NS, 'delete', 'deployment', 'web', '--cascade=foreground', '--timeout=90s');
  assert.equal((await api.client.list(resources.replicasets, { namespace: NS, labelSelector: 'app=web' })).items, []);
  assert.equal((await api.client.list(resources.pods, { namespace: NS, labelSelector: 'app=web' })).items, []);
});

test.run();
}
