// The scheduler against the real apiserver process, the test creating Node objects itself: each
// filter and each score with a case where it decides the outcome. Scores are isolated with one
// profile per score plugin (`only-<Plugin>`: every other score disabled), which pods pick by
// schedulerName; filters run with the default profile. Each test uses its own node names and
// namespace, so bindings of earlier tests do not count.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import { resources, typed } from '../../src/client/index.js';
import type { SvcObject } from '../../src/api/types.js';
import { DEFAULT_PLUGINS } from '../../src/scheduler/config/default-plugins.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';
import { startTestScheduler, type TestScheduler } from '../helpers/scheduler.js';

let server: ApiServerProcess;
let s: TestScheduler;
let n = 0;
let ns = '';
const ZONE = 'topology.svc.io/zone';

test.before(async () => {
  server = await startApiServer();
  s = await startTestScheduler(server, (c) => {
    for (const { name } of DEFAULT_PLUGINS.score) {
      c.profiles.push({ schedulerName: `only-${name}`, plugins: { score: { disabled: [{ name: '*' }], enabled: [{ name, weight: 1 }] } } });
    }
  });
});

test.after(async () => {
  await s?.stop();
  await server?.stop();
});

test.before.each(async () => {
  n++;
  ns = `t${n}`;
  await typed<SvcObject>(s.client, resources.namespaces).create('', { metadata: { name: ns } });
  // Earlier tests' nodes would take part in this one's decisions.
  for (const old of (await s.nodes.list()).items) await s.nodes.delete('', old.metadata.name!);
  await eventually(() => s.running.scheduler.nodeCount() === 0, 10_000, 'nodes gone from the scheduler cache');
});

/** Node `name` of this test (prefixed so tests do not share nodes). */
function nodeName(name: string): string {
  return `t${n}-${name}`;
}

async function addNode(name: string, opts: Parameters<typeof node>[1] = {}, extra: Partial<Node> = {}): Promise<void> {
  await s.createNode(node(nodeName(name), opts, extra));
}

async function addPod(name: string, opts: Parameters<typeof pod>[1] = {}, extra: Partial<Pod> = {}): Promise<void> {
  await s.createPod(pod(name, { namespace: ns, ...opts, ...(opts.nodeName ? { nodeName: nodeName(opts.nodeName) } : {}) }, extra));
}

/** Creates the pod and resolves with the (unprefixed) node it was bound to. */
async function placed(name: string, opts: Parameters<typeof pod>[1] = {}, extra: Partial<Pod> = {}): Promise<string> {
  await addPod(name, opts, extra);
  const bound = await s.boundNode(ns, name);
  return bound.slice(`t${n}-`.length);
}

async function pendingMessage(name: string): Promise<string> {
  let message = '';
  await eventually(() => {
    const a = s.running.scheduler.explanations.get(`${ns}/${name}`);
    message = a?.message ?? '';
    return a !== undefined && a.result !== 'Scheduled';
  }, 10_000, `an unschedulable attempt of ${name}`);
  return message;
}

// ---- filters ------------------------------------------------------------------------------

test('NodeResourcesFit: requests, init containers (largest one) and pod overhead count', async () => {
  await addNode('small', { allocatable: { cpu: '1', memory: '8Gi', pods: '110' } });
  await addNode('big', { allocatable: { cpu: '8', memory: '8Gi', pods: '110' } });
  assert.is(await placed('two-cpu', { requests: { cpu: '2' } }), 'big');
  const init = { spec: { initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '1500m' } } }] } };
  assert.is(await placed('init', { requests: { cpu: '100m' } }, init), 'big');
  // The overhead comes from a RuntimeClass (the RuntimeClass admission plugin writes it into the pod).
  await typed<SvcObject>(s.client, resources.runtimeclasses).create('', { metadata: { name: `sandboxed-${n}` }, handler: 'sandboxed', overhead: { podFixed: { cpu: '600m' } } });
  assert.is(await placed('overhead', { requests: { cpu: '500m' } }, { spec: { runtimeClassName: `sandboxed-${n}` } }), 'big');
  assert.is(await placed('fits-small', { requests: { cpu: '900m', memory: '7Gi' } }), 'small');
});

