// PodSecurityPolicy rules in unit form: the kind's defaulting and validation, each strategy's
// defaults and errors (established wording), one policy applied to a pod, and the admission
// plugin's choice of policy (non-mutating first, then by name; user or service account may `use`
// it; updates validated without defaults; the aggregated refusal).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { podSecurityPolicyDefinition } from '../../../src/api/kinds/policy/podsecuritypolicy.js';
import type { SvcObject } from '../../../src/api/types.js';
import { podDefinition } from '../../../src/api/kinds/core/index.js';
import type { AccessAttributes, Authorizer } from '../../../src/apiserver/auth/authorization.js';
import type { UserInfo } from '../../../src/apiserver/auth/user.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import { podSecurityPolicyAdmission, VALIDATED_PSP_ANNOTATION } from '../../../src/apiserver/admission/pod-security-policy.js';
import { podSecurityPolicyProvider } from '../../../src/apiserver/admission/pod-security-policy-provider.js';
import {
  allowsHostPath, capabilitiesStrategy, groupStrategy, seLinuxStrategy, StrategyError, userStrategy, validateSysctls,
} from '../../../src/apiserver/admission/pod-security-policy-strategies.js';

type Loose = Record<string, unknown>;

const psp = (name: string, spec: Loose): SvcObject => {
  const o: SvcObject = { apiVersion: 'policy/v1beta1', kind: 'PodSecurityPolicy', metadata: { name }, spec };
  podSecurityPolicyDefinition.defaults!(o);
  return o;
};

const ANY = { rule: 'RunAsAny' };
/** The established documentation's privileged and restricted examples. */
const privileged = () => psp('privileged', {
  privileged: true, allowPrivilegeEscalation: true, allowedCapabilities: ['*'], volumes: ['*'], hostNetwork: true,
  hostPorts: [{ min: 0, max: 65535 }], hostIPC: true, hostPID: true, runAsUser: ANY, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY,
});
const restricted = (name = 'restricted') => psp(name, {
  privileged: false, allowPrivilegeEscalation: false, requiredDropCapabilities: ['ALL'],
  volumes: ['configMap', 'emptyDir', 'projected', 'secret', 'downwardAPI', 'persistentVolumeClaim'],
  hostNetwork: false, hostIPC: false, hostPID: false,
  runAsUser: { rule: 'MustRunAsNonRoot' }, seLinux: ANY,
  supplementalGroups: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
  fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
  readOnlyRootFilesystem: false,
});
/** A policy that allows everything and changes nothing. */
const permissive = (name: string) => psp(name, { privileged: true, allowedCapabilities: ['*'], volumes: ['*'], runAsUser: ANY, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY });

const pod = (name: string, spec: Loose = {}, annotations?: Record<string, string>): SvcObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'team', ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image: 'app:1' }], ...spec },
});
const privilegedPod = (name: string) => pod(name, { containers: [{ name: 'c', image: 'app:1', securityContext: { privileged: true } }] });

const messages = (errs: { field: string; message: string }[]) => errs.map((e) => `${e.field}: ${e.message}`);

// ---- the kind -----------------------------------------------------------------------------------

test('kind: allowPrivilegeEscalation defaults to true; a full valid policy has no errors', () => {
  const p = psp('x', { runAsUser: ANY, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY });
  assert.is((p.spec as Loose)['allowPrivilegeEscalation'], true);
  assert.equal(podSecurityPolicyDefinition.validate!(restricted()), []);
  assert.equal(podSecurityPolicyDefinition.validate!(privileged()), []);
  assert.is(podSecurityPolicyDefinition.namespaced, false);
  assert.equal(podSecurityPolicyDefinition.shortNames, ['psp']);
});

