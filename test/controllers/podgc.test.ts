// The podgc controller against the real API server: pods of a node that is gone and finished pods
// over the threshold (oldest first) are removed; pods of a live node and finished pods under the
// threshold stay.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['podgc'], scheduler: false, controllerConfig: { terminatedPodGcThreshold: 2 } });
});

test.after(async () => {
  await cluster.stop();
});

const exists = (name: string) => cluster.client.get<Pod>(resources.pods, 'default', name).then(() => true, () => false);

test('pods of a node that does not exist go; pods of a live node stay', async () => {
  await cluster.client.create(resources.nodes, '', node('alive'));
  await cluster.client.create(resources.pods, 'default', pod('on-alive', { nodeName: 'alive' }));
  await cluster.client.create(resources.pods, 'default', pod('on-ghost', { nodeName: 'ghost' }));
  await eventually(async () => !(await exists('on-ghost')), 10_000, 'on-ghost collected');
  assert.ok(await exists('on-alive'));
  await cluster.client.delete(resources.nodes, '', 'alive');
  await eventually(async () => !(await exists('on-alive')), 10_000, 'its pod goes with the node');
});

test('finished pods over the threshold go, oldest first', async () => {
  await cluster.client.create(resources.nodes, '', node('worker'));
  for (const name of ['done-1', 'done-2', 'done-3', 'done-4']) {
    await cluster.client.create(resources.pods, 'default', pod(name, { nodeName: 'worker' }));
    await cluster.client.patch(resources.pods, 'default', name, 'merge', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
    await new Promise((r) => setTimeout(r, 1_100)); // distinct creation seconds
  }
  await eventually(async () => !(await exists('done-1')) && !(await exists('done-2')), 10_000, 'the two oldest collected');
  assert.ok((await exists('done-3')) && (await exists('done-4')), 'the threshold (2) kept');
});

test.run();
