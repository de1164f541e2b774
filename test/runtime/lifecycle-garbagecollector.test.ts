// The garbage collector lifecycle's decision order (machines/lifecycles/garbagecollector.ts) over the
// facts attempt.ts computes from the graph (`garbageFacts`): pure, no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { garbageCollectorLifecycle } from '../../machines/lifecycles/garbagecollector.js';
import { garbageFacts, lifecycleKey, type OwnerClasses } from '../../controllers/garbagecollector/attempt.js';
import type { GraphNode } from '../../controllers/garbagecollector/graph.js';
import type { OwnerReference } from '../../src/api/types.js';

const RS = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
const ref = (uid: string, blockOwnerDeletion = false): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, ...(blockOwnerDeletion ? { blockOwnerDeletion } : {}) });
const node = (uid: string, p: Partial<GraphNode> = {}): GraphNode => ({ uid, ref: RS, namespace: 'default', name: uid, owners: [], finalizers: [], beingDeleted: false, ...p });
const classes = (p: Partial<OwnerClasses>): OwnerClasses => ({ solid: [], gone: [], waiting: [], ...p });
const state = (n: GraphNode, deps: GraphNode[] = [], owners?: OwnerClasses) => evaluateLifecycle(garbageCollectorLifecycle, garbageFacts(n, deps, owners));

test('the chart draws the steps the collector takes', () => {
  assert.equal(lifecycleStates(garbageCollectorLifecycle), ['orphaning', 'foreground.waitingForDependents', 'foreground.releasing', 'deleting', 'kept', 'idle']);
  assert.is(lifecycleKey(node('web')), 'replicasets.apps/default/web');
});

test('being deleted: orphan first, then foreground (blocked by blockOwnerDeletion dependents), else idle', () => {
  const both = node('o', { beingDeleted: true, finalizers: ['orphan', 'foregroundDeletion'] });
  assert.equal(state(both, [node('d', { owners: [ref('o')] })]), { state: 'orphaning', holds: '1 dependent to orphan' });
  const fg = node('o', { beingDeleted: true, finalizers: ['foregroundDeletion'] });
  assert.equal(state(fg, [node('a', { owners: [ref('o', true)] }), node('b', { owners: [ref('o')], beingDeleted: true })]), {
    state: 'foreground.waitingForDependents',
    holds: 'waiting: 1 dependent with blockOwnerDeletion left (1 not yet being deleted)',
  });
  assert.equal(state(fg, [node('b', { owners: [ref('o')] })]), { state: 'foreground.releasing', holds: '1 dependent left, none blocking' });
  assert.equal(state(node('o', { beingDeleted: true })), { state: 'idle', holds: 'being deleted without a collector finalizer' });
});

test('with owners: one existing keeps it; all gone (or waiting) deletes it with the established policy', () => {
  assert.equal(state(node('x'), [], classes({})), { state: 'idle', holds: 'no owners' });
  const owned = node('p', { owners: [ref('a'), ref('b')] });
  assert.equal(state(owned, [], classes({ solid: [ref('a')], gone: [ref('b')] })), { state: 'kept', holds: '1 of 2 owners exist; 1 references to remove' });
  assert.equal(state(owned, [], classes({ gone: [ref('a'), ref('b')] })), { state: 'deleting', holds: '2 of 2 owners gone: deleting with propagationPolicy Background' });
  assert.is(garbageFacts(owned, [node('c')], classes({ waiting: [ref('a')], gone: [ref('b')] })).policy, 'Foreground');
  assert.is(garbageFacts(node('p', { owners: [ref('a')], finalizers: ['orphan'] }), [], classes({ gone: [ref('a')] })).policy, 'Orphan');
});

test.run();
