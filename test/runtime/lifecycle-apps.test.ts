// The ReplicaSet, StatefulSet and DaemonSet lifecycles' decision order, on facts computed by the
// controllers' own pure rules (replicaFacts, statefulSetPlan, daemonPlan) where it matters: the
// first holding guard names the state, and `holds` says the numbers that keep the object there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DaemonSet, Pod, ReplicaSet, StatefulSet } from '../../src/api/generated/kinds.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { restingStates } from '../../src/runtime/lifecycle.js';
import { daemonSetLifecycle, replicaSetLifecycle, statefulSetLifecycle, LIFECYCLES } from '../../machines/lifecycles/index.js';
import { replicaFacts } from '../../controllers/replicaset/sync.js';
import { statefulSetPlan } from '../../controllers/statefulset/sync.js';
import { daemonPlan } from '../../controllers/daemonset/sync.js';

const rs = (replicas: number, deleting = false): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'default', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { replicas, selector: { matchLabels: { app: 'web' } } },
});
const seen = { satisfied: true, creates: 0, deletes: 0 };
const counts = { readyReplicas: 1, availableReplicas: 1 };

test('ReplicaSet: terminating, then expectations, then creating in slow-start batches, deleting by rank, satisfied', () => {
  assert.equal(evaluateLifecycle(replicaSetLifecycle, replicaFacts(rs(10), 3, counts, seen)), { state: 'creatingInBatches', holds: '3 of 10 pods: creating 7 in batches of 1, 2, 4' });
  assert.equal(evaluateLifecycle(replicaSetLifecycle, replicaFacts(rs(1), 4, counts, seen)), { state: 'deletingByRank', holds: '4 pods for 1 replicas: deleting 3 by rank' });
  assert.is(evaluateLifecycle(replicaSetLifecycle, replicaFacts(rs(1000), 0, counts, seen)).holds, '0 of 1000 pods: creating 500 in batches of 1, 2, 4, 8, 16, 32, 64, 128, 245', 'at most 500 a sync');
  const waiting = replicaFacts(rs(10), 3, counts, { satisfied: false, creates: 2, deletes: 0 });
  assert.equal(evaluateLifecycle(replicaSetLifecycle, waiting), { state: 'waitingOnExpectations', holds: 'waiting: 2 creates and 0 deletes not yet seen; 3 of 10 pods, 1 ready, 1 available' });
  assert.is(evaluateLifecycle(replicaSetLifecycle, replicaFacts(rs(10, true), 3, counts, { satisfied: false, creates: 2, deletes: 0 })).state, 'terminating');
  assert.equal(evaluateLifecycle(replicaSetLifecycle, replicaFacts(rs(1), 1, counts, seen)), { state: 'satisfied', holds: '1 of 1 pods, 1 ready, 1 available' });
  assert.equal(restingStates(replicaSetLifecycle), ['satisfied']);
});

const set = (replicas: number, extra: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: { replicas, selector: { matchLabels: { app: 'db' } }, ...extra } as StatefulSet['spec'],
});
const readyCondition = [{ type: 'Ready', status: 'True' }];
function spod(ordinal: number, o: { rev?: string; ready?: boolean; phase?: string; deleting?: boolean } = {}): Pod {
  const ready = o.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `db-${ordinal}`, namespace: 'default', labels: { 'controller-revision-hash': o.rev ?? 'new' }, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    status: { phase: o.phase ?? 'Running', conditions: ready ? readyCondition : [] },
  } as Pod;
}
const byOrdinal = (...pods: Pod[]) => new Map(pods.map((p) => [Number(p.metadata.name!.split('-')[1]), p]));
const ss = (s: StatefulSet, ...pods: Pod[]) => evaluateLifecycle(statefulSetLifecycle, statefulSetPlan(s, byOrdinal(...pods), 'new').facts);

