/**
 * Fair queuing and shuffle sharding on an injected clock: the concurrency limit holds, a full queue
 * and a Reject level refuse at once, a waiting request times out or is cancelled, a light flow is
 * served ahead of a heavy flow's backlog, and hands are distinct, in range and spread evenly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Clock, type Outcome, QueueSet } from '../../../src/apiserver/flowcontrol/queue-set.js';
import { Dealer, hashFlowId } from '../../../src/apiserver/flowcontrol/shuffle-sharding.js';
import { dumpPriorityLevels, tabwrite } from '../../../src/apiserver/flowcontrol/debug-dump.js';
import { shouldUpdateSpec } from '../../../src/apiserver/flowcontrol/bootstrap-ensurer.js';

/** A clock moved by hand; timers fire when it passes them. */
class FakeClock implements Clock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  now(): number {
    return this.t;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn, live: true };
    this.timers.push(timer);
    return () => (timer.live = false);
  }
  advance(ms: number): void {
    this.t += ms;
    for (const timer of this.timers.filter((x) => x.live && x.at <= this.t)) {
      timer.live = false;
      timer.fn();
    }
  }
}

const flush = () => new Promise((r) => setImmediate(r));
const desc = (flowSchema: string, distinguisher: string) => ({ flowSchema, distinguisher });

test('the concurrency limit holds; the rest wait and run as slots free up', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet({ concurrencyLimit: 2, queues: 8, handSize: 2, queueLengthLimit: 10 }, clock);
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 5; i++) void qs.enqueue(hashFlowId('fs', `u${i}`), desc('fs', `u${i}`), 10_000).then((o) => outcomes.push(o));
  await flush();
  assert.is(outcomes.length, 2);
  assert.is(qs.executingRequests, 2);
  assert.is(qs.waitingRequests, 3);
  clock.advance(50);
  (outcomes[0] as { admitted: { finish(): void } }).admitted.finish();
  await flush();
  assert.is(outcomes.length, 3);
  const third = outcomes[2] as { admitted: { waitedMs: number } };
  assert.is(third.admitted.waitedMs, 50);
  assert.is(qs.executingRequests, 2);
});

test('a full queue refuses at once (queue-full); a Reject level refuses over its limit (concurrency-limit)', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet({ concurrencyLimit: 1, queues: 1, handSize: 1, queueLengthLimit: 2 }, clock);
  const results = await Promise.race([
    Promise.all([0, 1, 2].map(() => qs.enqueue(1n, desc('fs', 'a'), 10_000))),
    flush().then(() => 'pending'),
  ]);
  assert.is(results, 'pending', 'two wait behind the first');
  const fourth = await qs.enqueue(1n, desc('fs', 'a'), 10_000);
  assert.equal(fourth, { rejected: 'queue-full', waitedMs: 0 });
  const reject = new QueueSet({ concurrencyLimit: 1, queues: 0, handSize: 0, queueLengthLimit: 0 }, clock);
  const first = await reject.enqueue(1n, desc('fs', 'a'), 10_000);
  assert.ok('admitted' in first);
  assert.equal(await reject.enqueue(2n, desc('fs', 'b'), 10_000), { rejected: 'concurrency-limit', waitedMs: 0 });
  (first as { admitted: { finish(): void } }).admitted.finish();
  assert.ok('admitted' in (await reject.enqueue(2n, desc('fs', 'b'), 10_000)));
});

test('a waiting request times out at its wait limit, or leaves when its caller gives up; neither runs', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet({ concurrencyLimit: 1, queues: 4, handSize: 2, queueLengthLimit: 5 }, clock);
  const running = await qs.enqueue(1n, desc('fs', 'a'), 1000);
  let abort: () => void = () => {};
  const timedOut = qs.enqueue(2n, desc('fs', 'b'), 1000);
  const cancelled = qs.enqueue(3n, desc('fs', 'c'), 5000, { onAbort: (fn) => (abort = fn) });
  clock.advance(1000);
  assert.equal(await timedOut, { rejected: 'time-out', waitedMs: 1000 });
  abort();
  assert.equal(await cancelled, { rejected: 'cancelled', waitedMs: 1000 });
  assert.is(qs.waitingRequests, 0);
  (running as { admitted: { finish(): void } }).admitted.finish();
  assert.ok(qs.isIdle);
});

