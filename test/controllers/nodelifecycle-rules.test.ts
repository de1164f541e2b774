// The node lifecycle controller's rules on injected time: node health (grace periods, lease
// renewals, the Unknown conditions and their reasons), zone states and the disruption plan, the
// zones' rate-limited queues, the NoSchedule condition taints, the taint manager's toleration
// timing; the ttl controller's boundaries; the two admission plugins.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import type { Condition, Lease, Node, Pod } from '../../src/api/generated/kinds.js';
import { ZoneEvictionQueue } from '../../controllers/nodelifecycle/eviction-queue.js';
import { decideHealth, MESSAGE_NEVER_UPDATED, MESSAGE_STATUS_UNKNOWN, REASON_NEVER_UPDATED, REASON_STATUS_UNKNOWN } from '../../controllers/nodelifecycle/health.js';
import { judgePod, matchingTolerations, minTolerationMs } from '../../controllers/nodelifecycle/taint-manager.js';
import { conditionTaints, noScheduleDiff } from '../../controllers/nodelifecycle/taints.js';
import { computeZoneState, planDisruption, zoneEvictionQps, zoneKey, type ZoneState } from '../../controllers/nodelifecycle/zones.js';
import { nodeTtl, ttlStep, TTL_BOUNDARIES } from '../../controllers/ttl/index.js';
import { defaultTolerationSeconds } from '../../src/apiserver/admission/default-toleration-seconds.js';
import { taintNodesByCondition } from '../../src/apiserver/admission/taint-nodes-by-condition.js';
import type { AdmissionAttributes } from '../../src/apiserver/admission/chain.js';
import { rfc3339 } from '../../src/api/time.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1000;
const settings = { nodeMonitorGracePeriodMs: 40 * S, nodeStartupGracePeriodMs: 60 * S };

function nodeWith(conditions: Condition[] | undefined, extra: Partial<Node['metadata']> = {}): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u1', creationTimestamp: rfc3339(T0), ...extra }, spec: {}, ...(conditions ? { status: { conditions } } : {}) };
}
const ready = (status: string, heartbeat: number, transition = T0): Condition => ({ type: 'Ready', status, reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: rfc3339(heartbeat), lastTransitionTime: rfc3339(transition) });
const lease = (renew: number): Lease => ({ apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'n1', namespace: 'svc-node-lease' }, spec: { renewTime: new Date(renew).toISOString() } });

test('health: a silent node goes Unknown after the grace period, with the established reasons', () => {
  const conds = [ready('True', T0), { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: rfc3339(T0), lastTransitionTime: rfc3339(T0) }];
  const first = decideHealth(nodeWith(conds), undefined, undefined, T0 + S, settings);
  assert.not.ok(first.writeConditions, 'first sight starts the clocks');
  const within = decideHealth(nodeWith(conds), first.health, undefined, T0 + 41 * S, settings);
  assert.not.ok(within.writeConditions, 'exactly the grace period is not past it');
  const past = decideHealth(nodeWith(conds), within.health, undefined, T0 + 41 * S + 1, settings);
  assert.ok(past.writeConditions);
  const byType = Object.fromEntries(past.writeConditions!.map((c) => [c.type, c]));
  assert.is(byType['Ready']!.status, 'Unknown');
  assert.is(byType['Ready']!.reason, REASON_STATUS_UNKNOWN);
  assert.is(byType['Ready']!.message, MESSAGE_STATUS_UNKNOWN);
  assert.is(byType['Ready']!.lastHeartbeatTime, rfc3339(T0), 'the heartbeat stays the last one the node posted');
  assert.is(byType['MemoryPressure']!.status, 'Unknown');
  assert.is(byType['DiskPressure']!.reason, REASON_NEVER_UPDATED, 'a condition never posted is added');
  assert.is(byType['DiskPressure']!.message, MESSAGE_NEVER_UPDATED);
  assert.is(byType['PIDPressure']!.status, 'Unknown');
  assert.not.ok(byType['NetworkUnavailable'], 'NetworkUnavailable is not the controller’s');
  assert.is(past.observedReady.status, 'True');
  assert.is(past.currentReady!.status, 'Unknown');
  // The written status comes back: nothing more to write.
  const again = decideHealth(nodeWith(past.writeConditions), past.health, undefined, T0 + 50 * S, settings);
  assert.not.ok(again.writeConditions);
  assert.is(again.observedReady.status, 'Unknown');
});