test('kind: the established validation messages', () => {
  const errs = messages(podSecurityPolicyDefinition.validate!(psp('bad', {
    runAsUser: { rule: 'Sometimes' }, seLinux: {}, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'MustRunAs', ranges: [{ min: 5, max: 1 }, { min: -1, max: 2 }] },
    runAsGroup: { rule: 'MayRunAs', ranges: [{ min: 1, max: 2 }] },
    volumes: ['secret', 'bogus'], hostPorts: [{ min: 80, max: 70000 }],
    defaultAddCapabilities: ['NET_ADMIN'], requiredDropCapabilities: ['NET_ADMIN'],
    defaultAllowPrivilegeEscalation: true, allowPrivilegeEscalation: false,
    allowedProcMountTypes: ['Weird'], allowedHostPaths: [{ pathPrefix: '' }],
    allowedFlexVolumes: [{ driver: 'x/y' }],
    allowedUnsafeSysctls: ['net.*'], forbiddenSysctls: ['net.core.somaxconn', 'Bad Sysctl'],
    runtimeClass: { allowedRuntimeClassNames: ['gvisor'], defaultRuntimeClassName: 'kata' },
  })));
  for (const want of [
    'spec.runAsUser.rule: Unsupported value: "Sometimes": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"',
    'spec.seLinux.rule: Unsupported value: "": supported values: "MustRunAs", "RunAsAny"',
    'spec.fsGroup.ranges[0].min: Invalid value: 5: min cannot be greater than max',
    'spec.fsGroup.ranges[1].min: Invalid value: -1: min cannot be negative',
    'spec.hostPorts[0].max: Invalid value: 70000: max should be between 0 and 65535',
    'spec.defaultAllowPrivilegeEscalation: Invalid value: true: Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true',
    'spec.defaultAddCapabilities[0]: Invalid value: "NET_ADMIN": capability is listed in defaultAddCapabilities and requiredDropCapabilities',
    'spec.allowedProcMountTypes[0]: Unsupported value: "Weird": supported values: "Default", "Unmasked"',
    'spec.allowedHostPaths[0].pathPrefix: Required value',
    'spec.forbiddenSysctls[0]: Invalid value: "net.core.somaxconn": sysctl overlaps with net.*',
    'spec.runtimeClass.defaultRuntimeClassName: Forbidden: default must be allowed',
  ]) {
    assert.ok(errs.includes(want), `${want}\nnot in:\n${errs.join('\n')}`);
  }
  assert.ok(errs.some((e) => e.startsWith('spec.volumes: Unsupported value: "bogus": supported values: "*", "awsElasticBlockStore"')), errs.join('\n'));
  assert.ok(errs.some((e) => e.startsWith('spec.forbiddenSysctls[1]: Invalid value: "Bad Sysctl": must have at most 253 characters and match regex')), errs.join('\n'));
  assert.ok(errs.some((e) => e.startsWith("spec.allowedFlexVolumes: Invalid value: ") && e.endsWith("volumes does not include 'flexVolume' or '*', so no flex volumes are allowed")), errs.join('\n'));
});

test('kind: the table row (kubectl get psp columns)', () => {
  const t = podSecurityPolicyDefinition.tableColumns!;
  assert.equal(t.columns.map((c) => c.name), ['Name', 'Priv', 'Caps', 'SELinux', 'RunAsUser', 'FsGroup', 'SupGroup', 'ReadOnlyRootFs', 'Volumes']);
  assert.equal(t.cells(restricted(), 0), ['restricted', 'false', '', 'RunAsAny', 'MustRunAsNonRoot', 'MustRunAs', 'MustRunAs', false, 'configMap,emptyDir,projected,secret,downwardAPI,persistentVolumeClaim']);
  assert.equal(t.cells(privileged(), 0).slice(0, 3), ['privileged', 'true', '*']);
});

// ---- strategies ---------------------------------------------------------------------------------

test('runAsUser: MustRunAs defaults to the first min and checks ranges; MustRunAsNonRoot; no ranges is unusable', () => {
  const must = userStrategy({ rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }, { min: 5000, max: 5000 }] });
  assert.is(must.generate(), 1000);
  assert.equal(must.validate('s', undefined, 5000), []);
  assert.equal(messages(must.validate('s', undefined, 3000)), ['s.runAsUser: Invalid value: 3000: must be in the ranges: [{1000 2000} {5000 5000}]']);
  assert.equal(messages(must.validate('s', undefined, undefined)), ['s.runAsUser: Required value']);
  const nonRoot = userStrategy({ rule: 'MustRunAsNonRoot' });
  assert.is(nonRoot.generate(), undefined);
  assert.equal(messages(nonRoot.validate('s', undefined, undefined)), ['s.runAsNonRoot: Required value: must be true']);
  assert.equal(messages(nonRoot.validate('s', false, 10)), ['s.runAsNonRoot: Invalid value: false: must be true']);
  assert.equal(messages(nonRoot.validate('s', true, 0)), ['s.runAsUser: Invalid value: 0: running with the root UID is forbidden']);
  assert.equal(nonRoot.validate('s', true, undefined), []);
  assert.throws(() => userStrategy({ rule: 'MustRunAs' }), (e: unknown) => e instanceof StrategyError);
});