test('NodeUnschedulable and TaintToleration: cordoned and tainted nodes are refused unless tolerated', async () => {
  await addNode('cordoned', { unschedulable: true });
  await addNode('tainted', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  await addNode('plain', { allocatable: { cpu: '1', memory: '1Gi', pods: '1' } });
  assert.is(await placed('a'), 'plain');
  assert.is(await placed('tolerates', {}, { spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] } }), 'tainted');
  await addPod('stuck');
  const msg = await pendingMessage('stuck');
  assert.match(msg, /^0\/3 nodes are available: /);
  assert.match(msg, /1 node\(s\) had taint \{dedicated: gpu\}, that the pod didn't tolerate/);
  assert.match(msg, /1 node\(s\) were unschedulable/);
  assert.match(msg, /1 Too many pods/);
});

test('NodeAffinity: nodeSelector and required node affinity pick the matching node', async () => {
  await addNode('ssd', { labels: { disk: 'ssd', [ZONE]: 'a' } });
  await addNode('hdd', { labels: { disk: 'hdd', [ZONE]: 'b' } });
  assert.is(await placed('sel', {}, { spec: { nodeSelector: { disk: 'ssd' } } }), 'ssd');
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'NotIn', values: ['a'] }] }] } } };
  assert.is(await placed('aff', {}, { spec: { affinity } }), 'hdd');
  const byName = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName('ssd')] }] }] } } };
  assert.is(await placed('field', {}, { spec: { affinity: byName } }), 'ssd');
});

test('NodePorts: a host port in use sends the next pod elsewhere', async () => {
  await addNode('a');
  await addNode('b');
  const ports = { spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }] } };
  await addPod('first', { nodeName: 'a' }, ports);
  assert.is(await placed('second', {}, ports), 'b');
});

test('InterPodAffinity: required affinity, anti-affinity, and existing pods\' anti-affinity checked symmetrically', async () => {
  await addNode('a');
  await addNode('b');
  await addNode('c');
  await addPod('db', { nodeName: 'b', labels: { app: 'db' } });
  const term = (app: string) => [{ labelSelector: { matchLabels: { app } }, topologyKey: 'svc.io/hostname' }];
  assert.is(await placed('near-db', {}, { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('db') } } } }), 'b');
  // A loner on c repels every app=web pod (symmetric check of the existing pod's anti-affinity).
  await addPod('loner', { nodeName: 'c' }, { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('web') } } } });
  // And the new web pod refuses nodes with a db pod.
  assert.is(await placed('web', { labels: { app: 'web' } }, { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: term('db') } } } }), 'a');
});

test('PodTopologySpread (DoNotSchedule): maxSkew keeps zones within one pod', async () => {
  await addNode('a1', { labels: { [ZONE]: 'a' } });
  await addNode('a2', { labels: { [ZONE]: 'a' } });
  await addNode('b1', { labels: { [ZONE]: 'b' }, allocatable: { cpu: '1', memory: '1Gi', pods: '110' } });
  await addPod('x1', { nodeName: 'a1', labels: { app: 'spread' } });
  await addPod('x2', { nodeName: 'a2', labels: { app: 'spread' } });
  const tsc = { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }] } };
  assert.is(await placed('x3', { labels: { app: 'spread' } }, tsc), 'b1');
});

test('VolumeBinding (bound PV node affinity) and VolumeRestrictions (one read-write disk per node)', async () => {
  await addNode('a');
  await addNode('b');
  const client = s.client;
  await typed<SvcObject>(client, resources.persistentvolumes).create('', {
    metadata: { name: `t${n}-pv` },
    spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' }, claimRef: { namespace: ns, name: 'data' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/hostname', operator: 'In', values: [nodeName('b')] }] }] } },
    },
  });
  await typed<SvcObject>(client, resources.persistentvolumeclaims).create(ns, {
    metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `t${n}-pv` },
  });
  assert.is(await placed('uses-pv', {}, { spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } }), 'b');
  const disk = { spec: { volumes: [{ name: 'd', gcePersistentDisk: { pdName: `disk-${n}` } }] } };
  await addPod('disk-1', { nodeName: 'a' }, disk);
  assert.is(await placed('disk-2', {}, disk), 'b');
});

// ---- scores -------------------------------------------------------------------------------

const only = (plugin: string) => ({ schedulerName: `only-${plugin}` });

