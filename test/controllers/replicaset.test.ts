// The replicaset and replicationcontroller controllers against the real API server, with the
// scheduler and simulated nodes (a test cluster): pods toward replicas, replacement, adoption and
// release by selector, status with minReadySeconds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, ReplicaSet, ReplicationController } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { pod, replicaSet } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['replicaset', 'replicationcontroller'], nodes: 2 });
});

test.after(async () => {
  await cluster.stop();
});

const podsOf = async (app: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => !p.metadata.deletionTimestamp);
const getRs = (name: string) => cluster.client.get<ReplicaSet>(resources.replicasets, 'default', name);

test('a ReplicaSet gets its pods, controlled by it, and a status that counts them ready and available', async () => {
  await cluster.client.create(resources.replicasets, 'default', replicaSet('web', 3));
  await eventually(async () => (await getRs('web')).status?.availableReplicas === 3, 15_000, 'web: 3 available');
  const rs = await getRs('web');
  assert.equal([rs.status?.replicas, rs.status?.readyReplicas, rs.status?.fullyLabeledReplicas, rs.status?.observedGeneration], [3, 3, 3, 1]);
  const pods = await podsOf('web');
  assert.is(pods.length, 3);
  for (const p of pods) {
    assert.ok(p.metadata.name?.startsWith('web-'), p.metadata.name);
    assert.equal(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid!, controller: true, blockOwnerDeletion: true }]);
    assert.is(p.status?.phase, 'Running');
  }
});

test('scaling up and down; a deleted pod is replaced', async () => {
  await cluster.client.patch(resources.replicasets, 'default', 'web', 'merge', { spec: { replicas: 5 } });
  await eventually(async () => (await getRs('web')).status?.availableReplicas === 5, 15_000, 'web: 5 available');
  await cluster.client.patch(resources.replicasets, 'default', 'web', 'merge', { spec: { replicas: 2 } });
  await eventually(async () => (await podsOf('web')).length === 2 && (await getRs('web')).status?.replicas === 2, 15_000, 'web: 2 pods');
  const [victim] = await podsOf('web');
  await cluster.client.delete(resources.pods, 'default', victim!.metadata.name!, { gracePeriodSeconds: 0 });
  await eventually(async () => {
    const pods = await podsOf('web');
    return pods.length === 2 && !pods.some((p) => p.metadata.uid === victim!.metadata.uid);
  }, 15_000, 'a replacement');
  assert.is((await getRs('web')).status?.observedGeneration, 3);
});

test('an orphan pod matching the selector is adopted; a pod whose labels stop matching is released and replaced', async () => {
  await cluster.client.create(resources.pods, 'default', pod('stray', { labels: { app: 'adopt' } }));
  await cluster.client.create(resources.replicasets, 'default', replicaSet('adopt', 2));
  await eventually(async () => (await podsOf('adopt')).length === 2 && (await getRs('adopt')).status?.replicas === 2, 15_000, 'adopt: 2 pods');
  const stray = await cluster.client.get<Pod>(resources.pods, 'default', 'stray');
  assert.is(stray.metadata.ownerReferences?.[0]?.name, 'adopt', 'the orphan was adopted, not left beside two new pods');

  await cluster.client.patch(resources.pods, 'default', 'stray', 'merge', { metadata: { labels: { app: 'elsewhere' } } });
  await eventually(async () => !(await cluster.client.get<Pod>(resources.pods, 'default', 'stray')).metadata.ownerReferences?.length, 10_000, 'stray released');
  await eventually(async () => (await podsOf('adopt')).length === 2, 10_000, 'a replacement for the released pod');
});

test('minReadySeconds: ready pods count as available only after it', async () => {
  await cluster.client.create(resources.replicasets, 'default', replicaSet('slow', 1, { minReadySeconds: 2 }));
  await eventually(async () => (await getRs('slow')).status?.readyReplicas === 1, 15_000, 'slow: ready');
  assert.is((await getRs('slow')).status?.availableReplicas ?? 0, 0, 'not yet available');
  await eventually(async () => (await getRs('slow')).status?.availableReplicas === 1, 5_000, 'slow: available after 2 s');
});

test('a ReplicationController (selector as a label map) keeps its replicas too', async () => {
  const rc: ReplicationController = {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'legacy', namespace: 'default' },
    spec: { replicas: 2, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  };
  await cluster.client.create(resources.replicationcontrollers, 'default', rc);
  await eventually(async () => (await cluster.client.get<ReplicationController>(resources.replicationcontrollers, 'default', 'legacy')).status?.readyReplicas === 2, 15_000, 'legacy: 2 ready');
  assert.is((await podsOf('legacy'))[0]?.metadata.ownerReferences?.[0]?.kind, 'ReplicationController');
});

test.run();
