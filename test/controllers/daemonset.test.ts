// The daemonset controller against the real API server, with the scheduler and simulated nodes:
// one pod per eligible node (node selector, taints), nodes coming and going, a rolling update of
// the template, ControllerRevisions, OnDelete, a slow watch; every state of its lifecycle chart entered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ControllerRevision, DaemonSet, Pod } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { daemonSetLifecycle } from '../../machines/lifecycles/daemonset.js';
import { node } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['daemonset'], nodes: 3 });
});

test.after(async () => {
  await cluster.stop();
});

function daemonSet(name: string, extra: Partial<NonNullable<NonNullable<DaemonSet['spec']>['template']>['spec']> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'agent:1' }], ...extra } },
    },
  };
}

const podsOf = async (app: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => !p.metadata.deletionTimestamp);
const nodesOf = async (app: string) => (await podsOf(app)).map((p) => p.spec?.nodeName ?? '').sort();
const getDs = (name: string) => cluster.client.get<DaemonSet>(resources.daemonsets, 'default', name);

test('one running pod on every node, and a status and revision saying so', async () => {
  await cluster.client.create(resources.daemonsets, 'default', daemonSet('agent'));
  await eventually(async () => (await getDs('agent')).status?.numberAvailable === 3, 15_000, '3 available');
  assert.equal(await nodesOf('agent'), ['node-0', 'node-1', 'node-2']);
  const s = (await getDs('agent')).status!;
  assert.equal([s.desiredNumberScheduled, s.currentNumberScheduled, s.numberReady, s.numberMisscheduled, s.updatedNumberScheduled], [3, 3, 3, 0, 3]);
  const revs = (await cluster.client.list<ControllerRevision>(resources.controllerrevisions, { namespace: 'default' })).items.filter((r) => r.metadata.ownerReferences?.[0]?.name === 'agent');
  assert.equal(revs.map((r) => r['revision']), [1]);
  const p = (await podsOf('agent'))[0]!;
  assert.is(p.metadata.labels?.['controller-revision-hash'], revs[0]!.metadata.labels?.['controller-revision-hash']);
  assert.ok(p.spec?.tolerations?.some((t) => t.key === 'node.svc.io/unschedulable'), 'daemon tolerations added');
});

test('a node selector follows node labels; a NoSchedule taint keeps it off unless tolerated', async () => {
  await cluster.client.create(resources.daemonsets, 'default', daemonSet('ssd-only', { nodeSelector: { disk: 'ssd' } }));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await nodesOf('ssd-only'), []);
  await cluster.client.patch(resources.nodes, '', 'node-1', 'merge', { metadata: { labels: { disk: 'ssd' } } });
  await eventually(async () => (await nodesOf('ssd-only')).join() === 'node-1', 10_000, 'a pod on node-1');
  await cluster.client.patch(resources.nodes, '', 'node-1', 'merge', { metadata: { labels: { disk: null } } });
  await eventually(async () => (await nodesOf('ssd-only')).length === 0, 10_000, 'gone with the label');

  await cluster.client.patch(resources.nodes, '', 'node-2', 'merge', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } });
  await cluster.client.create(resources.daemonsets, 'default', daemonSet('picky'));
  await cluster.client.create(resources.daemonsets, 'default', daemonSet('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] }));
  await eventually(async () => (await nodesOf('picky')).length === 2 && (await nodesOf('tolerant')).length === 3, 15_000, 'picky on 2, tolerant on 3');
  assert.not.ok((await nodesOf('picky')).includes('node-2'));
  assert.not.ok((await nodesOf('agent')).includes('node-2'), 'nor does the first DaemonSet stay there');
  await cluster.client.patch(resources.nodes, '', 'node-2', 'merge', { spec: { taints: null } });
  await eventually(async () => (await nodesOf('agent')).length === 3, 15_000, 'agent back on node-2');
});

