// The disruption controller and the pods/eviction subresource against the real API server, with the
// replicaset controller and simulated nodes: budgets count healthy pods; an eviction within the
// budget deletes the pod; one beyond it is refused with 429 and the established message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, PodDisruptionBudget } from '../../src/api/generated/kinds.js';
import { ApiError, resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { pod, replicaSet } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['disruption', 'replicaset'], nodes: 2 });
});

test.after(async () => {
  await cluster.stop();
});

const budget = (name: string, app: string, spec: { minAvailable?: number | string; maxUnavailable?: number | string }): PodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name, namespace: 'default' },
  spec: { ...spec, selector: { matchLabels: { app } } },
});
const getPdb = (name: string) => cluster.client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'default', name);
const livePods = async (app: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => !p.metadata.deletionTimestamp);
const evict = (name: string) =>
  cluster.client.subresource(resources.pods, 'default', name, 'eviction', 'POST', { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name, namespace: 'default' } });

test('minAvailable 2 of 3: status counts them; one eviction passes, the next is refused with 429', async () => {
  await cluster.client.create(resources.replicasets, 'default', replicaSet('guarded', 3, { terminationGracePeriodSeconds: 30 }));
  await cluster.client.create(resources.poddisruptionbudgets, 'default', budget('guard', 'guarded', { minAvailable: 2 }));
  await eventually(async () => (await getPdb('guard')).status?.currentHealthy === 3, 15_000, 'three healthy');
  const s = (await getPdb('guard')).status!;
  assert.equal([s.desiredHealthy, s.expectedPods, s.disruptionsAllowed, s.observedGeneration], [2, 3, 1, 1]);
  assert.is(s.conditions?.[0]?.reason, 'SufficientPods');

  const [first, second] = await livePods('guarded');
  const ok = await evict(first!.metadata.name!);
  assert.is((ok as { status?: string }).status, 'Success');
  const afterFirst = await getPdb('guard');
  assert.is(afterFirst.status?.disruptionsAllowed, 0, 'the eviction took the one disruption allowed');
  assert.ok(afterFirst.status?.disruptedPods?.[first!.metadata.name!]);
  try {
    await evict(second!.metadata.name!);
    assert.unreachable('the second eviction must be refused');
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.is(e.code, 429);
    assert.is(e.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.match(JSON.stringify(e.status.details?.causes), /The disruption budget guard needs 2 healthy pods and has [23] currently/);
  }
  assert.ok((await cluster.client.get<Pod>(resources.pods, 'default', second!.metadata.name!)).metadata.deletionTimestamp === undefined, 'the refused pod is untouched');
});

test('maxUnavailable 25% counts against the controller\'s replicas; a pod no budget covers is evicted at once', async () => {
  await cluster.client.create(resources.replicasets, 'default', replicaSet('quarter', 4));
  await cluster.client.create(resources.poddisruptionbudgets, 'default', budget('q', 'quarter', { maxUnavailable: '25%' }));
  await eventually(async () => (await getPdb('q')).status?.currentHealthy === 4, 15_000, 'four healthy');
  const s = (await getPdb('q')).status!;
  assert.equal([s.expectedPods, s.desiredHealthy, s.disruptionsAllowed], [4, 3, 1]);

  await cluster.client.create(resources.pods, 'default', pod('free', { nodeName: 'node-0' }));
  await evict('free');
  await eventually(async () => cluster.client.get(resources.pods, 'default', 'free').then((p) => !!p.metadata.deletionTimestamp, () => true), 5_000, 'free evicted');
});

test.run();
