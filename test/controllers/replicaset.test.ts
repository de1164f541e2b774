// The replicaset and replicationcontroller controllers against the real API server, with the
// scheduler and simulated nodes (a test cluster): pods toward replicas, replacement, adoption and
// release by selector, status with minReadySeconds; their lifecycle: slow-start creation, deletion
// by rank, waiting on expectations under a slow watch, an owner being deleted; every drawn state entered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, ReplicaSet, ReplicationController } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { replicaSetLifecycle, replicationControllerLifecycle } from '../../machines/lifecycles/replicaset.js';
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
  await cluster.client.patch(resources.replicationcontrollers, 'default', 'legacy', 'merge', { spec: { replicas: 1 } });
  await eventually(async () => (await podsOf('legacy')).length === 1, 15_000, 'legacy: scaled down to 1');
});

/** Where the controller's lifecycle says the object stands now. */
const stateOf = (controller: string, key: string) => cluster.controllers.controllers.find((c) => c.name === controller)?.activity.lifecycle?.object(key);

const owners = [
  { controller: 'replicaset', ref: resources.replicasets, make: (name: string, replicas: number) => replicaSet(name, replicas) },
  {
    controller: 'replicationcontroller',
    ref: resources.replicationcontrollers,
    make: (name: string, replicas: number): ReplicationController => ({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name, namespace: 'default' },
      spec: { replicas, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    }),
  },
] as const;

for (const o of owners) {
  test(`${o.controller}: a slow watch (its pods' events held back) makes no pod twice: it waits on its expectations`, async () => {
    const name = `${o.controller}-slow`;
    let most = 0;
    const sub = cluster.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${name}` }).subscribe({ error: () => {}, next: () => {} });
    cluster.delayControllerWatch('pods', 2_000);
    try {
      await cluster.client.create(o.ref, 'default', o.make(name, 2));
      // Its status write queues it again at once; its two pods are not in its cache yet.
      await eventually(async () => stateOf(o.controller, `default/${name}`)?.state === 'waitingOnExpectations', 5_000, 'waiting on expectations');
      assert.match(stateOf(o.controller, `default/${name}`)?.holds ?? '', /^waiting: 2 creates and 0 deletes not yet seen/);
      most = Math.max(most, (await podsOf(name)).length);
    } finally {
      cluster.delayControllerWatch('pods', 0);
      sub.unsubscribe();
    }
    await eventually(async () => stateOf(o.controller, `default/${name}`)?.state === 'satisfied', 15_000, 'satisfied once its pods are seen');
    assert.is(most, 2);
    assert.is((await podsOf(name)).length, 2, 'no pod made twice');
  });

  test(`${o.controller}: an owner being deleted (held by a finalizer) makes and removes no pod`, async () => {
    const name = `${o.controller}-held`;
    const owner = o.make(name, 1);
    owner.metadata.finalizers = ['test.svc.io/hold'];
    await cluster.client.create(o.ref, 'default', owner);
    await eventually(async () => (await podsOf(name)).length === 1 && stateOf(o.controller, `default/${name}`)?.state === 'satisfied', 15_000, 'one pod');
    await cluster.client.delete(o.ref, 'default', name, { propagationPolicy: 'Orphan' });
    const [p] = await podsOf(name);
    await cluster.client.delete(resources.pods, 'default', p!.metadata.name!, { gracePeriodSeconds: 0 });
    await eventually(async () => stateOf(o.controller, `default/${name}`)?.state === 'terminating', 10_000, 'terminating');
    await new Promise((r) => setTimeout(r, 300));
    assert.is((await podsOf(name)).length, 0, 'no replacement while it is being deleted');
    await cluster.client.patch(o.ref, 'default', name, 'merge', { metadata: { finalizers: null } });
    await eventually(async () => stateOf(o.controller, `default/${name}`) === undefined, 10_000, 'forgotten once gone');
  });
}

test('every state of the ReplicaSet and ReplicationController lifecycle charts was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, replicaSetLifecycle);
  assertLifecycleCovered(cluster.controllers.controllers, replicationControllerLifecycle);
});

test.run();
