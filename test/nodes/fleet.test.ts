// Simulated nodes against the real API server (in process, real time with short timings): nodes
// register Ready and renew leases; bound pods run, finish, crash-loop and are removed after their
// grace period; faults given as Node annotations show in the node's conditions and heartbeats.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import type { Event as CoreEvent, Lease, Node, NodeMetrics, Pod, PodMetrics } from '../../src/api/generated/kinds.js';
import { connectInProcess } from '../../src/cli/in-process-client.js';
import { createInformerFactory, resources, type ApiClient } from '../../src/client/index.js';
import { groupFromFlags, NodeFleet, nodeShapes, NODE_LEASE_NAMESPACE } from '../../src/nodes/index.js';
import type { ContainerStatus } from '../../src/nodes/index.js';
import { eventually } from '../helpers/client.js';
import { startInProcessApiServer, type InProcessApiServer } from '../helpers/in-process-apiserver.js';
import { pod } from '../helpers/objects.js';
import { assertStatesEntered } from '../helpers/lifecycle-coverage.js';
import { podLifecycle } from '../../machines/lifecycles/pod.js';

let api: InProcessApiServer;
let client: ApiClient;
let fleet: NodeFleet;
let closeAll: () => Promise<void>;

test.before(async () => {
  api = await startInProcessApiServer();
  const conn = connectInProcess(api.server);
  client = conn.client;
  const informers = createInformerFactory(client);
  fleet = new NodeFleet({
    client,
    informers,
    shapes: nodeShapes([groupFromFlags({ count: 3, namePrefix: 'sim' })]),
    logger: pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' }),
    timings: { imagePullMs: 60, containerStartMs: 20, backoffBaseMs: 150, backoffMaxMs: 1_000, containerStopMs: 300, leaseRenewMs: 150, statusReportMs: 400 },
  });
  fleet.start();
  closeAll = async () => {
    await fleet.stop();
    informers.stop();
    await conn.close();
    await api.stop();
  };
});

test.after(async () => {
  await closeAll();
});

const getPod = (name: string) => client.get<Pod>(resources.pods, 'default', name);
const getNode = (name: string) => client.get<Node>(resources.nodes, '', name);
const condition = (o: { status?: { conditions?: { type?: string; status?: string }[] } }, type: string) => o.status?.conditions?.find((c) => c.type === type)?.status;
const containers = (p: Pod) => (p.status?.containerStatuses ?? []) as unknown as ContainerStatus[];

async function podWhen(name: string, check: (p: Pod) => boolean, what: string, timeoutMs = 5_000): Promise<Pod> {
  let last: Pod | undefined;
  await eventually(async () => check((last = await getPod(name))), timeoutMs, `${name}: ${what}`);
  return last!;
}

test('nodes register with capacity, labels, addresses and the five conditions, Ready', async () => {
  for (const name of ['sim-0', 'sim-1', 'sim-2']) {
    await eventually(async () => condition(await getNode(name).catch(() => ({})), 'Ready') === 'True', 5_000, `${name} Ready`);
    const n = await getNode(name);
    assert.is(n.status?.capacity?.['cpu'], '4');
    assert.is(n.status?.allocatable?.['pods'], '110');
    assert.is(n.metadata.labels?.['svc.io/hostname'], name);
    assert.ok(n.metadata.labels?.['topology.svc.io/zone']);
    assert.equal(n.status?.conditions?.map((c) => c.type).sort(), ['DiskPressure', 'MemoryPressure', 'NetworkUnavailable', 'PIDPressure', 'Ready']);
    assert.equal(n.status?.addresses?.map((a) => a.type), ['InternalIP', 'Hostname']);
  }
});

test('each node renews its Lease in svc-node-lease', async () => {
  const first = await client.get<Lease>(resources.leases, NODE_LEASE_NAMESPACE, 'sim-0');
  assert.is(first.spec?.holderIdentity, 'sim-0');
  assert.is(first.spec?.leaseDurationSeconds, 40);
  assert.is(first.metadata.ownerReferences?.[0]?.kind, 'Node');
  await eventually(async () => (await client.get<Lease>(resources.leases, NODE_LEASE_NAMESPACE, 'sim-0')).spec?.renewTime !== first.spec?.renewTime, 3_000, 'a renewal');
});

