// The binder's matching rules (controllers/persistentvolume/matching.ts), the provisioners' volumes
// and refusals, and the recycler pod: pure functions, no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../src/api/generated/kinds.js';
import { claimClass, findBestMatch, isDelayBinding, volumeUnfit } from '../../src/api/volume-matching.js';
import { deleteRefusal, provisionVolume, ProvisioningError, SIMULATED_PROVISIONER, HOSTPATH_PROVISIONER } from '../../controllers/persistentvolume/provisioners.js';
import { DEFAULT_RECYCLER_SETTINGS, recyclerPod } from '../../controllers/persistentvolume/recycler.js';

function pv(name: string, size: string, extra: Partial<NonNullable<PersistentVolume['spec']>> = {}, labels: Record<string, string> = {}, phase = 'Available'): PersistentVolume {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, labels }, spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', ...extra }, status: { phase } };
}

function pvc(size: string, extra: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns', uid: 'u1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, volumeMode: 'Filesystem', ...extra } };
}

const names = (v: PersistentVolume | undefined) => v?.metadata.name;
const immediate = { delayBinding: false };

test('the smallest volume that fits wins; too small, wrong class, mode or phase never', () => {
  const vols = [pv('big', '10Gi'), pv('small', '1Gi'), pv('fits', '2Gi'), pv('fits-bigger', '3Gi'), pv('block', '2Gi', { volumeMode: 'Block' }), pv('classy', '2Gi', { storageClassName: 'fast' }), pv('bound', '2Gi', {}, {}, 'Bound'), pv('released', '2Gi', {}, {}, 'Released')];
  assert.is(names(findBestMatch(pvc('1500Mi'), vols, immediate)), 'fits');
  assert.is(names(findBestMatch(pvc('1500Mi', { storageClassName: 'fast' }), vols, immediate)), 'classy');
  assert.is(names(findBestMatch(pvc('1500Mi', { volumeMode: 'Block' }), vols, immediate)), 'block');
  assert.is(names(findBestMatch(pvc('20Gi'), vols, immediate)), undefined);
});

test('access modes: the volume must offer every mode asked; fewer modes are tried first', () => {
  const vols = [pv('rwx-rwo', '1Gi', { accessModes: ['ReadWriteOnce', 'ReadWriteMany'] }), pv('rwo', '5Gi'), pv('rox', '1Gi', { accessModes: ['ReadOnlyMany'] })];
  assert.is(names(findBestMatch(pvc('1Gi'), vols, immediate)), 'rwo', 'the single-mode set comes first although larger');
  assert.is(names(findBestMatch(pvc('1Gi', { accessModes: ['ReadWriteMany'] }), vols, immediate)), 'rwx-rwo');
  assert.is(names(findBestMatch(pvc('1Gi', { accessModes: ['ReadWriteMany', 'ReadOnlyMany'] }), vols, immediate)), undefined);
});

test('selector: only volumes with matching labels', () => {
  const vols = [pv('a', '1Gi', {}, { tier: 'gold' }), pv('b', '1Gi', {}, { tier: 'silver' })];
  assert.is(names(findBestMatch(pvc('1Gi', { selector: { matchLabels: { tier: 'silver' } } }), vols, immediate)), 'b');
  assert.is(names(findBestMatch(pvc('1Gi', { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['bronze'] }] } }), vols, immediate)), undefined);
});

test('pre-bound: a volume whose claimRef names the claim wins over a smaller free one, whatever its phase; one of another claim is skipped', () => {
  const mine = pv('mine', '5Gi', { claimRef: { namespace: 'ns', name: 'c' } }, {}, 'Pending');
  const other = pv('other', '1Gi', { claimRef: { namespace: 'ns', name: 'c', uid: 'someone-else' } });
  const free = pv('free', '1Gi');
  assert.is(names(findBestMatch(pvc('1Gi'), [free, other, mine], immediate)), 'mine');
  assert.is(names(findBestMatch(pvc('1Gi'), [other, free], immediate)), 'free');
});