test('health: a renewed Lease or a new heartbeat keeps the node alive', () => {
  const conds = [ready('True', T0)];
  let h = decideHealth(nodeWith(conds), undefined, lease(T0), T0, settings).health;
  for (let t = 10; t <= 120; t += 10) {
    const d = decideHealth(nodeWith(conds), h, lease(T0 + t * S), T0 + t * S, settings);
    assert.not.ok(d.writeConditions, `lease renewed at ${t}s`);
    h = d.health;
  }
  const stale = decideHealth(nodeWith(conds), h, lease(T0 + 120 * S), T0 + 161 * S, settings);
  assert.ok(stale.writeConditions, 'the lease stopped: Unknown 40 s later');
  const hb = decideHealth(nodeWith([ready('True', T0 + 150 * S)]), h, lease(T0 + 120 * S), T0 + 161 * S, settings);
  assert.not.ok(hb.writeConditions, 'a status heartbeat counts as well');
});

test('health: a node that never posted status has the startup grace period from its creation', () => {
  const n = nodeWith(undefined);
  assert.not.ok(decideHealth(n, undefined, undefined, T0 + 60 * S, settings).writeConditions);
  const d = decideHealth(n, undefined, undefined, T0 + 61 * S, settings);
  assert.is(d.gracePeriodMs, 60 * S);
  assert.is(d.writeConditions!.find((c) => c.type === 'Ready')!.reason, REASON_NEVER_UPDATED);
  assert.is(d.observedReady.status, 'Unknown');
});

const c = (status: string): Condition => ({ type: 'Ready', status });
const rates = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 50 };

test('zone state: full, partial (more than 2 and over the threshold), normal', () => {
  assert.is(computeZoneState([c('False'), c('Unknown')], 0.55).state, 'FullDisruption');
  assert.is(computeZoneState([c('False'), c('False'), c('True')], 0.55).state, 'Normal', 'two not ready are never partial');
  assert.is(computeZoneState([c('False'), c('False'), c('Unknown'), c('True')], 0.55).state, 'PartialDisruption');
  assert.is(computeZoneState([c('False'), c('False'), c('Unknown'), c('True'), c('True'), c('True')], 0.55).state, 'Normal', '3/6 < 0.55');
  assert.is(computeZoneState([undefined, c('True')], 0.55).notReady, 1, 'no Ready condition counts as not ready');
  assert.is(computeZoneState([], 0.55).state, 'Normal');
});

test('zone eviction rate: partial disruption slows large zones and stops small ones; full keeps the normal rate', () => {
  assert.is(zoneEvictionQps('Normal', 10, rates), 0.1);
  assert.is(zoneEvictionQps('PartialDisruption', 51, rates), 0.01);
  assert.is(zoneEvictionQps('PartialDisruption', 50, rates), 0, 'at or below the large-cluster threshold: 0');
  assert.is(zoneEvictionQps('FullDisruption', 10, rates), 0.1);
});

test('disruption plan: one zone down keeps evicting; every zone down stops all and lifts taints; recovery resets', () => {
  const a = 'r:\x00:a';
  const b = 'r:\x00:b';
  const up = [c('True'), c('True'), c('True')];
  const down = [c('Unknown'), c('Unknown'), c('Unknown')];
  let states = new Map<string, ZoneState>();
  let plan = planDisruption(states, new Map([[a, up], [b, up]]), 0.55, rates);
  assert.equal([...plan.states], [[a, 'Normal'], [b, 'Normal']]);
  assert.equal([...plan.rates], [[a, 0.1], [b, 0.1]]);
  states = plan.states;
  plan = planDisruption(states, new Map([[a, down], [b, up]]), 0.55, rates);
  assert.is(plan.states.get(a), 'FullDisruption');
  assert.is(plan.rates.get(a), 0.1, 'a zone that is gone while others live is evicted at the normal rate');
  assert.not.ok(plan.enterMasterDisruption);
  states = plan.states;
  plan = planDisruption(states, new Map([[a, down], [b, down]]), 0.55, rates);
  assert.ok(plan.enterMasterDisruption, 'every zone down: master disruption');
  assert.equal([...plan.rates], [[a, 0], [b, 0]]);
  states = plan.states;
  plan = planDisruption(states, new Map([[a, down], [b, down]]), 0.55, rates);
  assert.not.ok(plan.enterMasterDisruption, 'entered once');
  assert.is(plan.rates.size, 0);
  states = plan.states;
  plan = planDisruption(states, new Map([[a, down], [b, up]]), 0.55, rates);
  assert.ok(plan.exitMasterDisruption);
  assert.equal([...plan.rates], [[a, 0.1], [b, 0.1]]);
  assert.is(plan.states.get(b), 'Normal');
});

