// Work-queue rule: a key is never handed to two workers at once; a change during processing is
// queued again after done.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { WorkQueue } from '../../src/runtime/work-queue.js';

test('a key being processed is not handed out again before done', () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  q.add('a');
  assert.is(q.tryGet(), 'a');
  q.add('a');
  assert.is(q.tryGet(), undefined);
  assert.is(q.inFlight, 1);
});

test('a key added while being processed is queued again by done, once', () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  q.add('a');
  q.tryGet();
  q.add('a');
  q.add('a');
  q.done('a');
  assert.is(q.length, 1);
  assert.is(q.tryGet(), 'a');
  q.done('a');
  assert.is(q.tryGet(), undefined);
});

test('a key not added during processing is gone after done', () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  q.add('a');
  q.tryGet();
  q.done('a');
  assert.is(q.length, 0);
  assert.is(q.inFlight, 0);
});

test('many concurrent workers never hold the same key at once', async () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  const holding = new Set<string>();
  let overlaps = 0;
  let handled = 0;
  const worker = async () => {
    for (;;) {
      const key = await q.get();
      if (key === undefined) return;
      if (holding.has(key)) overlaps++;
      holding.add(key);
      await new Promise((r) => setImmediate(r));
      // Re-add while processing, as a watch event arriving mid-reconcile would.
      if (handled++ < 200) q.add(key);
      holding.delete(key);
      q.done(key);
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  for (let i = 0; i < 50; i++) q.add(`k${i % 5}`);
  while (handled < 200) await new Promise((r) => setImmediate(r));
  q.shutDown();
  await Promise.all(workers);
  assert.is(overlaps, 0);
});

test.run();