test('delayed binding: the binder binds only pre-bound volumes; with a node, node affinity decides', () => {
  const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'svc.io/hostname': 'n1' } } };
  const affinity = (host: string) => ({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/hostname', operator: 'In', values: [host] }] }] } } });
  const vols = [pv('on-n2', '1Gi', affinity('n2')), pv('on-n1', '2Gi', affinity('n1'))];
  assert.is(findBestMatch(pvc('1Gi'), vols, { delayBinding: true }), undefined);
  assert.is(names(findBestMatch(pvc('1Gi'), vols, { delayBinding: true, node })), 'on-n1');
  const classes = new Map<string, StorageClass>([['wait', { apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name: 'wait' }, provisioner: 'x', volumeBindingMode: 'WaitForFirstConsumer' }]]);
  assert.ok(isDelayBinding(pvc('1Gi', { storageClassName: 'wait' }), (n) => classes.get(n)));
  assert.not.ok(isDelayBinding(pvc('1Gi'), (n) => classes.get(n)));
});

test('the beta class annotation wins over storageClassName; volumeUnfit gives the established reasons', () => {
  const c = pvc('2Gi', { storageClassName: 'a' });
  c.metadata.annotations = { 'volume.beta.svc.io/storage-class': 'b' };
  assert.is(claimClass(c), 'b');
  assert.is(volumeUnfit(pv('v', '1Gi'), pvc('2Gi')), 'requested PV is too small');
  assert.is(volumeUnfit(pv('v', '2Gi', { storageClassName: 'x' }), pvc('2Gi')), 'storageClassName does not match');
  assert.is(volumeUnfit(pv('v', '2Gi', { volumeMode: 'Block' }), pvc('2Gi')), 'incompatible volumeMode');
  assert.is(volumeUnfit(pv('v', '2Gi', { accessModes: ['ReadOnlyMany'] }), pvc('2Gi')), 'incompatible accessMode');
  assert.is(volumeUnfit(pv('v', '2Gi'), pvc('2Gi')), undefined);
});

test('provisioners: the simulated volume is pvc-<uid>, pre-bound, of the class reclaim policy, pinned to the selected node; host-path refusals', () => {
  const cls: StorageClass = { apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name: 'std' }, provisioner: SIMULATED_PROVISIONER, reclaimPolicy: 'Delete' };
  const v = provisionVolume(pvc('3Gi', { storageClassName: 'std' }), cls, 'n1', { enableHostPathProvisioner: false });
  assert.is(v.metadata.name, 'pvc-u1');
  assert.equal(v.spec?.claimRef?.uid, 'u1');
  assert.is(v.spec?.persistentVolumeReclaimPolicy, 'Delete');
  assert.is(v.spec?.capacity?.['storage'], '3Gi');
  assert.is(v.metadata.annotations?.['pv.svc.io/provisioned-by'], SIMULATED_PROVISIONER);
  assert.equal(v.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, ['n1']);
  const hp: StorageClass = { ...cls, provisioner: HOSTPATH_PROVISIONER };
  assert.throws(() => provisionVolume(pvc('1Gi'), hp, undefined, { enableHostPathProvisioner: false }), (e: unknown) => e instanceof ProvisioningError && /is disabled/.test(e.message));
  assert.throws(() => provisionVolume(pvc('1Gi', { volumeMode: 'Block' }), hp, undefined, { enableHostPathProvisioner: true }), /does not support block volume provisioning/);
  assert.match(provisionVolume(pvc('1Gi'), hp, undefined, { enableHostPathProvisioner: true }).spec?.hostPath?.path ?? '', /^\/tmp\/hostpath_pv\//);
});

test('deleters: provisioned here and /tmp host paths only; recycler pod timeouts', () => {
  assert.is(deleteRefusal(pv('a', '1Gi', { hostPath: { path: '/tmp/x' } })), undefined);
  assert.is(deleteRefusal(pv('a', '1Gi', { hostPath: { path: '/data' } })), 'host_path deleter only supports /tmp/.+ but received provided /data');
  assert.match(deleteRefusal(pv('a', '1Gi', { nfs: { server: 's', path: '/x' } })) ?? '', /no deletable volume plugin matched/);
  const pod = recyclerPod(pv('v1', '5Gi', { hostPath: { path: '/tmp/v1' } }), DEFAULT_RECYCLER_SETTINGS);
  assert.is(pod.metadata.name, 'recycler-for-v1');
  assert.is(pod.spec?.activeDeadlineSeconds, 150, '5 Gi × 30 s over the 60 s minimum');
  assert.equal((pod.spec?.volumes?.[0] as { hostPath?: { path?: string } }).hostPath?.path, '/tmp/v1');
});

test.run();