test('groups: MustRunAs requires a group in range, MayRunAs only checks, RunAsAny and absent allow all', () => {
  const must = groupStrategy({ rule: 'MustRunAs', ranges: [{ min: 1, max: 10 }] }, 'FSGroup');
  assert.equal(must.generate(), [1]);
  assert.equal(messages(must.validate('f', undefined)), ['f: Invalid value: []int64(nil): unable to validate empty groups against required ranges']);
  assert.equal(messages(must.validate('f', [0, 5])), ['f: Invalid value: []int64{0, 5}: group 0 must be in the ranges: [{1 10}]']);
  const may = groupStrategy({ rule: 'MayRunAs', ranges: [{ min: 1, max: 10 }] }, 'FSGroup');
  assert.is(may.generate(), undefined);
  assert.equal(may.validate('f', undefined), []);
  assert.is(may.validate('f', [11]).length, 1);
  assert.equal(groupStrategy(undefined, 'RunAsGroup').validate('f', [0]), []);
  assert.throws(() => groupStrategy({ rule: 'MayRunAs' }, 'FSGroup'), (e: unknown) => e instanceof StrategyError);
});

test('seLinux: MustRunAs gives its options and compares levels as category sets', () => {
  const s = seLinuxStrategy({ rule: 'MustRunAs', seLinuxOptions: { level: 's0:c1,c0', type: 'spc_t' } });
  assert.equal(s.generate(), { level: 's0:c1,c0', type: 'spc_t' });
  assert.equal(s.validate('x', { level: 's0:c0,c1', type: 'spc_t' }), []);
  assert.equal(messages(s.validate('x', { level: 's1:c0', type: 'spc_t' })), ['x.level: Invalid value: "s1:c0": must be s0:c1,c0']);
  assert.equal(messages(s.validate('x', undefined)), ['x: Required value']);
});

test('capabilities: default adds unless dropped, required drops, allowed adds, the wildcard', () => {
  const c = capabilitiesStrategy({ defaultAddCapabilities: ['CHOWN', 'NET_RAW'], requiredDropCapabilities: ['SYS_ADMIN'], allowedCapabilities: ['NET_ADMIN'] });
  assert.equal(c.generate({ securityContext: { capabilities: { drop: ['NET_RAW'] } } }), { add: ['CHOWN'], drop: ['NET_RAW', 'SYS_ADMIN'] });
  assert.equal(messages(c.validate('caps', { add: ['SYS_TIME', 'NET_ADMIN'], drop: ['NET_RAW'] })), [
    'caps.add: Invalid value: "SYS_TIME": capability may not be added',
    'caps.drop: Invalid value: []core.Capability{"NET_RAW"}: SYS_ADMIN is required to be dropped but was not found',
  ]);
  assert.equal(messages(c.validate('caps', undefined)), ['caps: Invalid value: null: required capabilities are not set on the securityContext']);
  const none = capabilitiesStrategy({});
  const mine = { add: ['X'] };
  assert.is(none.generate({ securityContext: { capabilities: mine } }), mine, 'nothing to change: the container keeps its own');
  assert.is(messages(none.validate('caps', mine)).length, 1);
  assert.equal(capabilitiesStrategy({ allowedCapabilities: ['*'] }).validate('caps', { add: ['ANYTHING'] }), []);
});

test('sysctls: safe ones pass, unsafe need a pattern, forbidden win', () => {
  const podWith = (...names: string[]) => ({ spec: { securityContext: { sysctls: names.map((name) => ({ name, value: '1' })) } } });
  const spec = { allowedUnsafeSysctls: ['net.core.*'], forbiddenSysctls: ['net.core.somaxconn'] };
  assert.equal(messages(validateSysctls(spec, podWith('kernel.shm_rmid_forced', 'net.core.rmem_max', 'net.core.somaxconn', 'kernel.msgmax'))), [
    'pod.spec.securityContext.sysctls[2]: Forbidden: sysctl "net.core.somaxconn" is not allowed',
    'pod.spec.securityContext.sysctls[3]: Forbidden: unsafe sysctl "kernel.msgmax" is not allowed',
  ]);
});

