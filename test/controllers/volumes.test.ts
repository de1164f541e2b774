// The volume controllers against the real API server (its admission plugins DefaultStorageClass and
// StorageObjectInUseProtection on by default) with the scheduler and simulated nodes: dynamic
// provisioning for a StatefulSet's claims through the default class, claims kept across pod
// restarts, static binding to the smallest fitting volume, the protection finalizers holding a used
// claim, the reclaim policies Delete and Retain, and the attachdetach controller's VolumeAttachments
// with the nodes' volumesAttached and volumesInUse.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { Event, Node, PersistentVolume, PersistentVolumeClaim, Pod, StatefulSet, VolumeAttachment } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { ensureDefaultStorageClass } from '../../src/cli/svc-up-storage.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({
    controllers: ['statefulset', 'persistentvolume-binder', 'pv-protection', 'pvc-protection', 'persistentvolume-expander', 'attachdetach'],
    nodes: 2,
    controllerConfig: { pvClaimBinderSyncPeriodMs: 1_000, attachDetachReconcileSyncPeriodMs: 1_000 },
    // FailedMount after 3 s of waiting for volumes instead of the established 2 minutes.
    nodeTimings: { volumeMountTimeoutMs: 3_000 },
  });
  await ensureDefaultStorageClass(cluster.client);
});

test.after(async () => {
  await cluster.stop();
});

const getClaim = (name: string) => cluster.client.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, 'default', name);
const getVolume = (name: string) => cluster.client.get<PersistentVolume>(resources.persistentvolumes, '', name);
const exists = (p: Promise<unknown>) => p.then(() => true, () => false);

function claim(name: string, size: string, storageClassName?: string): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(storageClassName !== undefined ? { storageClassName } : {}) },
  };
}

function volume(name: string, size: string, policy = 'Retain'): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', persistentVolumeReclaimPolicy: policy, hostPath: { path: `/tmp/${name}` } },
  };
}

function pod(name: string, claimName: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'app:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } as Pod['spec'],
  };
}

test('a StatefulSet with volumeClaimTemplates: claims get the default class, provisioned volumes bound; Ready; the claims survive pod restarts', async () => {
  const set: StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: {
      replicas: 2,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'db:1' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    } as StatefulSet['spec'],
  };
  await cluster.client.create(resources.statefulsets, 'default', set);
  await eventually(async () => (await cluster.client.get<StatefulSet>(resources.statefulsets, 'default', 'db')).status?.readyReplicas === 2, 30_000, 'db ready');
  const c0 = await getClaim('data-db-0');
  assert.is(c0.spec?.storageClassName, 'standard', 'DefaultStorageClass named the class');
  assert.ok(c0.metadata.finalizers?.includes('svc.io/pvc-protection'), 'StorageObjectInUseProtection added the finalizer');
  assert.is(c0.status?.phase, 'Bound');
  assert.is(c0.spec?.volumeName, `pvc-${c0.metadata.uid}`);
  assert.is(c0.metadata.annotations?.['pv.svc.io/bind-completed'], 'yes');
  assert.is(c0.metadata.annotations?.['volume.svc.io/storage-provisioner'], 'svc.io/simulated');
  assert.is(c0.status?.capacity?.['storage'], '1Gi');
  const v0 = await getVolume(c0.spec!.volumeName!);
  assert.is(v0.status?.phase, 'Bound');
  assert.is(v0.spec?.claimRef?.uid, c0.metadata.uid);
  assert.is(v0.spec?.persistentVolumeReclaimPolicy, 'Delete');
  assert.ok(v0.metadata.finalizers?.includes('svc.io/pv-protection'));
  // A pod restart: the new db-0 mounts the same claim, still bound to the same volume.
  const before = (await cluster.client.get<Pod>(resources.pods, 'default', 'db-0')).metadata.uid;
  await cluster.client.delete(resources.pods, 'default', 'db-0', { gracePeriodSeconds: 0 });
  await eventually(async () => {
    const p = await cluster.client.get<Pod>(resources.pods, 'default', 'db-0').catch(() => undefined);
    return !!p && p.metadata.uid !== before && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  }, 30_000, 'db-0 back and ready');
  const after = await getClaim('data-db-0');
  assert.is(after.metadata.uid, c0.metadata.uid);
  assert.is(after.spec?.volumeName, c0.spec?.volumeName);
  assert.is(after.status?.phase, 'Bound');
});

