// The client-side rate limit (--svc-api-qps / --svc-api-burst): a token bucket on a simulated clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { DEFAULT_BURST, DEFAULT_QPS, TokenBucket } from '../../src/client/token-bucket.js';
import { advance, flush } from '../helpers/sim.js';

test('defaults are the controller manager options: 20 qps, burst 30', () => {
  const b = new TokenBucket();
  assert.is(DEFAULT_QPS, 20);
  assert.is(DEFAULT_BURST, 30);
  assert.is(b.qps, 20);
  assert.is(b.burst, 30);
});

test('a full bucket lets burst requests through at once, then one every 1/qps seconds', () => {
  const clock = new SimulatedClock();
  const b = new TokenBucket(20, 30, clock);
  for (let i = 0; i < 30; i++) assert.is(b.reserve(), 0, `request ${i} goes at once`);
  // Each further reservation queues behind the previous one: 50 ms apart at 20/s.
  assert.equal([b.reserve(), b.reserve(), b.reserve()], [50, 100, 150]);
});

test('tokens come back at qps per second, never above burst', () => {
  const clock = new SimulatedClock();
  const b = new TokenBucket(10, 5, clock);
  for (let i = 0; i < 5; i++) b.reserve();
  assert.is(b.tryTake(), false);
  clock.increment(250); // 2.5 tokens
  assert.ok(b.tryTake());
  assert.ok(b.tryTake());
  assert.is(b.tryTake(), false);
  clock.increment(60_000);
  assert.is(b.available(), 5);
});

test('take() waits on the clock: the 31st request starts only after 50 ms', async () => {
  const clock = new SimulatedClock();
  const b = new TokenBucket(20, 30, clock);
  for (let i = 0; i < 30; i++) await b.take();
  let done = false;
  void b.take().then(() => (done = true));
  await advance(clock, 49, 1);
  assert.is(done, false);
  await advance(clock, 1, 1);
  assert.is(done, true);
});

test('over a long run the rate equals qps: 130 requests at 20/s burst 30 need 5 s', async () => {
  const clock = new SimulatedClock();
  const b = new TokenBucket(20, 30, clock);
  let done = 0;
  for (let i = 0; i < 130; i++) void b.take().then(() => done++);
  await flush();
  assert.is(done, 30);
  await advance(clock, 4_999, 10);
  assert.is(done, 129);
  await advance(clock, 1, 1);
  assert.is(done, 130);
});

test('an aborted wait gives its token back', async () => {
  const clock = new SimulatedClock();
  const b = new TokenBucket(1, 1, clock);
  await b.take();
  const ac = new AbortController();
  const waiting = b.take(ac.signal).then(
    () => 'took',
    () => 'aborted',
  );
  ac.abort();
  assert.is(await waiting, 'aborted');
  clock.increment(1000);
  assert.is(b.available(), 1);
});

test('qps <= 0 turns limiting off', () => {
  const b = new TokenBucket(0, 1);
  for (let i = 0; i < 1000; i++) assert.is(b.reserve(), 0);
  assert.is(b.limited, false);
});

test.run();