test('host paths: prefixes at segment boundaries, read-only ones', () => {
  const spec = { allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }, { pathPrefix: '/data' }] };
  assert.equal(allowsHostPath(spec, '/var/log/app'), { allowed: true, readOnly: true });
  assert.equal(allowsHostPath(spec, '/data/../data/x'), { allowed: true, readOnly: false });
  assert.equal(allowsHostPath(spec, '/database'), { allowed: false, readOnly: false });
  assert.equal(allowsHostPath({}, '/etc'), { allowed: true, readOnly: false });
});

// ---- one policy applied to a pod -------------------------------------------------------------------

test('provider: the restricted policy defaults a plain pod, which then validates', () => {
  const p = podSecurityPolicyProvider(restricted());
  const plain = pod('p');
  assert.equal(p.validate(plain).length > 0, true, 'as given it does not comply');
  assert.equal(p.mutate(plain), []);
  assert.equal(plain.spec, {
    containers: [{ name: 'c', image: 'app:1', securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false } }],
    securityContext: { supplementalGroups: [1], fsGroup: 1 },
  });
  assert.equal(p.validate(plain), []);
});

test('provider: the established refusals of a privileged pod with host access', () => {
  const p = podSecurityPolicyProvider(restricted());
  const bad = pod('p', {
    hostNetwork: true, hostPID: true,
    containers: [{ name: 'c', image: 'app:1', ports: [{ containerPort: 80, hostPort: 8080 }], securityContext: { privileged: true, runAsUser: 0, capabilities: { drop: ['ALL'] }, allowPrivilegeEscalation: false } }],
    volumes: [{ name: 'h', hostPath: { path: '/etc' } }],
    securityContext: { fsGroup: 1, supplementalGroups: [1] },
  });
  assert.equal(p.mutate(bad), []);
  assert.equal(messages(p.validate(bad)), [
    'spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used',
    'spec.securityContext.hostPID: Invalid value: true: Host PID is not allowed to be used',
    'spec.volumes[0]: Invalid value: "hostPath": hostPath volumes are not allowed to be used',
    'spec.containers[0].securityContext.runAsUser: Invalid value: 0: running with the root UID is forbidden',
    'spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed',
    'spec.containers[0].hostPort: Invalid value: 8080: Host port 8080 is not allowed to be used. Allowed ports: []',
  ]);
});

test('provider: pod-level values are inherited, so a compliant pod is left exactly as it was', () => {
  const p = podSecurityPolicyProvider(psp('uid', { runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 1000 }] }, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY, volumes: ['*'] }));
  const given = pod('p', { securityContext: { runAsUser: 1000 } });
  const before = JSON.stringify(given);
  p.mutate(given);
  assert.is(JSON.stringify(given), before);
  assert.equal(p.validate(given), []);
  const bare = pod('q');
  p.mutate(bare);
  assert.equal((bare.spec as { containers: Loose[] }).containers[0]!['securityContext'], { runAsUser: 1000 });
});

test('provider: runtime class default and allowed names; read-only host paths; proc mount', () => {
  const p = podSecurityPolicyProvider(psp('rc', {
    runAsUser: ANY, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY, volumes: ['hostPath'],
    allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }],
    runtimeClass: { allowedRuntimeClassNames: ['gvisor'], defaultRuntimeClassName: 'gvisor' },
  }));
  const given = pod('p', {
    volumes: [{ name: 'logs', hostPath: { path: '/var/log/app' } }],
    containers: [{ name: 'c', image: 'app:1', volumeMounts: [{ name: 'logs', mountPath: '/l' }], securityContext: { procMount: 'Unmasked' } }],
  });
  p.mutate(given);
  assert.is((given.spec as Loose)['runtimeClassName'], 'gvisor');
  assert.equal(messages(p.validate(given)), [
    'spec.containers[0].volumeMounts[0].readOnly: Invalid value: false: must be read-only',
    'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": ProcMountType is not allowed',
  ]);
  (given.spec as Loose)['runtimeClassName'] = 'kata';
  assert.ok(messages(p.validate(given)).includes('spec.runtimeClassName: Invalid value: "kata"'));
});