test('static binding picks the smallest volume that fits; the others stay Available', async () => {
  for (const [n, s] of [['pv-big', '10Gi'], ['pv-small', '1Gi'], ['pv-fits', '2Gi']] as const) await cluster.client.create(resources.persistentvolumes, '', volume(n, s));
  await eventually(async () => (await getVolume('pv-fits')).status?.phase === 'Available', 10_000, 'pv-fits Available');
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('static', '1500Mi', 'manual'));
  await eventually(async () => (await getClaim('static')).status?.phase === 'Bound', 15_000, 'static bound');
  const c = await getClaim('static');
  assert.is(c.spec?.volumeName, 'pv-fits');
  assert.is(c.status?.capacity?.['storage'], '2Gi');
  const v = await getVolume('pv-fits');
  assert.is(v.status?.phase, 'Bound');
  assert.is(v.metadata.annotations?.['pv.svc.io/bound-by-controller'], 'yes');
  assert.is((await getVolume('pv-big')).status?.phase, 'Available');
  assert.is((await getVolume('pv-small')).status?.phase, 'Available');
  // A claim that names no volume and no class ("" is no class): nothing fits, the established event.
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('nothing', '100Gi', ''));
  await eventually(async () => {
    const evs = await cluster.client.list<Event>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=nothing' });
    return evs.items.some((e) => e.reason === 'FailedBinding' && e.message === 'no persistent volumes available for this claim and no storage class is set');
  }, 10_000, 'FailedBinding event');
  assert.is((await getClaim('nothing')).status?.phase, 'Pending');
});

test('a claim in use is held by its finalizer until its pod goes; then Retain releases the static volume', async () => {
  await cluster.client.create(resources.pods, 'default', pod('user', 'static'));
  await eventually(async () => (await cluster.client.get<Pod>(resources.pods, 'default', 'user')).status?.phase === 'Running', 20_000, 'user running');
  await cluster.client.delete(resources.persistentvolumeclaims, 'default', 'static');
  await new Promise((r) => setTimeout(r, 1_500));
  const held = await getClaim('static');
  assert.ok(held.metadata.deletionTimestamp, 'being deleted');
  assert.ok(held.metadata.finalizers?.includes('svc.io/pvc-protection'), 'but held: a running pod uses it');
  await cluster.client.delete(resources.pods, 'default', 'user', { gracePeriodSeconds: 0 });
  await eventually(async () => !(await exists(getClaim('static'))), 20_000, 'claim gone once unused');
  await eventually(async () => (await getVolume('pv-fits')).status?.phase === 'Released', 15_000, 'Retain: Released');
  assert.ok(await exists(getVolume('pv-fits')), 'Retain keeps the volume');
});

test('WaitForFirstConsumer: the scheduler picks the node, then the claim is provisioned there or bound to a local volume of that node', async () => {
  const cls = (name: string, provisioner: string) => ({ apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, volumeBindingMode: 'WaitForFirstConsumer' });
  await cluster.client.create(resources.storageclasses, '', cls('wait', 'svc.io/simulated'));
  await cluster.client.create(resources.storageclasses, '', cls('local', 'svc.io/no-provisioner'));
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('late', '1Gi', 'wait'));
  await eventually(async () => {
    const evs = await cluster.client.list<Event>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=late' });
    return evs.items.some((e) => e.reason === 'WaitForFirstConsumer');
  }, 10_000, 'WaitForFirstConsumer event');
  assert.is((await getClaim('late')).status?.phase, 'Pending', 'no consumer yet: not bound');
  await cluster.client.create(resources.pods, 'default', pod('consumer', 'late'));
  await eventually(async () => (await cluster.client.get<Pod>(resources.pods, 'default', 'consumer')).status?.phase === 'Running', 30_000, 'consumer running');
  const node = (await cluster.client.get<Pod>(resources.pods, 'default', 'consumer')).spec?.nodeName;
  const late = await getClaim('late');
  assert.is(late.metadata.annotations?.['volume.svc.io/selected-node'], node);
  assert.is(late.status?.phase, 'Bound');
  const v = await getVolume(late.spec!.volumeName!);
  assert.equal(v.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, [node], 'provisioned on the chosen node');
  // A local volume exists on one node only: the pod goes there.
  const nodes = (await cluster.client.list(resources.nodes)).items.map((n) => n.metadata.name ?? '').sort();
  const target = nodes[nodes.length - 1]!;
  const local = volume('pv-local', '1Gi');
  local.spec = { ...local.spec, storageClassName: 'local', nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/hostname', operator: 'In', values: [target] }] }] } } };
  await cluster.client.create(resources.persistentvolumes, '', local);
  await eventually(async () => (await getVolume('pv-local')).status?.phase === 'Available', 10_000, 'pv-local Available');
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('near', '1Gi', 'local'));
  await cluster.client.create(resources.pods, 'default', pod('local-user', 'near'));
  await eventually(async () => (await cluster.client.get<Pod>(resources.pods, 'default', 'local-user')).status?.phase === 'Running', 30_000, 'local-user running');
  assert.is((await cluster.client.get<Pod>(resources.pods, 'default', 'local-user')).spec?.nodeName, target);
  assert.is((await getClaim('near')).spec?.volumeName, 'pv-local');
});

