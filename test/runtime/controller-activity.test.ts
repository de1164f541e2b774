// ControllerActivity through the controller machine on a simulated clock: the live view's facts
// (queue depth and waiting keys, keys in hand, recent reconciles with outcome, duration and retry
// count, informers with sync state and last event) and how the inspector serves them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { controllerMachine, type ControllerMachineInput } from '../../machines/controller.js';
import { ControllerActivity } from '../../src/runtime/controller-activity.js';
import { LIVE_FACTS, MachineInspector } from '../../src/runtime/inspection/index.js';
import { done, requeueAfter, TerminalError } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import { cm, dataSource } from '../helpers/data-source.js';
import { capturedLogger, flush } from '../helpers/sim.js';

function run(reconcile: ControllerMachineInput['reconcile'], objects = [cm('a')], recentLimit = 20) {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  const queue = new WorkQueue({ name: 'live', clock });
  const activity = new ControllerActivity({ name: 'live', queue, clock, recentLimit });
  const source = dataSource(objects);
  const owned = { ...dataSource(), resource: 'apps/replicasets', role: 'owns' as const };
  const inspector = new MachineInspector({ clock });
  const actor = createActor(controllerMachine, {
    id: 'live',
    clock,
    inspect: inspector.inspect,
    input: {
      name: 'live', queue, activity, concurrency: 1, logger: capturedLogger().logger, needsLeader: false, minResyncPeriodMs: 0, reconcile,
      sources: [{ ...source, resource: 'configmaps', role: 'watches' }, owned],
    },
  });
  actor.start();
  return { clock, queue, activity, source, owned, inspector, actor };
}

async function step(clock: SimulatedClock, ms: number) {
  for (let i = 0; i < ms; i++) {
    clock.increment(1);
    await flush(1);
  }
}

test('recent reconciles, newest first, with outcome, duration, retries and the error message', async () => {
  let calls = 0;
  let release: (() => void) | undefined;
  const { clock, activity, source, owned } = run(async (key) => {
    if (key !== 'default/a') return done();
    calls++;
    if (calls <= 2) throw new Error(`boom ${calls}`);
    // The third try takes 7 ms of (simulated) time.
    await new Promise<void>((r) => (release = r));
    return requeueAfter(1_000);
  });
  source.markSynced();
  owned.markSynced();
  await flush();
  await step(clock, 20);
  // a failed twice (back-off 5 ms, then 10 ms) and is now in hand.
  let f = activity.facts();
  assert.equal(f.queue.working.map((w) => w.key), ['default/a']);
  assert.is(f.queue.inFlight, 1);
  await step(clock, 7);
  release!();
  await flush();
  f = activity.facts();
  assert.equal(f.recent.map((r) => [r.key, r.outcome, r.retries]), [['default/a', 'requeueAfter', 2], ['default/a', 'failed', 1], ['default/a', 'failed', 0]]);
  assert.ok(f.recent[0]!.durationMs >= 7, String(f.recent[0]!.durationMs));
  assert.is(f.recent[1]!.error, 'boom 2');
  assert.is(f.recent[0]!.error, undefined);
  assert.equal(f.outcomes, { done: 0, requeue: 0, requeueAfter: 1, failed: 2, terminal: 0 });
  assert.equal(f.queue.working, []);
  assert.is(f.queue.delayed, 1, 'requeueAfter waits in the delayed set');
  // A planned requeue after two failures is not a back-off: the page lights `scheduled`, not `backoff`.
  assert.is(f.queue.scheduled, 1);
  assert.is(f.queue.backingOff, 0);
});

test('the queue: depth and the waiting keys in hand-out order; informers with sync state and last event', async () => {
  let release: (() => void) | undefined;
  const { clock, activity, source, owned } = run(() => new Promise((r) => (release = () => r(done()))), [cm('a'), cm('b'), cm('c')]);
  let f = activity.facts();
  assert.equal(f.informers.map((i) => [i.resource, i.role, i.synced, i.events, i.lastEventAt]), [
    ['configmaps', 'watches', false, 0, null],
    ['apps/replicasets', 'owns', false, 0, null],
  ]);
  source.markSynced();
  owned.markSynced();
  await flush();
  f = activity.facts();
  assert.equal(f.queue.working.map((w) => w.key), ['default/a']);
  assert.is(f.queue.depth, 2);
  assert.equal(f.queue.waiting, ['default/b', 'default/c']);
  clock.increment(500);
  source.put(cm('d'));
  f = activity.facts();
  assert.equal(f.queue.waiting, ['default/b', 'default/c', 'default/d']);
  assert.equal(f.informers[0], { resource: 'configmaps', role: 'watches', synced: true, events: 1, lastEventAt: new Date(1_700_000_000_500).toISOString() });
  assert.is(f.informers[1]!.events, 0, 'SYNCED is not an object event');
  for (let i = 0; i < 4; i++) {
    release!();
    await flush();
  }
  f = activity.facts();
  assert.is(f.queue.depth, 0);
  assert.is(f.outcomes.done, 4);
});

test('recent keeps the last recentLimit reconciles; a TerminalError is recorded as terminal', async () => {
  const { activity, source, owned } = run((key) => {
    if (key === 'default/bad') throw new TerminalError('spec is invalid');
    return done();
  }, ['a', 'b', 'c', 'd', 'bad'].map((n) => cm(n)), 3);
  source.markSynced();
  owned.markSynced();
  await flush();
  const f = activity.facts();
  assert.equal(f.recent.map((r) => [r.key, r.outcome]), [['default/bad', 'terminal'], ['default/d', 'done'], ['default/c', 'done']]);
  assert.is(f.recent[0]!.error, 'spec is invalid');
  assert.is(f.outcomes.done, 4);
});

test('the inspector serves the facts as `live` of the controller actor, named after the controller', async () => {
  const { activity, source, owned, inspector, actor } = run(() => done());
  source.markSynced();
  owned.markSynced();
  await flush();
  const snap = inspector.snapshot();
  const root = snap.actors.find((a) => a.machineId === 'controller')!;
  assert.is(root.id, 'live');
  assert.equal(root.live, activity[LIVE_FACTS]());
  assert.equal(inspector.liveFacts().map((l) => l.sessionId), [root.sessionId]);
  const workers = snap.actors.filter((a) => a.machineId === 'worker');
  assert.is(workers.length, 1);
  assert.is(workers[0]!.live, undefined, 'the workers report through the controller, not on their own');
  actor.send({ type: 'STOP' });
  await flush();
  const after = inspector.snapshot();
  assert.not.ok(after.actors.some((a) => a.machineId === 'worker'), 'finished workers are not listed');
  assert.is(after.actors.find((a) => a.sessionId === root.sessionId)?.status, 'done', 'the stopped controller stays, marked');
});

test.run();