test('provider: seccomp and AppArmor profiles from the policy annotations (defaults, allowed lists)', () => {
  const withProfiles = psp('profiles', { runAsUser: ANY, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY, volumes: ['*'] });
  withProfiles.metadata.annotations = {
    'seccomp.security.alpha.svc.io/defaultProfileName': 'runtime/default',
    'seccomp.security.alpha.svc.io/allowedProfileNames': 'runtime/default,docker/default',
    'apparmor.security.beta.svc.io/defaultProfileName': 'runtime/default',
    'apparmor.security.beta.svc.io/allowedProfileNames': 'runtime/default',
  };
  const p = podSecurityPolicyProvider(withProfiles);
  const plain = pod('p');
  p.mutate(plain);
  assert.equal(plain.metadata.annotations, { 'seccomp.security.alpha.svc.io/pod': 'runtime/default', 'container.apparmor.security.beta.svc.io/c': 'runtime/default' });
  assert.equal(p.validate(plain), []);
  const odd = pod('q', {}, { 'seccomp.security.alpha.svc.io/pod': 'localhost/mine', 'container.apparmor.security.beta.svc.io/c': 'unconfined' });
  p.mutate(odd);
  assert.equal(messages(p.validate(odd)), [
    'pod.metadata.annotations[seccomp.security.alpha.svc.io/pod]: Forbidden: localhost/mine is not an allowed seccomp profile. Valid values are runtime/default,docker/default',
    'pod.metadata.annotations[container.apparmor.security.beta.svc.io/c]: Forbidden: unconfined is not an allowed profile. Allowed values: "runtime/default"',
    'pod.metadata.annotations[container.seccomp.security.alpha.svc.io/c]: Forbidden: localhost/mine is not an allowed seccomp profile. Valid values are runtime/default,docker/default',
  ]);
  // A policy without seccomp annotations: a pod may not set any profile.
  const bare = podSecurityPolicyProvider(permissive('bare'));
  assert.equal(messages(bare.validate(pod('r', {}, { 'seccomp.security.alpha.svc.io/pod': 'runtime/default' }))).slice(0, 1), [
    'pod.metadata.annotations[seccomp.security.alpha.svc.io/pod]: Forbidden: seccomp may not be set',
  ]);
  assert.equal(bare.validate(pod('s')), []);
});

// ---- the plugin ---------------------------------------------------------------------------------

/** An authorizer granting `use` of named policies to named users (any namespace unless given). */
function grants(table: Record<string, string[]>, asked: AccessAttributes[] = []): Authorizer {
  return {
    mode: 'Test',
    authorize(user: UserInfo, attrs: AccessAttributes) {
      asked.push(attrs);
      const ok = attrs.kind === 'resource' && attrs.verb === 'use' && attrs.resource === 'podsecuritypolicies' && attrs.group === 'policy' && (table[user.username] ?? []).includes(attrs.name);
      return { allowed: ok, reason: '' };
    },
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true }),
  };
}

const ALICE: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const attrs = (operation: 'CREATE' | 'UPDATE', object: SvcObject, oldObject?: SvcObject, user = ALICE): AdmissionAttributes => ({
  operation, def: podDefinition, namespace: 'team', name: object.metadata.name ?? '', subresource: '', object, ...(oldObject ? { oldObject } : {}), dryRun: false, user,
});

async function refusal(p: Promise<unknown> | unknown): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error('expected a refusal');
}

test('plugin: a privileged pod is refused under the restricted policy with the aggregated message, admitted under the privileged one', async () => {
  const policies = [restricted(), privileged()];
  const plugin = podSecurityPolicyAdmission({ policies: async () => policies, authorizer: () => grants({ alice: ['restricted'], bob: ['privileged'] }) });
  const p = privilegedPod('p1');
  assert.ok(plugin.handles(attrs('CREATE', p)));
  const err = await refusal(plugin.mutate!(attrs('CREATE', p)));
  assert.is(err.code, 403);
  assert.is(err.message, 'pods "p1" is forbidden: unable to validate against any pod security policy: [spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]');
  const bob: UserInfo = { username: 'bob', groups: [] };
  const q = privilegedPod('p2');
  await plugin.mutate!(attrs('CREATE', q, undefined, bob));
  assert.is(q.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'privileged');
  await plugin.validate!(attrs('CREATE', q, undefined, bob));
  // A plain pod under the restricted policy gets its defaults and the annotation.
  const plain = pod('p3');
  await plugin.mutate!(attrs('CREATE', plain));
  assert.is(plain.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'restricted');
  assert.equal((plain.spec as Loose)['securityContext'], { supplementalGroups: [1], fsGroup: 1 });
  await plugin.validate!(attrs('CREATE', plain));
});

