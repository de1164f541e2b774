// The PodSecurityPolicy admission plugin end to end: a real apiserver process over HTTPS with
// --authorization-mode=RBAC, static tokens and --enable-admission-plugins=PodSecurityPolicy, driven
// by kubectl. With no policy every pod is refused (even an administrator's); then a restricted and
// a privileged policy, alice granted `use` of the first and bob of the second through RBAC: a
// privileged pod is refused for alice with the established aggregated message and admitted for bob,
// annotated with the policy; alice's plain pod gets the restricted policy's defaults; alice cannot
// change bob's privileged pod (updates are validated against the policies the updater may use).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';
import { kubeconfigFor, kubectl, type KubectlResult } from '../../helpers/kubectl.js';

const NS = 'team';
let server: ApiServerProcess;
let kubeconfig: string;
let dir: string;

/** kubectl as the administrator (the kubeconfig's token), or as a user by token. */
const k = (args: string[], opts: { as?: string; input?: string } = {}): Promise<KubectlResult> =>
  kubectl(kubeconfig, [...(opts.as ? [`--token=${opts.as}-token`] : []), ...args], 60_000, opts.input === undefined ? {} : { input: opts.input });

async function ok(args: string[], opts: { as?: string; input?: string } = {}): Promise<string> {
  const r = await k(args, opts);
  assert.is(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const PRIVILEGED_PSP = `
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata: {name: privileged}
spec:
  privileged: true
  allowPrivilegeEscalation: true
  allowedCapabilities: ['*']
  volumes: ['*']
  hostNetwork: true
  hostPorts: [{min: 0, max: 65535}]
  hostIPC: true
  hostPID: true
  runAsUser: {rule: RunAsAny}
  seLinux: {rule: RunAsAny}
  supplementalGroups: {rule: RunAsAny}
  fsGroup: {rule: RunAsAny}
`;
const RESTRICTED_PSP = `
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata: {name: restricted}
spec:
  privileged: false
  allowPrivilegeEscalation: false
  requiredDropCapabilities: [ALL]
  volumes: [configMap, emptyDir, projected, secret, downwardAPI, persistentVolumeClaim]
  runAsUser: {rule: MustRunAsNonRoot}
  seLinux: {rule: RunAsAny}
  supplementalGroups: {rule: MustRunAs, ranges: [{min: 1, max: 65535}]}
  fsGroup: {rule: MustRunAs, ranges: [{min: 1, max: 65535}]}
`;
const podYaml = (name: string, privileged: boolean) => `
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${NS}}
spec:
  containers:
  - name: app
    image: registry.example/app:1
${privileged ? '    securityContext: {privileged: true}\n' : ''}`;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-psp-'));
  const tokens = join(dir, 'tokens.csv');
  // svc-e2e is the token of the helper's kubeconfig: the administrator.
  writeFileSync(tokens, ['svc-e2e,admin,uid-admin,system:masters', 'alice-token,alice,uid-alice', 'bob-token,bob,uid-bob', ''].join('\n'));
  server = await startApiServer({ args: ['--authorization-mode=RBAC', `--token-auth-file=${tokens}`, '--enable-admission-plugins=PodSecurityPolicy'] });
  kubeconfig = kubeconfigFor(server);
  await ok(['create', 'namespace', NS]);
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('enabled without policies, every pod is refused, an administrator\'s too', async () => {
  const r = await k(['create', '-f', '-'], { input: podYaml('early', false) });
  assert.is(r.code, 1);
  assert.match(r.stderr, /pods "early" is forbidden: no providers available to validate pod request/);
});

test('kubectl get psp: the kind is served with its short name and the established columns', async () => {
  await ok(['apply', '-f', '-'], { input: PRIVILEGED_PSP + '---' + RESTRICTED_PSP });
  const table = await ok(['get', 'psp']);
  const lines = table.trim().split('\n');
  assert.match(lines[0]!, /^NAME\s+PRIV\s+CAPS\s+SELINUX\s+RUNASUSER\s+FSGROUP\s+SUPGROUP\s+READONLYROOTFS\s+VOLUMES$/);
  assert.match(lines[1]!, /^privileged\s+true\s+\*\s+RunAsAny\s+RunAsAny\s+RunAsAny\s+RunAsAny\s+false\s+\*$/);
  assert.match(lines[2]!, /^restricted\s+false\s+RunAsAny\s+MustRunAsNonRoot\s+MustRunAs\s+MustRunAs\s+false\s+configMap,emptyDir,projected,secret,downwardAPI,persistentVolumeClaim$/);
  // Defaulted and cluster-scoped; invalid policies refused with the established message.
  assert.is(await ok(['get', 'podsecuritypolicies.policy', 'restricted', '-o', 'jsonpath={.spec.allowPrivilegeEscalation} {.metadata.namespace}']), 'false ');
  const bad = await k(['apply', '-f', '-'], { input: RESTRICTED_PSP.replace('name: restricted', 'name: bad').replace('MustRunAsNonRoot', 'Sometimes') });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /spec\.runAsUser\.rule: Unsupported value: "Sometimes": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"/);
});

test('RBAC grants `use`: alice the restricted policy, bob the privileged one (and both may create pods)', async () => {
  await ok(['create', 'clusterrole', 'psp:restricted', '--verb=use', '--resource=podsecuritypolicies', '--resource-name=restricted']);
  await ok(['create', 'clusterrole', 'psp:privileged', '--verb=use', '--resource=podsecuritypolicies', '--resource-name=privileged']);
  await ok(['create', 'clusterrole', 'pod-writer', '--verb=create,get,list,patch,update', '--resource=pods']);
  await ok(['-n', NS, 'create', 'rolebinding', 'alice-restricted', '--clusterrole=psp:restricted', '--user=alice']);
  await ok(['-n', NS, 'create', 'rolebinding', 'bob-privileged', '--clusterrole=psp:privileged', '--user=bob']);
  await ok(['-n', NS, 'create', 'rolebinding', 'writers', '--clusterrole=pod-writer', '--user=alice', '--user=bob']);
  // The authorizer answers `use` as the plugin will ask it (bindings reach the RBAC cache at once or nearly).
  for (let i = 0; ; i++) {
    const r = await k(['-n', NS, 'auth', 'can-i', 'use', 'podsecuritypolicies.policy/restricted'], { as: 'alice' });
    if (r.stdout.trim() === 'yes') break;
    if (i > 50) assert.unreachable(`alice may not use restricted: ${r.stdout} ${r.stderr}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.is((await k(['-n', NS, 'auth', 'can-i', 'use', 'podsecuritypolicies.policy/privileged'], { as: 'alice' })).stdout.trim(), 'no');
});

test('a privileged pod: refused for alice with the aggregated message, admitted for bob with the annotation', async () => {
  const refused = await k(['create', '-f', '-'], { as: 'alice', input: podYaml('priv', true) });
  assert.is(refused.code, 1);
  assert.match(
    refused.stderr,
    /Error from server \(Forbidden\).*pods "priv" is forbidden: unable to validate against any pod security policy: \[spec\.containers\[0\]\.securityContext\.privileged: Invalid value: true: Privileged containers are not allowed\]/,
  );
  await ok(['create', '-f', '-'], { as: 'bob', input: podYaml('priv', true) });
  assert.is(await ok(['-n', NS, 'get', 'pod', 'priv', '-o', 'jsonpath={.metadata.annotations.svc\\.io/psp}']), 'privileged');
});

test("alice's plain pod gets the restricted policy's defaults; she cannot change bob's privileged pod", async () => {
  await ok(['create', '-f', '-'], { as: 'alice', input: podYaml('plain', false) });
  const got = JSON.parse(await ok(['-n', NS, 'get', 'pod', 'plain', '-o', 'json'], { as: 'alice' })) as {
    metadata: { annotations: Record<string, string> };
    spec: { securityContext: Record<string, unknown>; containers: { securityContext: Record<string, unknown> }[] };
  };
  assert.is(got.metadata.annotations['svc.io/psp'], 'restricted');
  assert.equal(got.spec.containers[0]!.securityContext, { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false });
  assert.equal(got.spec.securityContext['fsGroup'], 1);
  assert.equal(got.spec.securityContext['supplementalGroups'], [1]);
  // An update is admitted only under a policy the updater may use, without defaults.
  const label = await k(['-n', NS, 'label', 'pod', 'priv', 'tier=web'], { as: 'alice' });
  assert.is(label.code, 1);
  assert.match(label.stderr, /pods "priv" is forbidden: unable to validate against any pod security policy: \[spec\.containers\[0\]\.securityContext\.privileged: Invalid value: true: Privileged containers are not allowed\]/);
  await ok(['-n', NS, 'label', 'pod', 'priv', 'tier=web'], { as: 'bob' });
  await ok(['-n', NS, 'label', 'pod', 'plain', 'tier=web'], { as: 'alice' });
});

test.run();
