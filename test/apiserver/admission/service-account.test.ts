// The ServiceAccount admission plugin's rules, on the plugin itself (lookups in memory).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { podDefinition, serviceAccountDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/api/status.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import { serviceAccountAdmission, SERVICE_ACCOUNT_MOUNT_PATH, tokenVolumeSource } from '../../../src/apiserver/admission/service-account.js';

type Loose = Record<string, unknown>;
const USER = { username: 'alice', groups: ['system:authenticated'] };

function setup(opts: { bound?: boolean; accounts?: SvcObject[]; secrets?: SvcObject[]; appearsAfter?: number } = {}) {
  const accounts = new Map((opts.accounts ?? [{ metadata: { name: 'default', namespace: 'ns' } }]).map((a) => [`${a.metadata.namespace}/${a.metadata.name}`, a]));
  const secrets = new Map((opts.secrets ?? []).map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]));
  let liveCalls = 0;
  const plugin = serviceAccountAdmission(
    {
      cached: async () => undefined,
      live: async (ns, name) => {
        liveCalls++;
        if (opts.appearsAfter !== undefined && liveCalls <= opts.appearsAfter) return undefined;
        return accounts.get(`${ns}/${name}`);
      },
      secret: async (ns, name) => secrets.get(`${ns}/${name}`),
    },
    { boundTokenVolume: opts.bound ?? true, retryDelayMs: () => 1 },
  );
  return { plugin, liveCalls: () => liveCalls };
}

function attrs(spec: Loose, extra: Partial<AdmissionAttributes> = {}, annotations?: Record<string, string>): AdmissionAttributes {
  return {
    operation: 'CREATE',
    def: podDefinition,
    namespace: 'ns',
    name: 'p',
    subresource: '',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec },
    dryRun: false,
    user: USER,
    ...extra,
  };
}

async function admit(plugin: ReturnType<typeof setup>['plugin'], a: AdmissionAttributes): Promise<Loose> {
  assert.ok(plugin.handles(a));
  await plugin.mutate!(a);
  await plugin.validate!(a);
  return a.object!.spec as Loose;
}

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, StatusError);
    return e as StatusError;
  }
  throw new Error('expected a refusal');
}

const podSpec = (): Loose => ({ containers: [{ name: 'c', image: 'x' }, { name: 'd', image: 'x', volumeMounts: [{ name: 'own', mountPath: SERVICE_ACCOUNT_MOUNT_PATH }] }], initContainers: [{ name: 'i', image: 'x' }], volumes: [{ name: 'own', emptyDir: {} }] });

test('defaults the account to default and mounts the projected volume in every container without a mount there', async () => {
  const { plugin } = setup();
  const spec = await admit(plugin, attrs(podSpec()));
  assert.is(spec['serviceAccountName'], 'default');
  const volumes = spec['volumes'] as Loose[];
  assert.is(volumes.length, 2);
  const v = volumes[1]!;
  assert.match(String(v['name']), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(v['projected'], tokenVolumeSource());
  const [c, d] = spec['containers'] as Loose[];
  assert.equal(c!['volumeMounts'], [{ name: v['name'], readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }]);
  assert.equal(d!['volumeMounts'], [{ name: 'own', mountPath: SERVICE_ACCOUNT_MOUNT_PATH }]);
  assert.equal((spec['initContainers'] as Loose[])[0]!['volumeMounts'], [{ name: v['name'], readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }]);
});

test('an existing kube-api-access volume is reused; no volume when every container mounts the path itself', async () => {
  const { plugin } = setup();
  const spec = await admit(plugin, attrs({ containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [] } }] }));
  assert.is((spec['volumes'] as Loose[]).length, 1);
  assert.is(((spec['containers'] as Loose[])[0]!['volumeMounts'] as Loose[])[0]!['name'], 'kube-api-access-abcde');
  const own = await admit(plugin, attrs({ containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'e', mountPath: SERVICE_ACCOUNT_MOUNT_PATH }] }], volumes: [{ name: 'e', emptyDir: {} }] }));
  assert.is((own['volumes'] as Loose[]).length, 1);
});

