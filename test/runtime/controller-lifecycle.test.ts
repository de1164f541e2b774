// Controller machine: waitingForLeader -> syncingCaches -> running -> stopping -> stopped, and the
// cache-sync timeout, on a simulated clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { controllerMachine, type ControllerMachineInput } from '../../machines/controller.js';
import { done, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import { cm, dataSource } from '../helpers/data-source.js';
import { capturedLogger, flush } from '../helpers/sim.js';

function start(over: Partial<ControllerMachineInput> & { reconcile: ControllerMachineInput['reconcile'] }) {
  const clock = new SimulatedClock();
  const queue = new WorkQueue({ name: 'test', clock });
  const source = dataSource([cm('a'), cm('b')]);
  const { logger, records } = capturedLogger();
  const actor = createActor(controllerMachine, {
    clock,
    input: { name: 'test', queue, sources: [source], concurrency: 2, logger, needsLeader: false, ...over },
  });
  actor.start();
  return { actor, clock, queue, source, records };
}

test('with leader election the controller waits for LEADER_ELECTED before syncing caches', () => {
  const { actor, source, queue } = start({ needsLeader: true, reconcile: () => done() });
  assert.is(actor.getSnapshot().value, 'waitingForLeader');
  source.put(cm('c'));
  assert.is(queue.length, 0, 'no feed before leadership');
  actor.send({ type: 'LEADER_ELECTED' });
  assert.is(actor.getSnapshot().value, 'syncingCaches');
  assert.ok(actor.getSnapshot().children['feed']);
});

test('without leader election it syncs at once, runs once caches synced, and reconciles cached keys', async () => {
  const seen: string[] = [];
  const { actor, source } = start({ reconcile: (k) => (seen.push(k), done()) });
  assert.is(actor.getSnapshot().value, 'syncingCaches');
  source.markSynced();
  assert.equal(actor.getSnapshot().value, { running: 'waitingForResync' });
  await flush();
  assert.equal(seen.sort(), ['default/a', 'default/b']);
});

test('running spawns as many worker child actors as the concurrency', () => {
  const { actor, source } = start({ concurrency: 3, reconcile: () => done() });
  source.markSynced();
  const workers = Object.keys(actor.getSnapshot().children).filter((id) => id.startsWith('worker-'));
  assert.equal(workers.sort(), ['worker-0', 'worker-1', 'worker-2']);
});

test('caches that do not sync within the timeout end in cacheSyncFailed', () => {
  const { actor, clock } = start({ cacheSyncTimeoutMs: 30_000, reconcile: () => done() });
  clock.increment(29_999);
  assert.is(actor.getSnapshot().value, 'syncingCaches');
  clock.increment(1);
  assert.is(actor.getSnapshot().value, 'cacheSyncFailed');
  assert.is(actor.getSnapshot().status, 'done');
});

test('stopping waits for in-flight reconciles, then stops; no new key is started', async () => {
  let release!: (o: ReconcileOutcome) => void;
  const started: string[] = [];
  const { actor, source, queue } = start({
    concurrency: 1,
    reconcile: (k) => {
      started.push(k);
      return new Promise<ReconcileOutcome>((r) => (release = r));
    },
  });
  source.markSynced();
  await flush();
  assert.is(started.length, 1);
  actor.send({ type: 'STOP' });
  assert.is(actor.getSnapshot().value, 'stopping');
  assert.is(queue.inFlight, 1);
  source.put(cm('c'));
  release(done());
  await flush();
  assert.is(actor.getSnapshot().value, 'stopped');
  assert.is(started.length, 1, 'the queued second key was not started');
});

test('losing leadership while running stops the controller', async () => {
  const { actor, source } = start({ needsLeader: true, reconcile: () => done() });
  actor.send({ type: 'LEADER_ELECTED' });
  source.markSynced();
  actor.send({ type: 'LEADER_LOST' });
  await flush();
  assert.is(actor.getSnapshot().value, 'stopped');
});

test('STOP while waiting for leadership stops at once and shuts the queue down', () => {
  const { actor, queue } = start({ needsLeader: true, reconcile: () => done() });
  actor.send({ type: 'STOP' });
  assert.is(actor.getSnapshot().value, 'stopped');
  assert.ok(queue.shuttingDown);
});

test('an informer that fails stops the controller, with the error logged', async () => {
  const { actor, source, records } = start({ reconcile: () => done() });
  source.markSynced();
  source.fail(new Error('watch gave up'));
  await flush();
  assert.is(actor.getSnapshot().value, 'stopped');
  const rec = records.find((r) => r['msg'] === 'an informer failed; stopping the controller');
  assert.match(String((rec?.['err'] as { message?: string } | undefined)?.message), 'watch gave up');
});

test.run();