test('a node that joins gets a pod; one that leaves takes its pod with it', async () => {
  await cluster.client.create(resources.nodes, '', node('late'));
  await eventually(async () => (await podsOf('agent')).some((p) => p.spec?.nodeName === 'late'), 15_000, 'a pod on the new node');
  await cluster.client.delete(resources.nodes, '', 'late');
  await eventually(async () => !(await podsOf('agent')).some((p) => p.spec?.nodeName === 'late'), 15_000, 'its pod gone');
});

test('a template change rolls every node to the new revision', async () => {
  await cluster.client.patch(resources.daemonsets, 'default', 'agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
  await eventually(async () => {
    const pods = await podsOf('agent');
    return pods.length === 3 && pods.every((p) => p.spec?.containers?.[0]?.image === 'agent:2' && p.status?.phase === 'Running');
  }, 30_000, 'all on agent:2');
  await eventually(async () => (await getDs('agent')).status?.updatedNumberScheduled === 3, 10_000, 'status updated');
  const revs = (await cluster.client.list<ControllerRevision>(resources.controllerrevisions, { namespace: 'default' })).items.filter((r) => r.metadata.ownerReferences?.[0]?.name === 'agent');
  assert.equal(revs.map((r) => r['revision']).sort(), [1, 2]);
});

/** Where the controller's lifecycle says the DaemonSet stands now. */
const stateOf = (name: string) => cluster.controllers.controllers.find((c) => c.name === 'daemonset')?.activity.lifecycle?.object(`default/${name}`);

test('a slow watch (its pods\' events held back) puts no second pod on a node: it waits on its expectations', async () => {
  let most = 0;
  cluster.delayControllerWatch('pods', 2_000);
  try {
    await cluster.client.create(resources.daemonsets, 'default', daemonSet('patient'));
    // Its status write queues it again at once; its three pods are not in its cache yet.
    await eventually(async () => stateOf('patient')?.state === 'waitingOnExpectations', 5_000, 'waiting on expectations');
    assert.match(stateOf('patient')?.holds ?? '', /^waiting: 3 creates and 0 deletes not yet seen/);
    most = (await podsOf('patient')).length;
  } finally {
    cluster.delayControllerWatch('pods', 0);
  }
  await eventually(async () => stateOf('patient')?.state === 'upToDate' && (await getDs('patient')).status?.numberAvailable === 3, 15_000, 'up to date');
  assert.is(most, 3);
  assert.equal(await nodesOf('patient'), ['node-0', 'node-1', 'node-2'], 'one pod per node, none twice');
});

test('OnDelete: a template change leaves the pods on their revision until each is deleted', async () => {
  const ds = daemonSet('manual');
  ds.spec!.updateStrategy = { type: 'OnDelete' };
  await cluster.client.create(resources.daemonsets, 'default', ds);
  await eventually(async () => (await getDs('manual')).status?.numberAvailable === 3, 15_000, '3 available');
  await cluster.client.patch(resources.daemonsets, 'default', 'manual', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
  await eventually(async () => stateOf('manual')?.state === 'onDeleteHeld', 10_000, 'held by OnDelete');
  assert.is(stateOf('manual')?.holds, 'OnDelete: 3 pods of 3 on an older revision until deleted');
  assert.ok((await podsOf('manual')).every((p) => p.spec?.containers?.[0]?.image === 'agent:1'), 'nothing replaced');
  const victim = (await podsOf('manual')).find((p) => p.spec?.nodeName === 'node-0')!;
  await cluster.client.delete(resources.pods, 'default', victim.metadata.name!, { gracePeriodSeconds: 0 });
  await eventually(async () => (await podsOf('manual')).some((p) => p.spec?.nodeName === 'node-0' && p.spec?.containers?.[0]?.image === 'agent:2'), 15_000, 'node-0 on agent:2');
  assert.equal((await podsOf('manual')).filter((p) => p.spec?.containers?.[0]?.image === 'agent:1').length, 2, 'the other two untouched');
});

test('every state of the DaemonSet lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, daemonSetLifecycle);
});

test.run();