test('plugin: a policy that changes nothing wins over an earlier one that would default the pod', async () => {
  const policies = [restricted('a-restricted'), permissive('z-permissive')];
  const plugin = podSecurityPolicyAdmission({ policies: async () => policies, authorizer: () => grants({ alice: ['a-restricted', 'z-permissive'] }) });
  const plain = pod('p');
  await plugin.mutate!(attrs('CREATE', plain));
  assert.is(plain.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'z-permissive');
  assert.equal((plain.spec as { containers: Loose[] }).containers[0]!['securityContext'], undefined, 'not defaulted');
  // Two that both default: the first by name.
  const two = podSecurityPolicyAdmission({ policies: async () => [restricted('b'), restricted('a')], authorizer: () => grants({ alice: ['a', 'b'] }) });
  const q = pod('q');
  await two.mutate!(attrs('CREATE', q));
  assert.is(q.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'a');
});

test('plugin: the service account may use the policy instead of the user; usable policies only are asked and reported', async () => {
  const asked: AccessAttributes[] = [];
  const plugin = podSecurityPolicyAdmission({ policies: async () => [restricted(), privileged()], authorizer: () => grants({ 'system:serviceaccount:team:builder': ['privileged'] }, asked) });
  const p = privilegedPod('p');
  (p.spec as Loose)['serviceAccountName'] = 'builder';
  await plugin.mutate!(attrs('CREATE', p));
  assert.is(p.metadata.annotations?.[VALIDATED_PSP_ANNOTATION], 'privileged');
  assert.ok(asked.some((a) => a.kind === 'resource' && a.namespace === 'team' && a.name === 'privileged' && a.version === '*'));
  // Nobody may use anything: refused, with no policy's errors shown (none is the user's).
  const none = podSecurityPolicyAdmission({ policies: async () => [restricted(), privileged()], authorizer: () => grants({}) });
  assert.is((await refusal(none.mutate!(attrs('CREATE', privilegedPod('x'))))).message, 'pods "x" is forbidden: unable to validate against any pod security policy: []');
});

test('plugin: without any policy every pod is refused', async () => {
  const plugin = podSecurityPolicyAdmission({ policies: async () => [], authorizer: () => grants({}) });
  const err = await refusal(plugin.mutate!(attrs('CREATE', pod('p'))));
  assert.is(err.message, 'pods "p" is forbidden: no providers available to validate pod request');
  // A policy that cannot be applied counts as none.
  const unusable = podSecurityPolicyAdmission({ policies: async () => [psp('bad', { runAsUser: { rule: 'MustRunAs' }, seLinux: ANY, supplementalGroups: ANY, fsGroup: ANY })], authorizer: () => grants({ alice: ['bad'] }) });
  assert.match((await refusal(unusable.mutate!(attrs('CREATE', pod('p'))))).message, /no providers available/);
});

test('plugin: an update is validated without defaults; owner-reference-only updates and subresources are not its business', async () => {
  const plugin = podSecurityPolicyAdmission({ policies: async () => [restricted()], authorizer: () => grants({ alice: ['restricted'] }) });
  const created = pod('p');
  await plugin.mutate!(attrs('CREATE', created));
  const next = structuredClone(created);
  next.metadata.labels = { tier: 'web' };
  await plugin.mutate!(attrs('UPDATE', next, created));
  await plugin.validate!(attrs('UPDATE', next, created));
  // An update that would need the policy's defaults again is refused.
  const stripped = structuredClone(created);
  delete (stripped.spec as { containers: Loose[] }).containers[0]!['securityContext'];
  const err = await refusal(plugin.validate!(attrs('UPDATE', stripped, created)));
  assert.is(err.code, 403);
  // Its defaults would make it comply, but an update gets none: no policy admits it as it is (and
  // none failed outright, so the established list of errors is empty).
  assert.is(err.message, 'pods "p" is forbidden: unable to validate against any pod security policy: []');
  const owned = structuredClone(privilegedPod('q'));
  const gc = structuredClone(owned);
  gc.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }];
  assert.not.ok(plugin.handles(attrs('UPDATE', gc, owned)));
  assert.not.ok(plugin.handles({ ...attrs('UPDATE', gc, owned), subresource: 'status' }));
});

test.run();
