// The default RBAC policy is enough for the components that run under their own names: with
// --authorization-mode=Node,RBAC the scheduler (system:svc-scheduler, its bootstrap role) binds a
// pod and the simulated node it lands on (system:node:<name>, the Node authorizer; the fleet's
// shared informers as system:svc-nodes) runs it. Nothing is granted by the test.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../../src/api/generated/kinds.js';
import { resources } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../../helpers/client.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ apiServerArgs: ['--authorization-mode=Node,RBAC'], nodes: 1 });
});

test.after(async () => {
  await cluster?.stop();
});

test('under Node,RBAC with only the default policy, a pod is scheduled and runs', async () => {
  await cluster.client.create(resources.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } as Pod);
  await eventually(async () => (await cluster.client.get<Pod>(resources.pods, 'default', 'web')).status?.phase === 'Running', 30_000, 'pod running');
  const pod = await cluster.client.get<Pod>(resources.pods, 'default', 'web');
  assert.is(pod.spec?.nodeName, 'node-0');
});

test.run();