test('NodeResourcesLeastAllocated and NodeResourcesBalancedAllocation prefer the emptier, balanced node', async () => {
  await addNode('busy');
  await addNode('idle');
  await addPod('load', { nodeName: 'busy', requests: { cpu: '3', memory: '1Gi' } });
  assert.is(await placed('l', { ...only('NodeResourcesLeastAllocated'), requests: { cpu: '100m', memory: '100Mi' } }), 'idle');
  // busy: cpu 3.5/4 vs memory 1.5Gi/8Gi is unbalanced; idle after the pod: 0.5/4 vs 0.5Gi/8Gi is balanced.
  assert.is(await placed('b', { ...only('NodeResourcesBalancedAllocation'), requests: { cpu: '500m', memory: '512Mi' } }), 'idle');
});

test('ImageLocality prefers the node that has the image', async () => {
  await addNode('cold');
  await addNode('warm', {}, { status: { images: [{ names: ['registry.example/big:1'], sizeBytes: 800 * 1024 * 1024 }] } });
  await addNode('cold2');
  const img = { spec: { containers: [{ name: 'c', image: 'registry.example/big:1' }] } };
  assert.is(await placed('i', only('ImageLocality'), img), 'warm');
});

test('NodeAffinity (preferred) and TaintToleration (PreferNoSchedule) scores', async () => {
  await addNode('a', { labels: { tier: 'gold' } });
  await addNode('b', { taints: [{ key: 'meh', effect: 'PreferNoSchedule' }] });
  await addNode('c');
  const pref = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] } }] } };
  assert.is(await placed('p', only('NodeAffinity'), { spec: { affinity: pref } }), 'a');
  for (let i = 0; i < 4; i++) assert.is.not(await placed(`t${i}`, only('TaintToleration')), 'b');
});

test('InterPodAffinity (preferred) and PodTopologySpread (ScheduleAnyway) scores', async () => {
  await addNode('a', { labels: { [ZONE]: 'a' } });
  await addNode('b', { labels: { [ZONE]: 'b' } });
  await addPod('cache', { nodeName: 'b', labels: { app: 'cache' } });
  const pref = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: ZONE } }] } };
  assert.is(await placed('near', only('InterPodAffinity'), { spec: { affinity: pref } }), 'b');
  const tsc = { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'cache' } } }] } };
  assert.is(await placed('spread', { ...only('PodTopologySpread'), labels: { app: 'cache' } }, tsc), 'a');
});

test('DefaultPodTopologySpread spreads the pods of one Service across nodes', async () => {
  await addNode('a');
  await addNode('b');
  await typed<SvcObject>(s.client, resources.services).create(ns, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
  await addPod('w0', { nodeName: 'a', labels: { app: 'web' } });
  await addPod('w1', { nodeName: 'a', labels: { app: 'web' } });
  assert.is(await placed('w2', { ...only('DefaultPodTopologySpread'), labels: { app: 'web' } }), 'b');
});

test('an unschedulable pod gets PodScheduled=False, a FailedScheduling event, and is placed once a fitting node is added', async () => {
  await addNode('tiny', { allocatable: { cpu: '500m', memory: '1Gi', pods: '110' } });
  await addPod('big', { requests: { cpu: '2' } });
  await eventually(async () => {
    const p = await s.pods.get(ns, 'big');
    const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled');
    return c?.status === 'False' && c.reason === 'Unschedulable' && c.message === '0/1 nodes are available: 1 Insufficient cpu.';
  }, 10_000, 'PodScheduled=False');
  // The Event is recorded asynchronously, after the condition: wait for it too.
  await eventually(async () => {
    const events = await typed<SvcObject>(s.client, resources.events).list({ namespace: ns });
    return events.items.some((e) => e['reason'] === 'FailedScheduling' && e['message'] === '0/1 nodes are available: 1 Insufficient cpu.');
  }, 10_000, 'a FailedScheduling event');
  const why = s.running.scheduler.explanations.get(`${ns}/big`)!;
  assert.equal(why.filtered.map((g) => [g.plugin, g.reasons, g.nodes]), [['NodeResourcesFit', ['Insufficient cpu'], [nodeName('tiny')]]]);
  await addNode('large');
  assert.is(await s.boundNode(ns, 'big'), nodeName('large'));
});

test.run();