test('zone key from region and zone labels', () => {
  assert.is(zoneKey(nodeWith([], { labels: { 'topology.svc.io/region': 'r', 'topology.svc.io/zone': 'z' } })), 'r:\x00:z');
  assert.is(zoneKey(nodeWith([], { labels: { 'failure-domain.beta.svc.io/zone': 'z' } })), ':\x00:z');
  assert.is(zoneKey(nodeWith([])), '');
});

test('eviction queue: one node at once, then the rate; rate 0 takes none; a node queued once', async () => {
  const clock = new SimulatedClock();
  clock.set(T0);
  const q = new ZoneEvictionQueue(0.1, clock);
  assert.ok(q.add('a', '1'));
  assert.not.ok(q.add('a', '1'));
  q.add('b', '2');
  q.add('c', '3');
  const taken: string[] = [];
  const take = async (n: { name: string }) => (taken.push(n.name), { done: true as const });
  assert.is(await q.try(take), 10 * S, 'burst 1, then one per 10 s');
  assert.equal(taken, ['a']);
  clock.increment(9_999);
  await q.try(take);
  assert.equal(taken, ['a']);
  clock.increment(1);
  await q.try(take);
  assert.equal(taken, ['a', 'b']);
  q.swapLimiter(0);
  clock.increment(60 * S);
  assert.is(await q.try(take), undefined, 'stopped');
  assert.equal(taken, ['a', 'b']);
  q.swapLimiter(0.1);
  await q.try(take);
  assert.equal(taken, ['a', 'b', 'c'], 'a new limiter starts full');
  q.add('d', '4');
  assert.ok(q.remove('d'));
  assert.is(q.size, 0);
});

test('eviction queue: a failed attempt is tried again after its retry delay', async () => {
  const clock = new SimulatedClock();
  clock.set(T0);
  const q = new ZoneEvictionQueue(100, clock);
  q.add('a', '1');
  let calls = 0;
  const fail = async () => (calls++, { done: false as const, retryMs: 50 });
  await q.try(fail);
  assert.is(calls, 1);
  clock.increment(20);
  await q.try(fail);
  assert.is(calls, 1, 'not before its retry time');
  clock.increment(30);
  await q.try(fail);
  assert.is(calls, 2);
});

test('NoSchedule taints follow conditions and spec.unschedulable; other taints are left alone', () => {
  const n = nodeWith([c('Unknown'), { type: 'DiskPressure', status: 'True' }, { type: 'MemoryPressure', status: 'False' }]);
  n.spec = { unschedulable: true, taints: [{ key: 'node.svc.io/not-ready', effect: 'NoSchedule' }, { key: 'gpu', value: 'true', effect: 'NoSchedule' }, { key: 'node.svc.io/unreachable', effect: 'NoExecute' }] };
  assert.equal(conditionTaints(n).map((t) => t.key), ['node.svc.io/unreachable', 'node.svc.io/disk-pressure', 'node.svc.io/unschedulable']);
  const d = noScheduleDiff(n);
  assert.equal(d.add.map((t) => t.key), ['node.svc.io/unreachable', 'node.svc.io/disk-pressure', 'node.svc.io/unschedulable']);
  assert.equal(d.remove, [{ key: 'node.svc.io/not-ready', effect: 'NoSchedule' }]);
  const fresh = nodeWith([c('True')]);
  fresh.spec = { taints: [{ key: 'node.svc.io/not-ready', effect: 'NoSchedule' }] };
  assert.equal(noScheduleDiff(fresh), { add: [], remove: [{ key: 'node.svc.io/not-ready', effect: 'NoSchedule' }] }, 'Ready lifts the admission taint');
});

const unreachable = { key: 'node.svc.io/unreachable', effect: 'NoExecute' };
const notReady = { key: 'node.svc.io/not-ready', effect: 'NoExecute' };
const podWith = (tolerations: NonNullable<Pod['spec']>['tolerations']): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [], ...(tolerations ? { tolerations } : {}) } });