test('expansion: refused unless the class allows it; then the volume and the claim capacity grow', async () => {
  await cluster.client.create(resources.storageclasses, '', { apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name: 'growable' }, provisioner: 'svc.io/simulated', allowVolumeExpansion: true });
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('grow', '1Gi', 'growable'));
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('fixed', '1Gi'));
  await eventually(async () => (await getClaim('grow')).status?.phase === 'Bound' && (await getClaim('fixed')).status?.phase === 'Bound', 15_000, 'both bound');
  const refused = await cluster.client.patch(resources.persistentvolumeclaims, 'default', 'fixed', 'merge', { spec: { resources: { requests: { storage: '2Gi' } } } }).then(() => undefined, (e: unknown) => e as { code?: number; message?: string });
  assert.is(refused?.code, 403);
  assert.match(refused?.message ?? '', /only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize/);
  await cluster.client.patch(resources.persistentvolumeclaims, 'default', 'grow', 'merge', { spec: { resources: { requests: { storage: '2Gi' } } } });
  await eventually(async () => (await getClaim('grow')).status?.capacity?.['storage'] === '2Gi', 15_000, 'claim capacity 2Gi');
  const c = await getClaim('grow');
  assert.is((await getVolume(c.spec!.volumeName!)).spec?.capacity?.['storage'], '2Gi');
  assert.not.ok(c.status?.conditions?.some((x) => x.type === 'Resizing'), 'Resizing condition removed');
  assert.is(c.status?.phase, 'Bound');
});

test('attachdetach: a pod with a provisioned claim gets an attached VolumeAttachment, listed in its node\'s volumesAttached and volumesInUse; deleting the pod detaches', async () => {
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('attached', '1Gi'));
  await eventually(async () => (await getClaim('attached')).status?.phase === 'Bound', 15_000, 'attached bound');
  await cluster.client.create(resources.pods, 'default', pod('attacher', 'attached'));
  await eventually(async () => (await cluster.client.get<Pod>(resources.pods, 'default', 'attacher')).status?.phase === 'Running', 30_000, 'attacher running');
  const nodeName = (await cluster.client.get<Pod>(resources.pods, 'default', 'attacher')).spec!.nodeName!;
  const pvName = (await getClaim('attached')).spec!.volumeName!;
  const handle = (await getVolume(pvName)).spec!.csi!['volumeHandle'] as string;
  const vaName = `csi-${createHash('sha256').update(`${handle}simulated.csi.svc.io${nodeName}`).digest('hex')}`;
  const unique = `svc.io/csi/simulated.csi.svc.io^${handle}`;
  const getVa = () => cluster.client.get<VolumeAttachment>(resources.volumeattachments, '', vaName);
  const getNode = () => cluster.client.get<Node>(resources.nodes, '', nodeName);
  await eventually(async () => (await getVa().catch(() => undefined))?.status?.attached === true, 15_000, 'VolumeAttachment attached');
  const va = await getVa();
  assert.equal(va.spec, { attacher: 'simulated.csi.svc.io', source: { persistentVolumeName: pvName }, nodeName });
  await eventually(async () => {
    const n = await getNode();
    return (n.status?.volumesAttached ?? []).some((v) => v['name'] === unique) && (n.status?.volumesInUse ?? []).includes(unique);
  }, 15_000, 'node lists the volume as attached and in use');
  assert.equal((await getNode()).status?.volumesAttached?.find((v) => v['name'] === unique), { name: unique, devicePath: '' });
  await eventually(async () => {
    const evs = await cluster.client.list<Event>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=attacher' });
    return evs.items.some((e) => e.reason === 'SuccessfulAttachVolume' && e.message === `AttachVolume.Attach succeeded for volume "${pvName}" `);
  }, 10_000, 'SuccessfulAttachVolume event on the pod');
  // The actual state is checked against the API every sync period (1 s here): an attachment deleted behind the controller's back is made again.
  const firstUid = va.metadata.uid;
  await cluster.client.delete(resources.volumeattachments, '', vaName);
  await eventually(async () => {
    const again = await getVa().catch(() => undefined);
    return !!again && again.metadata.uid !== firstUid && again.status?.attached === true;
  }, 15_000, 'VolumeAttachment attached again by the sync');
  await cluster.client.delete(resources.pods, 'default', 'attacher', { gracePeriodSeconds: 0 });
  await eventually(async () => !(await exists(getVa())), 20_000, 'VolumeAttachment deleted');
  const n = await getNode();
  assert.not.ok((n.status?.volumesAttached ?? []).some((v) => v['name'] === unique), 'no longer in volumesAttached');
  assert.not.ok((n.status?.volumesInUse ?? []).includes(unique), 'no longer in use');
});

