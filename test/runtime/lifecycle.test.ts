// Lifecycles: the machine's `observed` list decides the state in order, whatever the state before;
// `holds` comes from the state's meta; the tracker keeps since-when, transitions, counts and the
// entered states, bounded in objects and transitions, and forgets deleted objects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setup } from 'xstate';
import { defineLifecycle, evaluateLifecycle, evaluateWithXstate, lifecycleStates, restingStates } from '../../src/runtime/lifecycle.js';
import { LIFECYCLES } from '../../machines/lifecycles/index.js';
import { LifecycleTracker } from '../../src/runtime/lifecycle-tracker.js';
import { deploymentLifecycle } from '../../machines/lifecycles/deployment.js';

interface Facts { ready: number; want: number; failed: boolean }

const machine = setup({
  types: { events: {} as { type: 'observed'; facts: Facts } },
  guards: { failed: ({ event }) => event.facts.failed, done: ({ event }) => event.facts.ready >= event.facts.want },
}).createMachine({
  id: 'toy',
  initial: 'observing',
  on: { observed: [{ guard: 'failed', target: '.failed' }, { guard: 'done', target: '.done' }, { target: '.working.waiting' }] },
  states: {
    observing: {},
    working: { initial: 'waiting', states: { waiting: { meta: { holds: (f: Facts) => `${f.ready} of ${f.want} ready` } } } },
    done: { tags: ['resting'] },
    failed: {},
  },
});
const toy = defineLifecycle<Facts>('toy', 'Toy', machine);

test('the first holding guard names the state, and the state meta says what holds it', () => {
  assert.equal(evaluateLifecycle(toy, { ready: 1, want: 3, failed: false }), { state: 'working.waiting', holds: '1 of 3 ready' });
  assert.equal(evaluateLifecycle(toy, { ready: 3, want: 3, failed: false }), { state: 'done' });
  assert.equal(evaluateLifecycle(toy, { ready: 3, want: 3, failed: true }), { state: 'failed' });
});

test('lifecycleStates lists the atomic states without the initial one; restingStates the tagged ones', () => {
  assert.equal(lifecycleStates(toy), ['working.waiting', 'done', 'failed']);
  assert.equal(restingStates(toy), ['done']);
});

test('a machine without an "observed" list on its root is refused', () => {
  const bare = setup({}).createMachine({ id: 'bare', initial: 'a', states: { a: {} } });
  assert.throws(() => defineLifecycle('bare', 'Bare', bare), /no "observed" transitions/);
});

test('the tracker keeps since-when, transitions, counts and entered states per object', () => {
  let now = 1_000;
  const t = new LifecycleTracker(toy, { clock: { now: () => now } });
  t.observe('ns/a', { ready: 0, want: 2, failed: false });
  now = 2_000;
  t.observe('ns/a', { ready: 1, want: 2, failed: false }); // same state: since stays
  assert.is(t.object('ns/a')!.since, new Date(1_000).toISOString());
  assert.is(t.object('ns/a')!.holds, '1 of 2 ready');
  now = 5_000;
  t.observe('ns/a', { ready: 2, want: 2, failed: false });
  t.observe('ns/b', { ready: 0, want: 1, failed: false });
  const a = t.object('ns/a')!;
  assert.is(a.state, 'done');
  assert.equal(a.transitions, [{ from: 'working.waiting', to: 'done', at: new Date(5_000).toISOString() }]);
  const facts = t.facts();
  assert.equal(facts.counts, { done: 1, 'working.waiting': 1 });
  assert.equal(facts.entered, { 'working.waiting': 2, done: 1 });
  assert.is(facts.chart, 'lifecycle/toy');
  assert.equal(facts.objects.map((o) => o.key), ['ns/b', 'ns/a'], 'objects not at rest first');
  t.forget('ns/a');
  assert.is(t.object('ns/a'), undefined);
});

test('the tracker is bounded: the least recently observed objects and the oldest transitions go first', () => {
  const t = new LifecycleTracker(toy, { limit: 2, transitionsKept: 2 });
  for (let i = 0; i < 4; i++) t.observe('x', { ready: i % 2, want: 1, failed: false });
  assert.is(t.object('x')!.transitions.length, 2);
  t.observe('y', { ready: 0, want: 1, failed: false });
  t.observe('z', { ready: 0, want: 1, failed: false });
  assert.is(t.object('x'), undefined);
  assert.ok(t.object('y') && t.object('z'));
});

test('the Deployment lifecycle: a rollout waiting on availability says the numbers that hold it', () => {
  const base = {
    paused: false, recreate: false, replicas: 5, maxSurge: 1, maxUnavailable: 1, scalingEvent: false, hasNewReplicaSet: true, newReplicas: 3,
    newReplicasWanted: 3, newAvailable: 2, oldReplicas: 2, canDrainOld: false, available: 4, oldPodsLeft: 0, complete: false, deadlineExceeded: false,
    progressDeadlineSeconds: 600,
  };
  assert.equal(evaluateLifecycle(deploymentLifecycle, base), { state: 'progressing.waitingForAvailable', holds: 'waiting: 2 of 5 new pods available, maxUnavailable 1, 2 old pods left' });
  assert.is(evaluateLifecycle(deploymentLifecycle, { ...base, newReplicasWanted: 4 }).state, 'progressing.surging');
  assert.is(evaluateLifecycle(deploymentLifecycle, { ...base, canDrainOld: true }).state, 'progressing.drainingOld');
  assert.is(evaluateLifecycle(deploymentLifecycle, { ...base, paused: true, newReplicasWanted: 4 }).state, 'paused');
  assert.is(evaluateLifecycle(deploymentLifecycle, { ...base, deadlineExceeded: true }).state, 'deadlineExceeded');
  assert.is(evaluateLifecycle(deploymentLifecycle, { ...base, recreate: true, oldReplicas: 0, oldPodsLeft: 2 }).state, 'progressing.recreate.waitingForOldPods');
});

test('the compiled table and xstate\'s own transition name the same state for the same facts', () => {
  const toyFacts: Facts[] = [{ ready: 0, want: 1, failed: false }, { ready: 1, want: 1, failed: false }, { ready: 0, want: 1, failed: true }];
  for (const f of toyFacts) assert.equal(evaluateLifecycle(toy, f), evaluateWithXstate(toy, f));
  // Every built-in lifecycle, on facts where every flag and number varies (random but seeded).
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (const def of LIFECYCLES) {
    for (let i = 0; i < 300; i++) {
      // Each fact drawn once per case (the proxy remembers it), whatever names the machine reads.
      const drawn = new Map<PropertyKey, unknown>();
      const facts = new Proxy({}, {
        get: (_t, key) => {
          if (!drawn.has(key)) drawn.set(key, [true, false, 0, 1, 2, 5, undefined][Math.floor(rnd() * 7)]);
          return drawn.get(key);
        },
      });
      let fast: unknown;
      let slow: unknown;
      try { fast = evaluateLifecycle(def, facts); } catch (e) { fast = String(e); }
      try { slow = evaluateWithXstate(def, facts); } catch (e) { slow = String(e); }
      assert.equal(fast, slow, `${def.controller}`);
    }
  }
});

test.run();