test('taint manager: untolerated now; tolerated for the least tolerationSeconds from when it was first scheduled; forever never', () => {
  assert.equal(judgePod(podWith(undefined), [unreachable], undefined, T0), { kind: 'deleteNow' });
  const p300 = podWith([{ key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.svc.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }]);
  const first = judgePod(p300, [unreachable], undefined, T0);
  assert.equal(first, { kind: 'wait', eviction: { createdAt: T0, fireAt: T0 + 300 * S } });
  const later = judgePod(p300, [unreachable], first.kind === 'wait' ? first.eviction : undefined, T0 + 200 * S);
  assert.equal(later, { kind: 'wait', eviction: { createdAt: T0, fireAt: T0 + 300 * S } }, 'the start is kept');
  assert.equal(judgePod(p300, [unreachable], { createdAt: T0, fireAt: T0 + 300 * S }, T0 + 300 * S), { kind: 'deleteNow' });
  assert.equal(judgePod(p300, [unreachable, notReady], undefined, T0), { kind: 'wait', eviction: { createdAt: T0, fireAt: T0 + 60 * S } }, 'the least of the used tolerations');
  const forever = podWith([{ operator: 'Exists' }]);
  assert.equal(judgePod(forever, [unreachable], undefined, T0), { kind: 'none' });
  assert.equal(judgePod(forever, [unreachable], { createdAt: T0, fireAt: T0 + S }, T0), { kind: 'cancel' });
  assert.equal(judgePod(p300, [], { createdAt: T0, fireAt: T0 + S }, T0), { kind: 'cancel' }, 'taints gone: cancelled');
  assert.equal(judgePod(podWith([{ key: 'node.svc.io/unreachable', operator: 'Exists', tolerationSeconds: 0 }]), [unreachable], undefined, T0), { kind: 'deleteNow' }, '0 s: now');
  assert.is(matchingTolerations([unreachable, { key: 'gpu', effect: 'NoExecute' }], p300.spec!.tolerations!), undefined);
  assert.is(minTolerationMs([{ key: 'a', operator: 'Exists' }]), undefined);
  assert.is(minTolerationMs([{ key: 'a', operator: 'Exists', tolerationSeconds: -5 }]), 0);
});

test('ttl: the established boundaries with their overlap', () => {
  assert.is(TTL_BOUNDARIES[ttlStep(0, 100)]!.ttlSeconds, 0);
  assert.is(TTL_BOUNDARIES[ttlStep(0, 101)]!.ttlSeconds, 15);
  assert.is(TTL_BOUNDARIES[ttlStep(1, 95)]!.ttlSeconds, 15, 'down only below the step’s bottom (90)');
  assert.is(TTL_BOUNDARIES[ttlStep(1, 89)]!.ttlSeconds, 0);
  assert.is(TTL_BOUNDARIES[ttlStep(0, 1000)]!.ttlSeconds, 30);
  assert.is(TTL_BOUNDARIES[ttlStep(0, 1001)]!.ttlSeconds, 60);
  assert.is(TTL_BOUNDARIES[ttlStep(0, 20_000)]!.ttlSeconds, 600);
  assert.is(TTL_BOUNDARIES[ttlStep(5, 0)]!.ttlSeconds, 0);
  assert.is(nodeTtl(nodeWith([], { annotations: { 'node.alpha.svc.io/ttl': '15' } })), 15);
  assert.is(nodeTtl(nodeWith([], { annotations: { 'node.alpha.svc.io/ttl': 'x' } })), undefined);
});

const attrs = (plural: string, operation: AdmissionAttributes['operation'], object: Node | Pod): AdmissionAttributes =>
  ({ operation, def: { group: '', plural } as AdmissionAttributes['def'], namespace: plural === 'pods' ? 'default' : '', name: 'x', subresource: '', object, dryRun: false, user: { username: 'u', groups: [] } });

test('DefaultTolerationSeconds adds the two NoExecute tolerations unless one already covers them', async () => {
  const plugin = defaultTolerationSeconds({ notReadySeconds: 300, unreachableSeconds: 120 });
  const p = podWith(undefined);
  const a = attrs('pods', 'CREATE', p);
  assert.ok(plugin.handles(a));
  await plugin.mutate!(a);
  assert.equal(p.spec!.tolerations, [
    { key: 'node.svc.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  ]);
  const all = podWith([{ operator: 'Exists' }]);
  await plugin.mutate!(attrs('pods', 'CREATE', all));
  assert.equal(all.spec!.tolerations, [{ operator: 'Exists' }], 'an empty key and effect tolerates both');
  const one = podWith([{ key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
  await plugin.mutate!(attrs('pods', 'CREATE', one));
  assert.is(one.spec!.tolerations!.length, 2);
  assert.not.ok(plugin.handles({ ...a, subresource: 'status' }));
});

test('TaintNodesByCondition: a new node gets the not-ready NoSchedule taint once', async () => {
  const plugin = taintNodesByCondition();
  const n = nodeWith(undefined);
  n.spec = { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] };
  await plugin.mutate!(attrs('nodes', 'CREATE', n));
  assert.equal(n.spec.taints, [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }, { key: 'node.svc.io/not-ready', effect: 'NoSchedule' }]);
  await plugin.mutate!(attrs('nodes', 'CREATE', n));
  assert.is(n.spec.taints!.length, 2);
  assert.not.ok(plugin.handles(attrs('nodes', 'UPDATE', n)), 'only at creation');
});

test.run();