test('a pod waits for its CSI volume to be attached: FailedAttachVolume from the attacher\'s error, FailedMount while it waits, Running once attached', async () => {
  // A volume of a driver whose attacher is external: the test plays that attacher.
  await cluster.client.create(resources.persistentvolumes, '', {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'ext-pv' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'ext', csi: { driver: 'ext.csi.example.com', volumeHandle: 'h1' } },
  } as PersistentVolume);
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('ext-claim', '1Gi', 'ext'));
  await eventually(async () => (await getClaim('ext-claim')).status?.phase === 'Bound', 15_000, 'ext-claim bound');
  await cluster.client.create(resources.pods, 'default', pod('ext-user', 'ext-claim'));
  const getPod = () => cluster.client.get<Pod>(resources.pods, 'default', 'ext-user');
  await eventually(async () => !!(await getPod()).spec?.nodeName, 15_000, 'ext-user scheduled');
  const nodeName = (await getPod()).spec!.nodeName!;
  const vaName = `csi-${createHash('sha256').update(`h1ext.csi.example.com${nodeName}`).digest('hex')}`;
  await eventually(async () => exists(cluster.client.get(resources.volumeattachments, '', vaName)), 15_000, 'VolumeAttachment created');
  const events = async (reason: string) => (await cluster.client.list<Event>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=ext-user' })).items.filter((e) => e.reason === reason);
  await cluster.client.patch(resources.volumeattachments, '', vaName, 'merge', { status: { attached: false, attachError: { message: 'rpc error: code = Internal desc = no capacity left' } } }, { subresource: 'status' });
  await eventually(async () => (await events('FailedAttachVolume')).some((e) => e.type === 'Warning' && e.message === 'AttachVolume.Attach failed for volume "ext-pv" : rpc error: code = Internal desc = no capacity left'), 15_000, 'FailedAttachVolume event');
  await eventually(async () => (await events('FailedMount')).some((e) => e.message === 'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition'), 15_000, 'FailedMount event');
  const waiting = await getPod();
  assert.is(waiting.status?.phase, 'Pending', 'nothing starts before the volume is attached');
  assert.is((waiting.status?.containerStatuses?.[0] as { state?: { waiting?: { reason?: string } } } | undefined)?.state?.waiting?.reason, 'ContainerCreating');
  // The attacher succeeds: the controller lists the volume in volumesAttached, and the pod starts.
  await cluster.client.patch(resources.volumeattachments, '', vaName, 'merge', { status: { attached: true, attachError: null } }, { subresource: 'status' });
  await eventually(async () => (await getPod()).status?.phase === 'Running', 20_000, 'ext-user running once attached');
  const node = await cluster.client.get<Node>(resources.nodes, '', nodeName);
  assert.ok((node.status?.volumesAttached ?? []).some((v) => v['name'] === 'svc.io/csi/ext.csi.example.com^h1'));
  await cluster.client.delete(resources.pods, 'default', 'ext-user', { gracePeriodSeconds: 0 });
});

test('Delete reclaim: a provisioned volume is deleted once its claim is gone', async () => {
  await cluster.client.create(resources.persistentvolumeclaims, 'default', claim('scratch', '3Gi'));
  await eventually(async () => (await getClaim('scratch')).status?.phase === 'Bound', 15_000, 'scratch bound');
  const name = (await getClaim('scratch')).spec!.volumeName!;
  assert.ok(await exists(getVolume(name)));
  await cluster.client.delete(resources.persistentvolumeclaims, 'default', 'scratch');
  await eventually(async () => !(await exists(getVolume(name))), 20_000, 'volume deleted');
});

test.run();