test('a bound pod goes Pending then Running with conditions, IPs and container statuses', async () => {
  await client.create(resources.pods, 'default', pod('web', { nodeName: 'sim-1' }));
  const running = await podWhen('web', (p) => p.status?.phase === 'Running' && condition(p, 'Ready') === 'True', 'Running and Ready');
  const s = running.status!;
  assert.match(s.podIP ?? '', /^10\.244\.1\.\d+$/, 'from the node\'s own range');
  assert.is(s.hostIP, '172.16.0.2');
  for (const t of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']) assert.is(condition(running, t), 'True', t);
  const [c] = containers(running);
  assert.is(c!.ready, true);
  assert.is(c!.started, true);
  assert.is(c!.restartCount, 0);
  assert.ok(c!.state['running']?.['startedAt']);
  assert.match(c!.imageID, /^sim:\/\/registry\.example\/app:1@sha256:/);
});

test('run-seconds and exit-code end a pod: Never gives Succeeded on 0 and Failed otherwise', async () => {
  const short = { annotations: { 'sim.svc.io/run-seconds': '0.3' } };
  await client.create(resources.pods, 'default', pod('ok', { nodeName: 'sim-0' }, { metadata: { name: 'ok', ...short }, spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } }));
  await client.create(resources.pods, 'default', pod('bad', { nodeName: 'sim-2' }, { metadata: { name: 'bad', annotations: { ...short.annotations, 'sim.svc.io/exit-code': '1' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } }));
  const ok = await podWhen('ok', (p) => p.status?.phase === 'Succeeded', 'Succeeded');
  assert.is(containers(ok)[0]!.state['terminated']?.['reason'], 'Completed');
  assert.is(condition(ok, 'Ready'), 'False');
  const bad = await podWhen('bad', (p) => p.status?.phase === 'Failed', 'Failed');
  assert.is(containers(bad)[0]!.state['terminated']?.['exitCode'], 1);
  assert.is(containers(bad)[0]!.state['terminated']?.['reason'], 'Error');
});

test('a container that keeps exiting under restartPolicy Always crash-loops with a growing restartCount', async () => {
  await client.create(resources.pods, 'default', pod('loop', { nodeName: 'sim-0' }, { metadata: { name: 'loop', annotations: { 'sim.svc.io/run-seconds': '0.1', 'sim.svc.io/exit-code': '2' } } }));
  let sawBackoff = false;
  const p = await podWhen('loop', (x) => {
    if (containers(x)[0]?.state['waiting']?.['reason'] === 'CrashLoopBackOff') sawBackoff = true;
    return (containers(x)[0]?.restartCount ?? 0) >= 2;
  }, 'restartCount >= 2', 8_000);
  assert.is(p.status?.phase, 'Running');
  assert.ok(sawBackoff || containers(p)[0]?.lastState['terminated'], 'the back-off or the last exit is shown');
  assert.is(containers(p)[0]!.lastState['terminated']?.['exitCode'], 2);
});

test('a readiness probe delays Ready by its initialDelaySeconds', async () => {
  await client.create(resources.pods, 'default', pod('slow', { nodeName: 'sim-2' }, { spec: { containers: [{ name: 'c', image: 'app', readinessProbe: { initialDelaySeconds: 1, httpGet: { path: '/', port: 80 } } }] } }));
  const running = await podWhen('slow', (p) => p.status?.phase === 'Running', 'Running');
  assert.is(condition(running, 'Ready'), 'False', 'running but not yet ready');
  await podWhen('slow', (p) => condition(p, 'Ready') === 'True', 'Ready after the delay');
});

const eventsOf = async (name: string) => (await client.list<CoreEvent>(resources.events, { namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items;

test('a deleted pod is removed once its containers stopped (stop time), not after the whole grace period', async () => {
  await client.create(resources.pods, 'default', pod('going', { nodeName: 'sim-1' }));
  await podWhen('going', (p) => p.status?.phase === 'Running', 'Running');
  const t = Date.now();
  await client.delete(resources.pods, 'default', 'going', { gracePeriodSeconds: 30 });
  assert.ok(await getPod('going'), 'still there while its containers stop');
  await eventually(async () => (await getPod('going').then(() => false, () => true)), 5_000, 'the pod gone');
  const took = Date.now() - t;
  assert.ok(took >= 250 && took < 5_000, `removed after ${took} ms (stop time 300 ms, grace period 30 s)`);
  await eventually(async () => (await eventsOf('going')).some((e) => e.reason === 'Killing'), 3_000, 'a Killing event');
  const killing = (await eventsOf('going')).find((e) => e.reason === 'Killing')!;
  assert.is(killing.message, 'Stopping container c');
  assert.is(killing.involvedObject?.fieldPath, 'spec.containers{c}');
});

test('a container that ignores SIGTERM holds its pod for the whole grace period', async () => {
  await client.create(resources.pods, 'default', pod('stubborn', { nodeName: 'sim-1' }, { metadata: { name: 'stubborn', annotations: { 'sim.svc.io/ignore-sigterm': 'true' } } }));
  await podWhen('stubborn', (p) => p.status?.phase === 'Running', 'Running');
  const t = Date.now();
  await client.delete(resources.pods, 'default', 'stubborn', { gracePeriodSeconds: 1 });
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(await getPod('stubborn'), 'still there within its grace period');
  await eventually(async () => (await getPod('stubborn').then(() => false, () => true)), 5_000, 'the pod gone');
  assert.ok(Date.now() - t >= 900, `removed after ${Date.now() - t} ms`);
});

test('ignoring SIGTERM annotated while the pod runs counts too (the deleted pod is read, as the docs show it)', async () => {
  await client.create(resources.pods, 'default', pod('late', { nodeName: 'sim-1' }));
  await podWhen('late', (p) => p.status?.phase === 'Running', 'Running');
  await client.patch(resources.pods, 'default', 'late', 'merge', { metadata: { annotations: { 'sim.svc.io/ignore-sigterm': 'true' } } });
  const t = Date.now();
  await client.delete(resources.pods, 'default', 'late', { gracePeriodSeconds: 2 });
  await new Promise((r) => setTimeout(r, 1_200));
  assert.ok(await getPod('late'), 'still there past its stop time, within its grace period');
  await eventually(async () => (await getPod('late').then(() => false, () => true)), 6_000, 'the pod gone');
  assert.ok(Date.now() - t >= 1_900, `removed after ${Date.now() - t} ms`);
});

test('the node records the established Events of a start and of a crash loop (source kubelet + node, the container\'s fieldPath)', async () => {
  await client.create(resources.pods, 'default', pod('evented', { nodeName: 'sim-2' }));
  await podWhen('evented', (p) => p.status?.phase === 'Running', 'Running');
  await eventually(async () => (await eventsOf('evented')).some((e) => e.reason === 'Started'), 3_000, 'a Started event');
  const events = await eventsOf('evented');
  const byReason = new Map(events.map((e) => [e.reason, e]));
  assert.is(byReason.get('Pulling')?.message, 'Pulling image "registry.example/app:1"');
  assert.match(byReason.get('Pulled')?.message ?? '', /^Successfully pulled image "registry\.example\/app:1" in 0\.06s \(0\.06s including waiting\)$/);
  assert.is(byReason.get('Created')?.message, 'Created container: c');
  assert.is(byReason.get('Started')?.message, 'Started container c');
  for (const e of events) {
    assert.equal(e.source, { component: 'kubelet', host: 'sim-2' });
    assert.is(e.type, 'Normal');
    assert.is(e.involvedObject?.kind, 'Pod');
    assert.is(e.involvedObject?.fieldPath, 'spec.containers{c}');
  }
  // The image is on sim-2 now: IfNotPresent finds it there.
  await client.create(resources.pods, 'default', pod('evented2', { nodeName: 'sim-2' }, { metadata: { name: 'evented2', annotations: { 'sim.svc.io/run-seconds': '0.1', 'sim.svc.io/exit-code': '1' } } }));
  await eventually(async () => (await eventsOf('evented2')).some((e) => e.reason === 'BackOff'), 5_000, 'a BackOff event');
  const second = await eventsOf('evented2');
  assert.is(second.find((e) => e.reason === 'Pulled')?.message, 'Container image "registry.example/app:1" already present on machine');
  assert.not.ok(second.some((e) => e.reason === 'Pulling'));
  const backoff = second.find((e) => e.reason === 'BackOff')!;
  assert.is(backoff.type, 'Warning');
  assert.match(backoff.message ?? '', /^Back-off restarting failed container c in pod evented2_default\(.+\)$/);
  await client.delete(resources.pods, 'default', 'evented2', { gracePeriodSeconds: 0 });
});

test('probes: a failing readiness probe keeps a Running pod not Ready with Unhealthy Events counted up; a failing liveness probe kills and restarts the container', async () => {
  const readinessProbe = { periodSeconds: 1, httpGet: { path: '/healthz', port: 80 } };
  await client.create(resources.pods, 'default', pod('unready', { nodeName: 'sim-0' }, { metadata: { name: 'unready', annotations: { 'sim.svc.io/readiness-fails': 'true' } }, spec: { containers: [{ name: 'c', image: 'app', readinessProbe }] } }));
  const livenessProbe = { periodSeconds: 1, failureThreshold: 2, tcpSocket: { port: 8080 } };
  await client.create(resources.pods, 'default', pod('dying', { nodeName: 'sim-1' }, { metadata: { name: 'dying', annotations: { 'sim.svc.io/liveness-fails-after-seconds': '0.5' } }, spec: { containers: [{ name: 'c', image: 'app', livenessProbe }] } }));
  await eventually(async () => ((await eventsOf('unready')).find((e) => e.reason === 'Unhealthy')?.count ?? 0) >= 2, 8_000, 'Unhealthy counted twice');
  const unready = await getPod('unready');
  assert.is(unready.status?.phase, 'Running');
  assert.is(condition(unready, 'Ready'), 'False');
  assert.is(containers(unready)[0]!.ready, false);
  assert.is(containers(unready)[0]!.started, true);
  const unhealthy = (await eventsOf('unready')).filter((e) => e.reason === 'Unhealthy');
  assert.is(unhealthy.length, 1, 'repeats aggregate into one Event');
  assert.is(unhealthy[0]!.type, 'Warning');
  assert.is(unhealthy[0]!.message, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
  assert.is(unhealthy[0]!.involvedObject?.fieldPath, 'spec.containers{c}');

  const dying = await podWhen('dying', (p) => (containers(p)[0]?.restartCount ?? 0) >= 1, 'restarted after the liveness probe failed', 10_000);
  assert.is(containers(dying)[0]!.lastState['terminated']?.['exitCode'], 137);
  assert.is(containers(dying)[0]!.lastState['terminated']?.['reason'], 'Error');
  await eventually(async () => (await eventsOf('dying')).some((e) => e.reason === 'Killing'), 3_000, 'a Killing event');
  const events = await eventsOf('dying');
  assert.match(events.find((e) => e.reason === 'Unhealthy')?.message ?? '', /^Liveness probe failed: dial tcp 10\.\d+\.\d+\.\d+:8080: connect: connection refused$/);
  assert.is(events.find((e) => e.reason === 'Killing')?.message, 'Container c failed liveness probe, will be restarted');
  for (const name of ['unready', 'dying']) await client.delete(resources.pods, 'default', name, { gracePeriodSeconds: 0 });
});

test('faults as Node annotations: not-ready and pressure show in conditions; stop-heartbeats stops the lease; clearing recovers', async () => {
  await client.patch(resources.nodes, '', 'sim-2', 'merge', { metadata: { annotations: { 'sim.svc.io/faults': 'not-ready,memory-pressure' } } });
  await eventually(async () => condition(await getNode('sim-2'), 'Ready') === 'False', 3_000, 'NotReady');
  assert.is(condition(await getNode('sim-2'), 'MemoryPressure'), 'True');
  await client.patch(resources.nodes, '', 'sim-2', 'merge', { metadata: { annotations: { 'sim.svc.io/faults': 'stop-heartbeats' } } });
  await new Promise((r) => setTimeout(r, 300));
  const frozen = (await client.get<Lease>(resources.leases, NODE_LEASE_NAMESPACE, 'sim-2')).spec?.renewTime;
  await new Promise((r) => setTimeout(r, 600));
  assert.is((await client.get<Lease>(resources.leases, NODE_LEASE_NAMESPACE, 'sim-2')).spec?.renewTime, frozen, 'no renewal while heartbeats are stopped');
  assert.ok(fleet.agent('sim-2')!.getSnapshot().matches('silent'));
  await client.patch(resources.nodes, '', 'sim-2', 'merge', { metadata: { annotations: { 'sim.svc.io/faults': null } } });
  await eventually(async () => (await client.get<Lease>(resources.leases, NODE_LEASE_NAMESPACE, 'sim-2')).spec?.renewTime !== frozen, 3_000, 'renewals again');
  await eventually(async () => condition(await getNode('sim-2'), 'Ready') === 'True' && condition(await getNode('sim-2'), 'MemoryPressure') === 'False', 3_000, 'healthy again');
});

test('usage annotations are reported as PodMetrics (per container, with the pod labels) and summed in NodeMetrics; they follow changes and go with the pod', async () => {
  const usagePod = pod('busy', { nodeName: 'sim-2', labels: { app: 'busy' } }, {
    metadata: { name: 'busy', namespace: 'default', annotations: { 'sim.svc.io/cpu-usage': '300m', 'sim.svc.io/memory-usage': '300Mi' } },
    spec: {
      containers: [
        { name: 'a', image: 'x', resources: { requests: { cpu: '100m', memory: '100Mi' } } },
        { name: 'b', image: 'x', resources: { requests: { cpu: '200m', memory: '200Mi' } } },
      ],
    },
  });
  await client.create(resources.pods, 'default', usagePod);
  const podMetrics = () => client.get<PodMetrics>(resources['pods.metrics.svc.io'], 'default', 'busy');
  const nodeMetrics = () => client.get<NodeMetrics>(resources['nodes.metrics.svc.io'], '', 'sim-2');
  await eventually(async () => (await podMetrics().catch(() => undefined)) !== undefined, 5_000, 'PodMetrics of busy');
  const m = await podMetrics();
  assert.equal(m.containers, [{ name: 'a', usage: { cpu: '100m', memory: '102400Ki' } }, { name: 'b', usage: { cpu: '200m', memory: '204800Ki' } }]);
  assert.equal(m.metadata.labels, { app: 'busy' });
  assert.is(m.window, '30s');
  assert.is(m.metadata.ownerReferences?.[0]?.kind, 'Pod');
  await eventually(async () => (await nodeMetrics().catch(() => undefined))?.usage?.['cpu'] === '300m', 5_000, 'NodeMetrics of sim-2');
  // A listed pod's metrics are found by its labels, as an autoscaler selects them.
  const listed = await client.list<PodMetrics>(resources['pods.metrics.svc.io'], { namespace: 'default', labelSelector: 'app=busy' });
  assert.equal(listed.items.map((i) => i.metadata.name), ['busy']);

  await client.patch(resources.pods, 'default', 'busy', 'merge', { metadata: { annotations: { 'sim.svc.io/cpu-usage': '1500m' } } });
  await eventually(async () => (await podMetrics()).containers?.[1]?.usage?.['cpu'] === '1000m', 5_000, 'new usage');
  await eventually(async () => (await nodeMetrics()).usage?.['cpu'] === '1500m', 5_000, 'node sum follows');

  await client.delete(resources.pods, 'default', 'busy', { gracePeriodSeconds: 0 });
  await eventually(async () => (await podMetrics().catch((e: { code?: number }) => e.code)) === 404, 5_000, 'PodMetrics removed');
  await eventually(async () => (await nodeMetrics()).usage?.['cpu'] === '0m', 5_000, 'node usage back to 0');
});

test('a crashed node freezes its pods; a deleted node stops its agent', async () => {
  await client.patch(resources.nodes, '', 'sim-1', 'merge', { metadata: { annotations: { 'sim.svc.io/faults': 'crash' } } });
  await eventually(() => fleet.agent('sim-1')!.getSnapshot().matches('crashed'), 3_000, 'crashed');
  await client.create(resources.pods, 'default', pod('frozen', { nodeName: 'sim-1' }));
  await new Promise((r) => setTimeout(r, 400));
  const frozen = await getPod('frozen');
  assert.is(frozen.status?.phase, 'Pending', 'a crashed node starts nothing');
  assert.is(frozen.status?.containerStatuses, undefined, 'nor reports anything');
  await client.patch(resources.nodes, '', 'sim-1', 'merge', { metadata: { annotations: { 'sim.svc.io/faults': null } } });
  await podWhen('frozen', (p) => p.status?.phase === 'Running', 'Running after recovery');
  const agent = fleet.agent('sim-0')!;
  await client.delete(resources.nodes, '', 'sim-0');
  await eventually(() => agent.getSnapshot().status === 'done', 3_000, 'the agent stopped');
});

test('a podCIDR given after registration: pods take dual-stack IPs from it; the controller\'s NetworkUnavailable is kept in heartbeats', async () => {
  await client.patch(resources.nodes, '', 'sim-2', 'merge', { spec: { podCIDR: '10.77.5.0/24', podCIDRs: ['10.77.5.0/24', 'fd00:77:5::/64'] } });
  const fresh = await getNode('sim-2');
  const conditions = (fresh.status?.conditions ?? []).map((c) => (c.type === 'NetworkUnavailable' ? { ...c, status: 'True', reason: 'CIDRNotAvailable', message: 'set by the nodeipam controller' } : c));
  await client.updateStatus(resources.nodes, '', { ...fresh, status: { ...fresh.status, conditions } });
  await eventually(async () => {
    await client.create(resources.pods, 'default', pod(`cidr-${Date.now()}`, { nodeName: 'sim-2' }));
    const pods = (await client.list<Pod>(resources.pods, { namespace: 'default' })).items.filter((p) => p.metadata.name!.startsWith('cidr-') && p.status?.podIP);
    return pods.some((p) => p.status!.podIP!.startsWith('10.77.5.'));
  }, 5_000, 'a pod with an IP from the new podCIDR');
  const p = (await client.list<Pod>(resources.pods, { namespace: 'default' })).items.find((x) => x.status?.podIP?.startsWith('10.77.5.'))!;
  assert.is(p.status!.podIPs!.length, 2);
  assert.match(p.status!.podIPs![1]!.ip!, /^fd00:77:5::/);
  const beat = (await getNode('sim-2')).status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
  await eventually(async () => (await getNode('sim-2')).status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime !== beat, 5_000, 'a heartbeat since');
  const net = (await getNode('sim-2')).status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  assert.equal([net?.status, net?.reason], ['True', 'CIDRNotAvailable']);
});

test('the pod lifecycle: init containers first (PodInitializing), a pod whose volumes are not attached waits (ContainerCreating); each pod\'s state is tracked', async () => {
  await client.create(resources.pods, 'default', pod('init', { nodeName: 'sim-1' }, { spec: { initContainers: [{ name: 'setup', image: 'busybox' }], containers: [{ name: 'c', image: 'app' }] } }));
  await eventually(async () => fleet.podLifecycle.object('default/init')?.state === 'running.ready', 5_000, 'init: running and ready');
  assert.equal(fleet.podLifecycle.object('default/init')!.transitions.map((t) => t.to), ['waiting.creating', 'running.ready'], 'initializing, then creating, then ready');
  assert.is(fleet.podLifecycle.object('default/init')!.transitions[0]!.from, 'waiting.initializing');

  await client.create(resources.pods, 'default', pod('held', { nodeName: 'sim-1' }, { spec: { containers: [{ name: 'c', image: 'app' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'nowhere' } }] } }));
  const held = await podWhen('held', (p) => containers(p)[0]?.state['waiting']?.['reason'] === 'ContainerCreating', 'waiting in ContainerCreating');
  assert.is(held.status?.phase, 'Pending');
  assert.equal(fleet.podLifecycle.object('default/held')?.state, 'waiting.volumes');
  assert.is(fleet.podLifecycle.object('default/held')?.holds, 'waiting for its volumes to be attached and mounted');
  await client.delete(resources.pods, 'default', 'held', { gracePeriodSeconds: 0 });
  await eventually(async () => fleet.podLifecycle.object('default/held') === undefined, 5_000, 'a deleted pod is forgotten');
});

test('every state of the pod lifecycle chart was entered by the tests above, and no other', () => {
  assertStatesEntered(podLifecycle, fleet.podLifecycle.entered().keys());
});

test.run();
