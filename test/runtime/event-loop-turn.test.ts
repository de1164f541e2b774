// Giving the event loop a turn (src/runtime/event-loop-turn.ts): a burst of reconciles answered
// from the caches (promises already settled) no longer holds back a timer, such as the lease's
// renewal; within the budget a loop pays nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { workerMachine } from '../../machines/worker.js';
import { BUSY_BUDGET_MS, yieldIfBusy } from '../../src/runtime/event-loop-turn.js';
import { done, WorkQueue } from '../../src/runtime/index.js';
import { capturedLogger } from '../helpers/sim.js';

/** Busy-waits `ms` (a reconcile's CPU work). */
function spin(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end; );
}

test('yieldIfBusy: nothing to await within the budget, a turn (timers first) once past it', async () => {
  await new Promise((r) => setImmediate(r));
  assert.is(yieldIfBusy(), undefined, 'the first call starts a run');
  assert.is(yieldIfBusy(), undefined, 'still within the budget');
  let timerRan = false;
  setTimeout(() => (timerRan = true), 0);
  spin(BUSY_BUDGET_MS + 2);
  const turn = yieldIfBusy();
  assert.ok(turn, 'past the budget: a turn to await');
  assert.not.ok(timerRan);
  await turn;
  assert.ok(timerRan, 'the timer ran during the turn');
  assert.is(yieldIfBusy(), undefined, 'a new run starts after the turn');
});

test('a worker with 2,000 keys reconciled from the cache (1 ms each) lets a 0 ms timer fire within a few ms, not after the burst', async () => {
  const queue = new WorkQueue({ name: 'burst' });
  for (let i = 0; i < 2_000; i++) queue.add(`k${i}`);
  let reconciled = 0;
  const actor = createActor(workerMachine, {
    input: {
      queue,
      logger: capturedLogger().logger,
      reconcile: () => {
        spin(1);
        reconciled++;
        // Settled at once: the loop's await never leaves the microtask queue by itself.
        return done();
      },
    },
  });
  const scheduledAt = performance.now();
  let firedAfter = -1;
  let reconciledBefore = -1;
  setTimeout(() => {
    firedAfter = performance.now() - scheduledAt;
    reconciledBefore = reconciled;
  }, 0);
  actor.start();
  while (reconciled < 2_000) await new Promise((r) => setTimeout(r, 5));
  queue.shutDown();
  actor.stop();
  assert.ok(reconciledBefore >= 0 && reconciledBefore < 100, `the timer fired after ${reconciledBefore} of 2,000 reconciles`);
  // The budget plus one reconcile, with room for a loaded machine; the whole burst takes 2 s.
  assert.ok(firedAfter < 500, `the timer fired ${firedAfter.toFixed(0)} ms late`);
});

test.run();
