// The namespace lifecycle's decision order (machines/lifecycles/namespace.ts) over the facts the
// controller computes (controllers/namespace/lifecycle-facts.ts): pure, no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Namespace } from '../../src/api/generated/kinds.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { namespaceLifecycle } from '../../machines/lifecycles/namespace.js';
import { namespaceFacts } from '../../controllers/namespace/lifecycle-facts.js';
import type { ContentResult } from '../../controllers/namespace/content.js';

const ns = (finalizers: string[], deleting = true): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'x', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { finalizers },
});
const result = (p: Partial<ContentResult>): ContentResult => ({ remaining: new Map(), finalizers: new Map(), finalized: 0, estimateMs: 0, failures: [], ...p });
const state = (n: Namespace, pass?: Parameters<typeof namespaceFacts>[1]) => evaluateLifecycle(namespaceLifecycle, namespaceFacts(n, pass));

test('the chart draws the states the controller acts on', () => {
  assert.equal(lifecycleStates(namespaceLifecycle), ['active', 'discovering', 'deletingContent', 'waitingOnFinalizers.content', 'waitingOnFinalizers.namespace', 'done']);
});

test('not being deleted is active; without the svc finalizer: the others wait, none left is done', () => {
  assert.is(state(ns(['svc'], false)).state, 'active');
  assert.equal(state(ns(['example.com/b', 'example.com/a'])), { state: 'waitingOnFinalizers.namespace', holds: 'spec.finalizers: example.com/a, example.com/b' });
  assert.is(state(ns([])).state, 'done');
});

test('a pass: discovery failure first, then content failures or objects without finalizers, then finalizers, else done', () => {
  const n = ns(['svc']);
  assert.equal(state(n, { discoveryError: '503' }), { state: 'discovering', holds: 'discovery failed: 503' });
  assert.is(state(n, { result: result({ failures: ['widgets.example.com: boom'] }) }).state, 'deletingContent');
  const pods = result({ remaining: new Map([['pods', 2], ['configmaps', 1]]), finalizers: new Map([['example.com/keep', 1]]), finalized: 1, estimateMs: 2_500 });
  assert.equal(state(n, { result: pods }), { state: 'deletingContent', holds: 'remaining: configmaps has 1 resource instances, pods has 2 resource instances; longest grace period ends in 3 s' });
  const held = result({ remaining: new Map([['configmaps', 1]]), finalizers: new Map([['example.com/keep', 1]]), finalized: 1 });
  assert.equal(state(n, { result: held }), { state: 'waitingOnFinalizers.content', holds: 'finalizers remaining: example.com/keep in 1 resource instances' });
  assert.equal(state(n, { result: result({}) }), { state: 'done', holds: 'every deletable resource listed empty' });
});

test.run();
