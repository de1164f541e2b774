// The statefulset controller against the real API server, with the scheduler and simulated nodes:
// ordered start and stop with stable names, a rolling update from the top down to a partition,
// Parallel management, claims from volumeClaimTemplates, a Failed pod made again, scale-down waiting
// for a terminating pod; every state of its lifecycle chart entered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PersistentVolumeClaim, Pod, StatefulSet } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { statefulSetLifecycle } from '../../machines/lifecycles/statefulset.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['statefulset'], nodes: 2 });
});

test.after(async () => {
  await cluster.stop();
});

function statefulSet(name: string, replicas: number, extra: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'db:1' }] } },
      ...extra,
    },
  };
}

const podsOf = async (app: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => !p.metadata.deletionTimestamp);
const getSet = (name: string) => cluster.client.get<StatefulSet>(resources.statefulsets, 'default', name);
const ready = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Watches the app's pods: when each was added, when each was first seen ready, when each was deleted. */
function track(app: string) {
  const added = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const deleting: string[] = [];
  let seq = 0;
  const sub = cluster.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` }).subscribe({
    error: () => {},
    next: (ev) => {
      const name = ev.object.metadata.name ?? '';
      seq++;
      if (ev.type === 'ADDED' && !added.has(name)) added.set(name, seq);
      if (ready(ev.object) && !readyAt.has(name)) readyAt.set(name, seq);
      if ((ev.object.metadata.deletionTimestamp || ev.type === 'DELETED') && !deleting.includes(name)) deleting.push(name);
    },
  });
  return { added, readyAt, deleting, stop: () => sub.unsubscribe() };
}

test('OrderedReady: web-0, web-1, web-2, each created once the one before is ready; stable hostnames', async () => {
  const t = track('web');
  try {
    await cluster.client.create(resources.statefulsets, 'default', statefulSet('web', 3));
    await eventually(async () => (await getSet('web')).status?.readyReplicas === 3, 20_000, '3 ready');
  } finally {
    t.stop();
  }
  assert.equal([...t.added.keys()].sort(), ['web-0', 'web-1', 'web-2']);
  assert.ok(t.added.get('web-1')! > t.readyAt.get('web-0')!, 'web-1 after web-0 was ready');
  assert.ok(t.added.get('web-2')! > t.readyAt.get('web-1')!, 'web-2 after web-1 was ready');
  const p = (await podsOf('web')).find((x) => x.metadata.name === 'web-1')!;
  assert.equal([p.spec?.hostname, p.spec?.subdomain, p.metadata.labels?.['statefulset.svc.io/pod-name']], ['web-1', 'web', 'web-1']);
  const s = (await getSet('web')).status!;
  assert.ok(s.currentRevision && s.currentRevision === s.updateRevision);
});

test('a rolling update goes from the top down to the partition; lowering it finishes the update', async () => {
  await cluster.client.patch(resources.statefulsets, 'default', 'web', 'merge', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: 'c', image: 'db:2' }] } } } });
  const image = async (name: string) => (await podsOf('web')).find((p) => p.metadata.name === name)?.spec?.containers?.[0]?.image;
  const t = track('web');
  try {
    // The status follows the pods in a later write: wait for it to count both updated pods too.
    await eventually(async () => {
      const status = (await getSet('web')).status;
      return (await image('web-1')) === 'db:2' && (await image('web-2')) === 'db:2' && status?.readyReplicas === 3 && status.updatedReplicas === 2;
    }, 20_000, 'web-2 and web-1 updated');
  } finally {
    t.stop();
  }
  assert.is(await image('web-0'), 'db:1', 'below the partition: unchanged');
  assert.equal(t.deleting.slice(0, 2), ['web-2', 'web-1'], 'the highest ordinal first');
  const mid = (await getSet('web')).status!;
  assert.is(mid.updatedReplicas, 2);
  assert.ok(mid.currentRevision !== mid.updateRevision);

  await cluster.client.patch(resources.statefulsets, 'default', 'web', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
  await eventually(async () => (await image('web-0')) === 'db:2' && (await getSet('web')).status?.currentRevision === (await getSet('web')).status?.updateRevision, 20_000, 'web-0 updated, revision current');
});

test('scale down removes the highest ordinal first, one at a time', async () => {
  const t = track('web');
  try {
    await cluster.client.patch(resources.statefulsets, 'default', 'web', 'merge', { spec: { replicas: 1 } });
    await eventually(async () => (await podsOf('web')).map((p) => p.metadata.name).join() === 'web-0', 20_000, 'only web-0 left');
  } finally {
    t.stop();
  }
  assert.equal(t.deleting, ['web-2', 'web-1']);
});

test('Parallel: every pod at once', async () => {
  const t = track('fast');
  try {
    await cluster.client.create(resources.statefulsets, 'default', statefulSet('fast', 3, { podManagementPolicy: 'Parallel' }));
    await eventually(async () => (await getSet('fast')).status?.readyReplicas === 3, 20_000, '3 ready');
  } finally {
    t.stop();
  }
  const firstReady = Math.min(...t.readyAt.values());
  assert.ok([...t.added.values()].every((seq) => seq < firstReady), 'all three created before any was ready');
});

test('volumeClaimTemplates: a claim per ordinal, created before its pod, mounted by it, kept after scale-down', async () => {
  const set = statefulSet('db', 1, {
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] as NonNullable<StatefulSet['spec']>['volumeClaimTemplates'],
  });
  await cluster.client.create(resources.statefulsets, 'default', set);
  await eventually(async () => cluster.client.get(resources.persistentvolumeclaims, 'default', 'data-db-0').then(() => true, () => false), 10_000, 'claim data-db-0');
  const claim = await cluster.client.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, 'default', 'data-db-0');
  assert.is(claim.metadata.labels?.['app'], 'db');
  await eventually(async () => (await podsOf('db')).length === 1, 10_000, 'db-0 created');
  const pod = (await podsOf('db'))[0]!;
  assert.ok(pod.spec?.volumes?.some((v) => v.name === 'data' && (v as { persistentVolumeClaim?: { claimName?: string } }).persistentVolumeClaim?.claimName === 'data-db-0'));
  await cluster.client.patch(resources.statefulsets, 'default', 'db', 'merge', { spec: { replicas: 0 } });
  await eventually(async () => (await podsOf('db')).length === 0, 10_000, 'db-0 gone');
  assert.ok(await cluster.client.get(resources.persistentvolumeclaims, 'default', 'data-db-0').then(() => true, () => false), 'the claim stays');
});

/** Where the controller's lifecycle says the set stands now. */
const stateOf = (name: string) => cluster.controllers.controllers.find((c) => c.name === 'statefulset')?.activity.lifecycle?.object(`default/${name}`);

test('a Failed pod is deleted and made again under its name; scale-down waits for the terminating pod before the next', async () => {
  const set = statefulSet('term', 2);
  set.spec!.template!.spec!.terminationGracePeriodSeconds = 2;
  set.spec!.template!.metadata!.annotations = { 'sim.svc.io/stop-seconds': '1' };
  await cluster.client.create(resources.statefulsets, 'default', set);
  await eventually(async () => (await getSet('term')).status?.readyReplicas === 2 && stateOf('term')?.state === 'upToDate', 20_000, 'term: 2 ready');
  const failed = await cluster.client.get<Pod>(resources.pods, 'default', 'term-1');
  await cluster.client.updateStatus(resources.pods, 'default', { ...failed, status: { ...failed.status, phase: 'Failed' } });
  await eventually(async () => {
    const p = (await podsOf('term')).find((x) => x.metadata.name === 'term-1');
    return !!p && p.metadata.uid !== failed.metadata.uid && ready(p);
  }, 20_000, 'term-1 made again and ready');

  const t = track('term');
  try {
    await cluster.client.patch(resources.statefulsets, 'default', 'term', 'merge', { spec: { replicas: 0 } });
    await eventually(async () => stateOf('term')?.state === 'scalingDown.waitingForTermination', 10_000, 'waiting for term-1 to terminate');
    assert.match(stateOf('term')?.holds ?? '', /1 pod above replicas 0 still terminating/);
    assert.equal(t.deleting, ['term-1'], 'term-0 waits for term-1');
    await eventually(async () => (await podsOf('term')).length === 0, 20_000, 'both gone');
  } finally {
    t.stop();
  }
  assert.equal(t.deleting, ['term-1', 'term-0']);
});

test('every state of the StatefulSet lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, statefulSetLifecycle);
});

test.run();