test('StatefulSet: OrderedReady stops at the lowest ordinal that is missing, Failed or not ready, before any scale-down or update', () => {
  assert.equal(ss(set(3), spod(0), spod(2, { rev: 'old' })), { state: 'creating.inOrder', holds: 'creating db-1: 2 of 3 Running and Ready' });
  assert.equal(ss(set(3), spod(0), spod(1, { phase: 'Failed', ready: false }), spod(2)), { state: 'replacingFailed', holds: 'db-1 Failed: deleting it to create it again' });
  assert.equal(ss(set(2), spod(0, { ready: false }), spod(1), spod(2)), { state: 'waitingForReady', holds: 'waiting: db-0 not Running and Ready; 1 of 2 ready' });
  assert.equal(ss(set(1), spod(0), spod(1), spod(2)), { state: 'scalingDown.deleting', holds: '2 pods above replicas 1: deleting db-2' });
  assert.is(ss(set(1), spod(0), spod(1), spod(2, { deleting: true })).state, 'scalingDown.waitingForTermination');
  const rolling = set(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
  assert.equal(ss(rolling, spod(0, { rev: 'old' }), spod(1, { rev: 'old' }), spod(2, { rev: 'old' })), { state: 'updating', holds: '2 pods at ordinals >= 1 on an older revision: replacing db-2' });
  assert.equal(ss(rolling, spod(0, { rev: 'old' }), spod(1), spod(2)), { state: 'partitioned', holds: 'partition 1: 1 pod below it on an older revision' });
  assert.is(ss(set(3, { updateStrategy: { type: 'OnDelete' } }), spod(0, { rev: 'old' }), spod(1), spod(2)).holds, 'OnDelete: 1 pod on an older revision until deleted');
  assert.equal(ss(set(2), spod(0), spod(1)), { state: 'upToDate', holds: '2 of 2 Running and Ready at the update revision' });
});

test('StatefulSet: Parallel creates every missing ordinal at once, scales down past unready pods, and an update waits for all ready', () => {
  const parallel = (replicas: number) => set(replicas, { podManagementPolicy: 'Parallel' });
  assert.equal(ss(parallel(3), spod(0, { ready: false })), { state: 'creating.inParallel', holds: 'creating 2 pods at once: 1 of 3 exist' });
  assert.is(ss(parallel(3), spod(0, { ready: false }), spod(1, { phase: 'Failed', ready: false }), spod(2)).state, 'replacingFailed');
  assert.is(ss(parallel(1), spod(0, { ready: false }), spod(1)).state, 'scalingDown.deleting', 'an unready pod does not hold a Parallel scale-down');
  assert.is(ss(parallel(1), spod(0), spod(1, { deleting: true }), spod(2)).state, 'scalingDown.deleting', 'Parallel waits only when every surplus pod is terminating');
  assert.is(ss(parallel(1), spod(0), spod(1, { deleting: true })).state, 'scalingDown.waitingForTermination');
  assert.equal(ss(parallel(2), spod(0, { ready: false }), spod(1, { rev: 'old' })), { state: 'waitingForReady', holds: 'waiting: 1 of 2 Running and Ready before updating 1 more' });
});

const ds = (strategy: 'RollingUpdate' | 'OnDelete' = 'RollingUpdate', maxUnavailable = 1): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'agent' } }, updateStrategy: { type: strategy, ...(strategy === 'RollingUpdate' ? { rollingUpdate: { maxUnavailable } } : {}) } } as DaemonSet['spec'],
});
function dpod(node: string, rev = 'new', ready = true, phase = 'Running'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `agent-${node}`, namespace: 'default', labels: { 'controller-revision-hash': rev } },
    spec: { nodeName: node },
    status: { phase, conditions: ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] : [] },
  } as Pod;
}
const NODES = new Set(['n0', 'n1', 'n2']);
const NOW = Date.parse('2026-01-02T00:00:00Z');
const d = (set: DaemonSet, pods: Pod[], satisfied = true) => {
  const byNode = new Map<string, Pod[]>();
  for (const p of pods) byNode.set(p.spec!.nodeName!, [...(byNode.get(p.spec!.nodeName!) ?? []), p]);
  return evaluateLifecycle(daemonSetLifecycle, daemonPlan(set, NODES, byNode, 'new', NOW, { satisfied, creates: satisfied ? 0 : 1, deletes: 0 }).facts);
};

test('DaemonSet: expectations, then per-node placement, then the rolling update within maxUnavailable, OnDelete, up to date', () => {
  assert.is(d(ds(), [dpod('n0')], false).state, 'waitingOnExpectations');
  assert.equal(d(ds(), [dpod('n0'), dpod('n1'), dpod('x')]), { state: 'placing', holds: '3 nodes should run one: creating on 1, deleting 1 misplaced pod' });
  assert.is(d(ds(), [dpod('n0'), dpod('n1'), dpod('n2', 'new', false, 'Failed')]).state, 'placing', 'a Failed pod is replaced');
  assert.equal(d(ds(), [dpod('n0', 'old'), dpod('n1', 'old'), dpod('n2', 'old')]), { state: 'rollingUpdate.replacing', holds: 'replacing 1 old pod (2 more left); 0 of 3 nodes unavailable, maxUnavailable 1' });
  assert.is(d(ds('RollingUpdate', 3), [dpod('n0', 'old'), dpod('n1', 'old'), dpod('n2', 'old')]).holds, 'replacing 3 old pods (0 more left); 0 of 3 nodes unavailable, maxUnavailable 3');
  assert.equal(d(ds(), [dpod('n0', 'new', false), dpod('n1', 'old'), dpod('n2', 'old')]), {
    state: 'rollingUpdate.waitingForAvailable',
    holds: 'waiting: 0 of 3 nodes updated and available, 1 unavailable (maxUnavailable 1), 2 old pods left',
  });
  assert.is(d(ds(), [dpod('n0', 'new', false), dpod('n1', 'old', false), dpod('n2', 'old')]).state, 'rollingUpdate.replacing', 'an unavailable old pod costs no availability');
  assert.equal(d(ds('OnDelete'), [dpod('n0', 'old'), dpod('n1'), dpod('n2')]), { state: 'onDeleteHeld', holds: 'OnDelete: 1 pod of 3 on an older revision until deleted' });
  assert.equal(d(ds(), [dpod('n0'), dpod('n1'), dpod('n2')]), { state: 'upToDate', holds: '3 of 3 nodes run an available pod of the current revision' });
});

test('LIFECYCLES names each of them once, by controller, with no state left undrawn', () => {
  const names = LIFECYCLES.map((l) => l.controller);
  for (const c of ['replicaset', 'replicationcontroller', 'statefulset', 'daemonset']) assert.ok(names.includes(c), c);
  assert.is(new Set(names).size, names.length);
  assert.equal(lifecycleStates(statefulSetLifecycle), [
    'creating.inOrder', 'creating.inParallel', 'replacingFailed', 'waitingForReady', 'scalingDown.deleting', 'scalingDown.waitingForTermination', 'updating', 'partitioned', 'upToDate',
  ]);
});

test.run();
