// The ttl-after-finished controller (feature gate TTLAfterFinished): a finished Job goes
// ttlSecondsAfterFinished later, its pods with it; without the gate the controller stays off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Job, Pod } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['job', 'ttl-after-finished', 'garbagecollector'], nodes: 1, controllerConfig: { featureGates: { TTLAfterFinished: true } } });
});

test.after(async () => {
  await cluster.stop();
});

const job = (name: string, ttl: number | undefined): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default' },
  spec: {
    ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
    template: { metadata: { annotations: { 'sim.svc.io/run-seconds': '0.1' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } },
  },
});

test('a finished Job with ttlSecondsAfterFinished: 1 is deleted about a second after it finished, with its pods; one without a TTL stays', async () => {
  await cluster.client.create(resources.jobs, 'default', job('short', 1));
  await cluster.client.create(resources.jobs, 'default', job('kept', undefined));
  let completionTime = '';
  await eventually(async () => {
    const j = await cluster.client.get<Job>(resources.jobs, 'default', 'short').catch(() => undefined);
    completionTime = j?.status?.completionTime ?? '';
    return completionTime !== '';
    // Generous: the Job's pod must be scheduled, started and finish on a simulated node first (slow on a loaded machine).
  }, 30_000, 'short: Complete');
  await eventually(async () => cluster.client.get(resources.jobs, 'default', 'short').then(() => false, () => true), 10_000, 'short: deleted');
  assert.ok(Date.now() >= Date.parse(completionTime) + 1_000, `deleted at ${new Date().toISOString()}, finished ${completionTime}: not before the TTL`);
  await eventually(async () => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'job-name=short' })).items.length === 0, 10_000, 'its pods gone');
  assert.ok(await cluster.client.get(resources.jobs, 'default', 'kept').then(() => true, () => false));
});

test('without the gate the controller is off, and says why', async () => {
  const plain = await startTestCluster({ controllers: ['ttl-after-finished'], scheduler: false });
  try {
    assert.not.ok(plain.controllers.running.includes('ttl-after-finished'));
  } finally {
    await plain.stop();
  }
});

test.run();
