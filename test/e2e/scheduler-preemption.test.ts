// Preemption against the real apiserver process: priorities come from PriorityClass objects (the
// Priority admission plugin writes them into the pods); a
// high-priority pod that fits nowhere evicts the right lower-priority pods (gracefully: the test
// finishes their deletion as a node agent would), gets status.nominatedNodeName and is bound
// there; a PodDisruptionBudget steers the choice to the node whose victims it does not protect;
// `preemptionPolicy: Never` waits instead (with the NonPreemptingPriority gate on).
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import type { Subscription } from 'rxjs';
import type { SvcObject } from '../../src/api/types.js';
import { resources, typed } from '../../src/client/index.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';
import { startTestScheduler, type TestScheduler } from '../helpers/scheduler.js';

let server: ApiServerProcess;
let s: TestScheduler;
let kubelet: Subscription;
const deleted: string[] = [];

test.before(async () => {
  // The gate on both sides, as established: the Priority admission plugin copies a class's
  // preemptionPolicy into its pods only with it, and the scheduler honours `Never` only with it.
  server = await startApiServer({ args: ['--feature-gates=NonPreemptingPriority=true'] });
  s = await startTestScheduler(server, undefined, { nonPreemptingPriority: true });
  const classes = typed<SvcObject>(s.client, resources.priorityclasses);
  await classes.create('', { metadata: { name: 'lowest' }, value: 5 });
  await classes.create('', { metadata: { name: 'low' }, value: 10 });
  await classes.create('', { metadata: { name: 'high' }, value: 1000 });
  await classes.create('', { metadata: { name: 'high-waits' }, value: 1000, preemptionPolicy: 'Never' });
  for (const ns of ['a', 'b', 'c']) await typed<SvcObject>(s.client, resources.namespaces).create('', { metadata: { name: ns } });
  // The node agent's part: a pod being deleted gracefully is removed at once.
  kubelet = s.pods.watch({}).subscribe((ev) => {
    const p = ev.object;
    if (ev.type !== 'MODIFIED' || !p.metadata.deletionTimestamp) return;
    deleted.push(`${p.metadata.namespace}/${p.metadata.name}`);
    void s.pods.delete(p.metadata.namespace!, p.metadata.name!, { gracePeriodSeconds: 0 }).catch(() => undefined);
  });
});

test.after(async () => {
  kubelet?.unsubscribe();
  await s?.stop();
  await server?.stop();
});

const cpu = (n: string) => ({ allocatable: { cpu: n, memory: '8Gi', pods: '110' } });

test('a high-priority pod evicts the lower-priority pods it needs, is nominated, then bound', async () => {
  await s.createNode(node('a-full', cpu('2')));
  await s.createPod(pod('low-1', { namespace: 'a', nodeName: 'a-full', requests: { cpu: '1' } }, { spec: { priorityClassName: 'low' } }));
  await s.createPod(pod('low-2', { namespace: 'a', nodeName: 'a-full', requests: { cpu: '1' } }, { spec: { priorityClassName: 'low' } }));
  await s.createPod(pod('vip', { namespace: 'a', requests: { cpu: '2' } }, { spec: { priorityClassName: 'high' } }));
  await eventually(async () => (await s.pods.get('a', 'vip')).status?.nominatedNodeName === 'a-full', 10_000, 'vip nominated to a-full');
  assert.is(await s.boundNode('a', 'vip'), 'a-full');
  assert.equal(deleted.filter((k) => k.startsWith('a/')).sort(), ['a/low-1', 'a/low-2']);
  const events = await typed<SvcObject>(s.client, resources.events).list({ namespace: 'a' });
  assert.ok(events.items.some((e) => e['reason'] === 'Preempted' && (e['involvedObject'] as { name?: string }).name === 'low-1'));
});

test('only as many victims as needed, lowest priority first', async () => {
  await s.createNode(node('b-node', cpu('3')));
  await s.createPod(pod('keep', { namespace: 'b', nodeName: 'b-node', requests: { cpu: '1' } }, { spec: { priorityClassName: 'low' } }));
  await s.createPod(pod('go', { namespace: 'b', nodeName: 'b-node', requests: { cpu: '1' } }, { spec: { priorityClassName: 'lowest' } }));
  await s.createPod(pod('filler', { namespace: 'b', nodeName: 'b-node', requests: { cpu: '1' } }, { spec: { priorityClassName: 'high' } }));
  await s.createPod(pod('vip', { namespace: 'b', requests: { cpu: '1' } }, { spec: { priorityClassName: 'high' } }));
  assert.is(await s.boundNode('b', 'vip'), 'b-node');
  assert.equal(deleted.filter((k) => k.startsWith('b/')), ['b/go']);
});

test('a PodDisruptionBudget steers preemption to the node whose victims it does not protect', async () => {
  await s.createNode(node('c-1', { ...cpu('1'), labels: { group: 'c' } }));
  await s.createNode(node('c-2', { ...cpu('1'), labels: { group: 'c' } }));
  const onC = { nodeSelector: { group: 'c' } };
  // Without the budget c-1 would win (its victim has the lower priority).
  await s.createPod(pod('protected', { namespace: 'c', nodeName: 'c-1', requests: { cpu: '1' }, labels: { app: 'protected' } }, { spec: { priorityClassName: 'lowest' } }));
  await s.createPod(pod('free', { namespace: 'c', nodeName: 'c-2', requests: { cpu: '1' } }, { spec: { priorityClassName: 'low' } }));
  const pdbs = typed<SvcObject>(s.client, resources.poddisruptionbudgets);
  const pdb = await pdbs.create('c', { metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'protected' } } } });
  // The disruption controller's part: no disruption allowed.
  await pdbs.updateStatus('c', { ...pdb, status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, observedGeneration: 1 } });
  await eventually(() => s.running.scheduler.listers.podDisruptionBudgets('c')[0]?.status?.disruptionsAllowed === 0, 5000, 'the scheduler sees the budget');
  // Waiting pods with preemptionPolicy Never do not evict anyone meanwhile.
  await s.createPod(pod('patient', { namespace: 'c', requests: { cpu: '1' } }, { spec: { priorityClassName: 'high-waits', ...onC } }));
  await eventually(async () => (await s.pods.get('c', 'patient')).status?.conditions?.some((x) => x.type === 'PodScheduled' && x.status === 'False') === true, 10_000, 'patient unschedulable');
  assert.equal(deleted.filter((k) => k.startsWith('c/')), []);
  await s.createPod(pod('vip', { namespace: 'c', requests: { cpu: '1' } }, { spec: { priorityClassName: 'high', ...onC } }));
  assert.is(await s.boundNode('c', 'vip'), 'c-2');
  assert.equal(deleted.filter((k) => k.startsWith('c/')), ['c/free']);
  assert.is((await s.pods.get('c', 'patient')).spec?.nodeName, undefined);
});

test.run();
