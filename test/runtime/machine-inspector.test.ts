// MachineInspector on its own (no server): the actor tree of a machine with invoked and spawned
// children, transitions capped per actor, ended actors pruned by age and count, listeners, and a
// context summary that keeps secrets and big objects out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, createActor, fromPromise, setup, SimulatedClock } from 'xstate';
import { MachineInspector, summarizeContext, type InspectorUpdate } from '../../src/runtime/inspection/index.js';
import { flush } from '../helpers/sim.js';

class Client {
  readonly url = 'https://example';
}

const parent = setup({
  types: { context: {} as { count: number; token: string; name: string; client: Client; tags: string[] }, events: {} as { type: 'NEXT' } | { type: 'FAIL' } },
  actors: { load: fromPromise(async () => 'ok'), child: setup({}).createMachine({ id: 'child', initial: 'a', states: { a: {} } }) },
}).createMachine({
  id: 'parent',
  context: { count: 0, token: 's3cr3t', name: 'x'.repeat(200), client: new Client(), tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] },
  initial: 'loading',
  states: {
    loading: { invoke: { src: 'load', onDone: 'ready' } },
    ready: {
      entry: assign({ count: ({ context }) => context.count + 1 }),
      invoke: { id: 'kid', src: 'child', systemId: 'the-kid' },
      on: { NEXT: 'other' },
    },
    other: { on: { NEXT: 'ready' } },
  },
});

test('the tree, states, transitions and a safe context summary', async () => {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  const inspector = new MachineInspector({ clock, maxTransitions: 4 });
  const actor = createActor(parent, { inspect: inspector.inspect, clock }).start();
  await flush();
  let snap = inspector.snapshot();
  const root = snap.actors.find((a) => a.machineId === 'parent')!;
  assert.is(root.state, 'ready');
  assert.equal(root.transitions.map((t) => [t.from, t.to]), [[null, 'loading'], ['loading', 'ready']]);
  assert.is(root.transitions[0]!.at, new Date(1_700_000_000_000).toISOString(), 'times from the given clock');
  const kid = snap.actors.find((a) => a.machineId === 'child')!;
  assert.is(kid.id, 'kid');
  assert.is(kid.systemId, 'the-kid');
  assert.is(kid.parentSessionId, root.sessionId);
  assert.ok(root.children.includes(kid.sessionId));
  assert.not.ok(snap.actors.some((a) => a.kind === 'actor'), 'the finished invoked promise is not listed');
  assert.equal(root.context, { count: 1, name: `${'x'.repeat(80)}…`, tags: ['a', 'b', 'c', 'd', 'e', '…2 more'] }, 'no token, no client');
  for (let i = 0; i < 5; i++) actor.send({ type: 'NEXT' });
  snap = inspector.snapshot();
  const t = snap.actors.find((a) => a.machineId === 'parent')!.transitions;
  assert.is(t.length, 4, 'capped');
  assert.equal(t.at(-1), { event: 'NEXT', from: 'ready', to: 'other', at: t.at(-1)!.at });
  assert.ok(snap.machines.includes('parent') && snap.machines.includes('child'));
  assert.is(inspector.machine('parent'), parent);
  actor.stop();
});

test('ended actors are marked, kept for the retention time, then removed (with a notification)', async () => {
  let now = 0;
  const inspector = new MachineInspector({ clock: { now: () => now }, stoppedRetentionMs: 1_000 });
  const updates: InspectorUpdate[] = [];
  const unsubscribe = inspector.subscribe((u) => updates.push(u));
  const actor = createActor(parent, { inspect: inspector.inspect }).start();
  await flush();
  actor.stop();
  let snap = inspector.snapshot();
  const root = snap.actors.find((a) => a.machineId === 'parent')!;
  assert.is(root.status, 'stopped');
  assert.is(root.state, 'ready', 'the last state stays visible');
  assert.ok(updates.some((u) => u.type === 'actor' && u.actor.sessionId === root.sessionId && u.actor.status === 'stopped'));
  now = 999;
  assert.ok(inspector.snapshot().actors.some((a) => a.sessionId === root.sessionId));
  now = 1_000;
  snap = inspector.snapshot();
  assert.is(snap.actors.length, 0, JSON.stringify(snap.actors.map((a) => [a.id, a.status])));
  assert.ok(updates.some((u) => u.type === 'removed' && u.sessionId === root.sessionId));
  unsubscribe();
  const n = updates.length;
  createActor(parent, { inspect: inspector.inspect }).start().stop();
  assert.is(updates.length, n, 'no updates after unsubscribing');
});

test('at most maxStopped ended actors are kept, the oldest go first', async () => {
  const inspector = new MachineInspector({ maxStopped: 3 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const a = createActor(fromPromise(async () => i), { inspect: inspector.inspect }).start();
    ids.push(a.sessionId);
    await flush();
  }
  assert.equal(inspector.snapshot().actors.map((a) => a.sessionId), ids.slice(2));
});

test('an actor that fails is reported as error', async () => {
  const inspector = new MachineInspector();
  const a = createActor(fromPromise(async () => { throw new Error('boom'); }), { inspect: inspector.inspect });
  a.subscribe({ error: () => {} });
  a.start();
  await flush();
  assert.is(inspector.snapshot().actors[0]!.status, 'error');
});

test('summarizeContext: only small, plain, non-secret values', () => {
  assert.equal(summarizeContext(undefined), {});
  assert.equal(summarizeContext(new Client()), {}, 'a class instance is not summarised');
  assert.equal(
    summarizeContext({
      password: 'x', bearerToken: 'y', clientCertificate: 'z', privateKey: 'k', n: 1, ok: true, nil: null, big: 10n, inf: Infinity,
      fn: () => 1, nested: { a: 1, secret: 2, deep: { b: 1, deeper: { c: 1 } }, list: [1, 2] }, mixed: [1, { a: 1 }], empty: { f: () => 1 },
    }),
    { n: 1, ok: true, nil: null, big: '10', inf: 'Infinity', nested: { a: 1, deep: { b: 1 }, list: [1, 2] } },
  );
  assert.equal(Object.keys(summarizeContext({ o: { a: 1 }, n: 1 })), ['n', 'o'], 'plain values first');
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
  assert.is(Object.keys(summarizeContext(many)).length, 16);
});

test.run();
