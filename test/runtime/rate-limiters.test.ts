// The work queue's rate limiters: per-key exponential back-off, overall token bucket, max of both.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import {
  defaultControllerRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
} from '../../src/runtime/rate-limiters.js';

test('per-key back-off starts at 5 ms and doubles on every retry', () => {
  const l = new ExponentialBackoffRateLimiter();
  assert.equal([1, 2, 3, 4, 5].map(() => l.when('a')), [5, 10, 20, 40, 80]);
  assert.is(l.numRequeues('a'), 5);
});

test('per-key back-off is capped at 1,000 s', () => {
  const l = new ExponentialBackoffRateLimiter();
  let last = 0;
  for (let i = 0; i < 2000; i++) last = l.when('a');
  assert.is(last, 1_000_000);
});

test('per-key back-off is per key and forget resets it', () => {
  const l = new ExponentialBackoffRateLimiter();
  l.when('a');
  l.when('a');
  assert.is(l.when('b'), 5);
  l.forget('a');
  assert.is(l.numRequeues('a'), 0);
  assert.is(l.when('a'), 5);
});

test('token bucket lets a burst of 100 through, then one every 100 ms (10/s)', () => {
  const clock = new SimulatedClock();
  const l = new TokenBucketRateLimiter(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.is(l.when(`k${i}`), 0);
  assert.is(l.when('x'), 100);
  assert.is(l.when('y'), 200);
  clock.increment(1000);
  // 10 tokens came back, 2 were owed: the next 8 are free.
  for (let i = 0; i < 8; i++) assert.is(l.when(`z${i}`), 0);
  assert.is(l.when('w'), 100);
});

test('max-of takes the larger delay of back-off and bucket', () => {
  const clock = new SimulatedClock();
  const l = new MaxOfRateLimiter(new ExponentialBackoffRateLimiter(5, 1_000_000), new TokenBucketRateLimiter(10, 1, clock));
  assert.is(l.when('a'), 5); // bucket has its one token: back-off wins
  assert.is(l.when('a'), 100); // bucket empty: 100 ms beats 10 ms
  clock.increment(10_000);
  for (let i = 0; i < 8; i++) l.when('a');
  assert.is(l.when('a'), 5 * 2 ** 10); // back-off dominates again
  l.forget('a');
  assert.is(l.numRequeues('a'), 0);
});

test('default controller limiter is max of 5 ms..1,000 s per key and 10/s burst 100', () => {
  const clock = new SimulatedClock();
  const l = defaultControllerRateLimiter(clock) as MaxOfRateLimiter;
  const [backoff, bucket] = l.limiters as [ExponentialBackoffRateLimiter, TokenBucketRateLimiter];
  assert.equal([backoff.baseDelayMs, backoff.maxDelayMs, bucket.qps, bucket.burst], [5, 1_000_000, 10, 100]);
});

test.run();