test('automountServiceAccountToken: the pod wins over the account, the account over the default', async () => {
  const off = { metadata: { name: 'quiet', namespace: 'ns' }, automountServiceAccountToken: false } as SvcObject;
  const { plugin } = setup({ accounts: [{ metadata: { name: 'default', namespace: 'ns' } }, off] });
  const a = await admit(plugin, attrs({ serviceAccountName: 'quiet', containers: [{ name: 'c', image: 'x' }] }));
  assert.is(a['volumes'], undefined);
  const b = await admit(plugin, attrs({ serviceAccountName: 'quiet', automountServiceAccountToken: true, containers: [{ name: 'c', image: 'x' }] }));
  assert.is((b['volumes'] as Loose[]).length, 1);
  const c = await admit(plugin, attrs({ automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x' }] }));
  assert.is(c['volumes'], undefined);
});

test('gate off: the account token Secret as a secret volume; none without one', async () => {
  const account = { metadata: { name: 'default', namespace: 'ns' }, secrets: [{ name: 'other' }, { name: 'default-token-abcde' }] } as SvcObject;
  const secrets = [
    { metadata: { name: 'other', namespace: 'ns' }, type: 'Opaque' },
    { metadata: { name: 'default-token-abcde', namespace: 'ns' }, type: 'svc.io/service-account-token' },
  ] as SvcObject[];
  const { plugin } = setup({ bound: false, accounts: [account], secrets });
  const spec = await admit(plugin, attrs({ containers: [{ name: 'c', image: 'x' }] }));
  assert.equal(spec['volumes'], [{ name: 'default-token-abcde', secret: { secretName: 'default-token-abcde', defaultMode: 0o644 } }]);
  const bare = setup({ bound: false });
  const none = await admit(bare.plugin, attrs({ containers: [{ name: 'c', image: 'x' }] }));
  assert.is(none['volumes'], undefined);
  assert.is(none['serviceAccountName'], 'default');
});

test('a missing account is refused with the established message; default is retried ten times', async () => {
  const { plugin, liveCalls } = setup({ accounts: [] });
  const err = await refusal(admit(plugin, attrs({ containers: [{ name: 'c', image: 'x' }] })));
  assert.is(err.code, 403);
  assert.is(err.message, 'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found');
  assert.is(liveCalls(), 20); // ten in the mutating phase, ten in the validating one
  const late = setup({ appearsAfter: 3 });
  const spec = await admit(late.plugin, attrs({ containers: [{ name: 'c', image: 'x' }] }));
  assert.is((spec['volumes'] as Loose[]).length, 1);
  const other = setup({ accounts: [] });
  const e2 = await refusal(admit(other.plugin, attrs({ serviceAccountName: 'x', containers: [{ name: 'c', image: 'x' }] })));
  assert.is(e2.message, 'pods "p" is forbidden: error looking up service account ns/x: serviceaccount "x" not found');
  assert.is(other.liveCalls(), 2);
});

test('the deprecated serviceAccount field still names the account', async () => {
  const { plugin } = setup({ accounts: [{ metadata: { name: 'old', namespace: 'ns' } }] });
  const spec = await admit(plugin, attrs({ serviceAccount: 'old', containers: [{ name: 'c', image: 'x' }] }));
  assert.is(spec['serviceAccountName'], 'old');
});

test('image pull secrets come from the account when the pod has none', async () => {
  const account = { metadata: { name: 'default', namespace: 'ns' }, imagePullSecrets: [{ name: 'reg' }] } as SvcObject;
  const { plugin } = setup({ accounts: [account] });
  assert.equal((await admit(plugin, attrs({ containers: [{ name: 'c', image: 'x' }] })))['imagePullSecrets'], [{ name: 'reg' }]);
  assert.equal((await admit(plugin, attrs({ imagePullSecrets: [{ name: 'mine' }], containers: [{ name: 'c', image: 'x' }] })))['imagePullSecrets'], [{ name: 'mine' }]);
});

test('mirror pods are not changed and may not reference accounts, secrets or token projections', async () => {
  const { plugin } = setup();
  const mirror = { 'svc.io/config.mirror': 'x' };
  const spec = await admit(plugin, attrs({ containers: [{ name: 'c', image: 'x' }] }, {}, mirror));
  assert.is(spec['serviceAccountName'], undefined);
  assert.is(spec['volumes'], undefined);
  for (const [s, message] of [
    [{ serviceAccountName: 'default', containers: [] }, 'a mirror pod may not reference service accounts'],
    [{ containers: [{ name: 'c', image: 'x', envFrom: [{ secretRef: { name: 's' } }] }] }, 'a mirror pod may not reference secrets'],
    [{ containers: [], volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
  ] as const) {
    const err = await refusal(admit(plugin, attrs(s as unknown as Loose, {}, mirror)));
    assert.is(err.message, `pods "p" is forbidden: ${message}`);
  }
});

test('enforce-mountable-secrets limits the secrets a pod references to the account\'s', async () => {
  const account = { metadata: { name: 'default', namespace: 'ns', annotations: { 'svc.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }] } as SvcObject;
  const { plugin } = setup({ accounts: [account] });
  await admit(plugin, attrs({ automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', secret: { secretName: 'ok' } }] }));
  const err = await refusal(admit(plugin, attrs({ automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'no', key: 'k' } } }] }] })));
  assert.is(err.message, 'pods "p" is forbidden: container c with envVar E referencing secret.secretName="no" is not allowed because service account default does not reference that secret');
});

test('only pod creates are handled (not updates, subresources or other kinds)', () => {
  const { plugin } = setup();
  assert.not.ok(plugin.handles(attrs({}, { operation: 'UPDATE' })));
  assert.not.ok(plugin.handles(attrs({}, { subresource: 'status' })));
  assert.not.ok(plugin.handles(attrs({}, { def: serviceAccountDefinition })));
});

test.run();
