// Work-queue rule: delayed and rate-limited adds wait on the (simulated) clock; forget resets back-off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { ExponentialBackoffRateLimiter } from '../../src/runtime/rate-limiters.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';

test('addAfter queues the key only once the delay has passed', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  q.addAfter('a', 50);
  clock.increment(49);
  assert.is(q.length, 0);
  assert.is(q.delayed, 1);
  clock.increment(1);
  assert.is(q.tryGet(), 'a');
});

test('the earliest of several delays of one key wins', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 10);
  q.addAfter('a', 500);
  clock.increment(10);
  assert.is(q.tryGet(), 'a');
  q.done('a');
  clock.increment(2000);
  assert.is(q.length, 0, 'the later delays were merged into the first');
});

test('delayed keys become ready in the order of their ready times', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  q.addAfter('late', 30);
  q.addAfter('early', 10);
  q.addAfter('mid', 20);
  clock.increment(30);
  assert.equal([q.tryGet(), q.tryGet(), q.tryGet()], ['early', 'mid', 'late']);
});

test('addRateLimited waits 5, 10, 20 ms on successive failures and forget starts again at 5 ms', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock, rateLimiter: new ExponentialBackoffRateLimiter() });
  const readyAfter = () => {
    q.addRateLimited('a');
    let waited = 0;
    while (q.length === 0) {
      clock.increment(1);
      waited++;
    }
    q.tryGet();
    q.done('a');
    return waited;
  };
  assert.equal([readyAfter(), readyAfter(), readyAfter()], [5, 10, 20]);
  assert.is(q.numRequeues('a'), 3);
  q.forget('a');
  assert.is(readyAfter(), 5);
});

test('the default limiter holds the 101st retry of a burst for the token bucket (100 ms)', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  for (let i = 0; i < 101; i++) q.addRateLimited(`k${i}`);
  clock.increment(5);
  assert.is(q.length, 100);
  clock.increment(94);
  assert.is(q.length, 100);
  clock.increment(1);
  assert.is(q.length, 101);
});

test('a delayed key is backing off (addRateLimited) or planned (addAfter): the earlier pending delay says which', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock, rateLimiter: new ExponentialBackoffRateLimiter(100, 10_000) });
  q.addAfter('planned', 1_000);
  q.addRateLimited('failing');
  assert.equal([q.delayed, q.backingOff], [2, 1]);
  // A planned delay earlier than the back-off replaces it (and the other way round).
  q.addAfter('failing', 10);
  q.addRateLimited('planned');
  assert.equal([q.delayed, q.backingOff], [2, 1]);
  clock.increment(10);
  assert.equal([q.delayed, q.backingOff], [1, 1], 'the key now planned left; the other backs off');
  clock.increment(100);
  assert.equal([q.delayed, q.backingOff], [0, 0]);
  q.addRateLimited('x');
  q.shutDown();
  assert.equal([q.delayed, q.backingOff], [0, 0]);
});

test.run();
