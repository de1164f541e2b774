// The storage admission plugins as units: DefaultStorageClass (which class is the default, when a
// claim gets it), StorageObjectInUseProtection (the finalizers), PersistentVolumeClaimResize (when a
// request may grow), and the pvc-protection rule of what counts as use.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import type { AdmissionAttributes } from '../../src/apiserver/admission/chain.js';
import { defaultClass, defaultStorageClass } from '../../src/apiserver/admission/default-storage-class.js';
import { persistentVolumeClaimResize } from '../../src/apiserver/admission/persistent-volume-claim-resize.js';
import { storageObjectInUseProtection } from '../../src/apiserver/admission/storage-object-in-use-protection.js';
import { podUsesClaim } from '../../controllers/pvc-protection/index.js';
import type { Pod } from '../../src/api/generated/kinds.js';
import { ANONYMOUS } from '../../src/apiserver/auth/user.js';

const cls = (name: string, created: string, isDefault: boolean, extra: Record<string, unknown> = {}): SvcObject =>
  ({ apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'storageclass.svc.io/is-default-class': 'true' } : {} }, provisioner: 'p', ...extra }) as SvcObject;

function attrs(plural: string, operation: AdmissionAttributes['operation'], object: SvcObject, oldObject?: SvcObject): AdmissionAttributes {
  return { operation, def: { group: '', plural } as AdmissionAttributes['def'], namespace: 'ns', name: object.metadata.name ?? '', subresource: '', object, ...(oldObject ? { oldObject } : {}), dryRun: false, user: ANONYMOUS };
}

const claim = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): SvcObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns' }, spec, status }) as SvcObject;

test('DefaultStorageClass: the newest default wins; a claim naming a class, even "", keeps it', async () => {
  const classes = [cls('old', '2020-01-01T00:00:00Z', true), cls('new', '2021-01-01T00:00:00Z', true), cls('plain', '2022-01-01T00:00:00Z', false)];
  assert.is(defaultClass(classes)?.metadata.name, 'new');
  const plugin = defaultStorageClass(async () => classes);
  const none = claim({ accessModes: ['ReadWriteOnce'] });
  await plugin.mutate!(attrs('persistentvolumeclaims', 'CREATE', none));
  assert.is((none.spec as { storageClassName?: string }).storageClassName, 'new');
  const empty = claim({ storageClassName: '' });
  await plugin.mutate!(attrs('persistentvolumeclaims', 'CREATE', empty));
  assert.is((empty.spec as { storageClassName?: string }).storageClassName, '');
  const noDefault = claim({});
  await defaultStorageClass(async () => [classes[2]!]).mutate!(attrs('persistentvolumeclaims', 'CREATE', noDefault));
  assert.is((noDefault.spec as { storageClassName?: string }).storageClassName, undefined);
});

test('StorageObjectInUseProtection: new volumes and claims get their finalizer, once', () => {
  const p = storageObjectInUseProtection();
  const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v', finalizers: ['x'] } } as SvcObject;
  const a = attrs('persistentvolumes', 'CREATE', pv);
  assert.ok(p.handles(a));
  p.mutate!(a);
  p.mutate!(a);
  assert.equal(pv.metadata.finalizers, ['x', 'svc.io/pv-protection']);
  const c = claim({});
  p.mutate!(attrs('persistentvolumeclaims', 'CREATE', c));
  assert.equal(c.metadata.finalizers, ['svc.io/pvc-protection']);
  assert.not.ok(p.handles(attrs('persistentvolumeclaims', 'UPDATE', c)));
});

test('PersistentVolumeClaimResize: growing needs a Bound claim of a class that allows expansion', async () => {
  const classes = new Map([['grow', cls('grow', '', false, { allowVolumeExpansion: true })], ['fixed', cls('fixed', '', false)]]);
  const p = persistentVolumeClaimResize(async (n) => classes.get(n));
  const req = (s: string, className: string, phase: string) => claim({ storageClassName: className, resources: { requests: { storage: s } } }, { phase });
  await p.validate!(attrs('persistentvolumeclaims', 'UPDATE', req('2Gi', 'grow', 'Bound'), req('1Gi', 'grow', 'Bound')));
  await p.validate!(attrs('persistentvolumeclaims', 'UPDATE', req('1Gi', 'fixed', 'Bound'), req('1Gi', 'fixed', 'Bound')));
  const refused = async (a: AdmissionAttributes) => {
    try {
      await p.validate!(a);
      return '';
    } catch (e) {
      return (e as Error).message;
    }
  };
  assert.match(await refused(attrs('persistentvolumeclaims', 'UPDATE', req('2Gi', 'fixed', 'Bound'), req('1Gi', 'fixed', 'Bound'))), 'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  assert.match(await refused(attrs('persistentvolumeclaims', 'UPDATE', req('2Gi', 'grow', 'Pending'), req('1Gi', 'grow', 'Pending'))), 'Only bound persistent volume claims can be expanded');
});

test('pvc-protection: a claim is in use by a scheduled, unfinished pod that names it', () => {
  const pod = (nodeName: string | undefined, phase: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { ...(nodeName ? { nodeName } : {}), containers: [], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] }, status: { phase } }) as Pod;
  assert.ok(podUsesClaim(pod('n1', 'Running'), 'c'));
  assert.not.ok(podUsesClaim(pod(undefined, 'Pending'), 'c'), 'not scheduled: no node can be using it');
  assert.not.ok(podUsesClaim(pod('n1', 'Succeeded'), 'c'), 'finished');
  assert.not.ok(podUsesClaim(pod('n1', 'Running'), 'other'));
});

test.run();