test('fairness: a light flow is served ahead of a heavy flow\'s backlog', async () => {
  const clock = new FakeClock();
  const qs = new QueueSet({ concurrencyLimit: 2, queues: 16, handSize: 1, queueLengthLimit: 100 }, clock);
  // Two flows whose hands (of one) are different queues.
  const heavy = hashFlowId('fs', 'heavy');
  let light = 0n;
  for (let i = 0; ; i++) {
    light = hashFlowId('fs', `light${i}`);
    if (new Dealer(16, 1).deal(light)[0] !== new Dealer(16, 1).deal(heavy)[0]) break;
  }
  const order: string[] = [];
  const running: { finish(): void }[] = [];
  const submit = (hash: bigint, who: string) =>
    void qs.enqueue(hash, desc('fs', who), 60_000).then((o) => {
      if ('admitted' in o) {
        order.push(who);
        running.push(o.admitted);
      }
    });
  for (let i = 0; i < 40; i++) submit(heavy, 'heavy');
  await flush();
  // Serve a few heavy requests, then the light flow arrives behind 30-odd heavy ones.
  for (let i = 0; i < 4; i++) {
    clock.advance(10);
    running.shift()!.finish();
    await flush();
  }
  submit(light, 'light');
  await flush();
  for (let i = 0; i < 4; i++) {
    clock.advance(10);
    running.shift()!.finish();
    await flush();
  }
  const lightAt = order.indexOf('light');
  assert.ok(lightAt >= 0 && lightAt <= order.length, `the light request ran (order: ${order.join(',')})`);
  assert.ok(lightAt <= 7, `the light request ran within two dispatches of arriving, not after the backlog (position ${lightAt})`);
});

test('shuffle sharding: hands are distinct, in range, spread evenly; too much entropy is refused', () => {
  const dealer = new Dealer(128, 6);
  const counts = new Array<number>(128).fill(0);
  for (let i = 0; i < 20_000; i++) {
    const hand = dealer.deal(hashFlowId('global-default', `user-${i}`));
    assert.is(new Set(hand).size, 6);
    for (const c of hand) {
      assert.ok(c >= 0 && c < 128);
      counts[c]!++;
    }
  }
  const mean = (20_000 * 6) / 128;
  assert.ok(Math.min(...counts) > mean * 0.8 && Math.max(...counts) < mean * 1.2, `every card is dealt about as often: ${Math.min(...counts)}..${Math.max(...counts)} around ${mean}`);
  assert.equal(new Dealer(4, 4).deal(0n).sort(), [0, 1, 2, 3]);
  assert.equal(dealer.deal(hashFlowId('a', 'b')), dealer.deal(hashFlowId('a', 'b')), 'a flow always gets the same hand');
  assert.throws(() => new Dealer(1 << 20, 4), /entropy/);
});

test('the dumps are laid out as Go\'s tabwriter does; the bootstrap ensurer\'s update rule', () => {
  assert.is(tabwrite([['a,', 'bb'], ['cccccccccc,', 'd']]), 'a,          bb\ncccccccccc, d\n');
  assert.is(
    dumpPriorityLevels([{ name: 'exempt', quiescing: false, executing: 0, waiting: 0 }, { name: 'workload-low', quiescing: false, executing: 2, waiting: 1, queues: [{ index: 0, executing: 2, virtualStart: 0, waiting: [{ flowSchema: 'x', distinguisher: 'y', arrivedAt: 0 }] }] }]),
    'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests\n' +
      'exempt,            <none>,       <none>, <none>,      <none>,          <none>\n' +
      'workload-low,      1,            false,  false,       1,               2\n',
  );
  const meta = (annotations: Record<string, string> | undefined, generation: number) => ({ metadata: { name: 'x', generation, ...(annotations ? { annotations } : {}) } });
  assert.ok(shouldUpdateSpec(meta({ 'apf.svc.io/autoupdate-spec': 'false' }, 1), true), 'mandatory objects always');
  assert.not.ok(shouldUpdateSpec(meta({ 'apf.svc.io/autoupdate-spec': 'false' }, 1), false));
  assert.ok(shouldUpdateSpec(meta({ 'apf.svc.io/autoupdate-spec': 'true' }, 7), false));
  assert.ok(shouldUpdateSpec(meta(undefined, 1), false), 'never changed');
  assert.not.ok(shouldUpdateSpec(meta(undefined, 2), false), 'changed by someone, no annotation');
});

test.run();
