// The worker's loop (machines/worker.ts): counts outcomes in its live stats, never reconciles
// inside the transition that started it, and hands a key back when stopped while holding it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { workerMachine } from '../../machines/worker.js';
import { done, ExponentialBackoffRateLimiter, requeue, TerminalError, WorkQueue } from '../../src/runtime/index.js';
import { capturedLogger, flush } from '../helpers/sim.js';

test('a worker reconciles queued keys, counts each outcome, and finishes when the queue shuts down', async () => {
  // Back-off of a minute: the requeued and failed keys do not come back during the test.
  const queue = new WorkQueue({ name: 'w', rateLimiter: new ExponentialBackoffRateLimiter(60_000) });
  for (const k of ['ok', 'again', 'bad', 'broken']) queue.add(k);
  const seen: string[] = [];
  const actor = createActor(workerMachine, {
    input: {
      queue,
      logger: capturedLogger().logger,
      reconcile: (key) => {
        seen.push(key);
        if (key === 'bad') throw new TerminalError('no');
        if (key === 'broken') throw new Error('boom');
        return key === 'again' ? requeue() : done();
      },
    },
  });
  actor.start();
  assert.equal(seen, [], 'nothing runs inside the starting transition');
  await flush();
  assert.equal(seen, ['ok', 'again', 'bad', 'broken']);
  assert.is(queue.delayed, 2, 'requeue and a failure wait for their back-off');
  const counts = actor.getSnapshot().context.stats.counts;
  assert.is(counts.done, 1);
  assert.is(counts.requeue, 1);
  assert.is(counts.terminal, 1);
  assert.is(counts.failed, 1);
  queue.shutDown();
  await flush();
  assert.is(actor.getSnapshot().value, 'finished');
});

test('a worker stopped while waiting hands the key it then gets back to the queue', async () => {
  const queue = new WorkQueue({ name: 'w' });
  const seen: string[] = [];
  const actor = createActor(workerMachine, { input: { queue, logger: capturedLogger().logger, reconcile: (k) => (seen.push(k), done()) } });
  actor.start();
  await flush();
  actor.stop();
  queue.add('late');
  await flush();
  assert.equal(seen, []);
  assert.is(queue.inFlight, 0);
  assert.is(queue.tryGet(), 'late', 'the key is queued again for another worker');
});

test.run();
