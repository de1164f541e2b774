// The fair scheduler of large responses (src/apiserver/fair-streams.ts): round-robin slices, a
// bounded turn with other callbacks served between turns, 'drain' honoured; and the watch backlog's
// end-of-snapshot report that bookmarks wait for (src/apiserver/watch-backlog.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { FairStreamScheduler, streamBody, type StreamedResponse, type StepResult } from '../../src/apiserver/fair-streams.js';
import { WatchBacklog } from '../../src/apiserver/watch-backlog.js';

const turnOf = () => new Promise<void>((r) => setImmediate(r));

test('streams take turns a slice at a time, in the order they were scheduled', async () => {
  const scheduler = new FairStreamScheduler(10, 1_000);
  const order: string[] = [];
  const stream = (name: string, slices: number) => {
    let left = slices;
    return {
      step(budget: number): StepResult {
        assert.is(budget, 10);
        order.push(name);
        return --left > 0 ? 'more' : 'done';
      },
    };
  };
  scheduler.schedule(stream('a', 3));
  scheduler.schedule(stream('b', 1));
  scheduler.schedule(stream('c', 2));
  for (let i = 0; i < 5 && scheduler.size > 0; i++) await turnOf();
  assert.equal(order, ['a', 'b', 'c', 'a', 'c', 'a']);
  assert.is(scheduler.size, 0);
});

test('a turn ends after its time budget and other callbacks run before the next one', async () => {
  const scheduler = new FairStreamScheduler(1, 5);
  let steps = 0;
  const busy = {
    step(): StepResult {
      steps++;
      const until = performance.now() + 2;
      while (performance.now() < until) {
        // work
      }
      return steps < 50 ? 'more' : 'done';
    },
  };
  // Twenty streams scheduled: a turn that ran them all would take 40 ms and 20 steps. Steps are
  // counted between timer callbacks, not timed (a loaded machine stretches wall-clock gaps).
  for (let i = 0; i < 20; i++) scheduler.schedule({ step: () => busy.step() });
  const stepsBetween: number[] = [];
  let seen = 0;
  const timer = setInterval(() => {
    stepsBetween.push(steps - seen);
    seen = steps;
  }, 1);
  while (scheduler.size > 0) await new Promise((r) => setTimeout(r, 5));
  clearInterval(timer);
  assert.ok(steps >= 50, `steps ${steps}`);
  // One turn is at most 5 ms of 2 ms steps: 3 steps, then the (due) timer runs.
  assert.ok(Math.max(...stepsBetween) <= 4, `most steps between two timer callbacks: ${Math.max(...stepsBetween)}`);
  assert.ok(stepsBetween.length > 5, `timer ran ${stepsBetween.length} times while the streams were served`);
});

test('each turn serves the oldest ready streams, a bounded number of them, and a stream keeps its age', async () => {
  const scheduler = new FairStreamScheduler(10, 1_000, 2);
  const order: string[] = [];
  const streams = new Map<string, { step(): StepResult }>();
  const stream = (name: string, answers: StepResult[]) => {
    const s = {
      step(): StepResult {
        order.push(name);
        return answers.shift() ?? 'done';
      },
    };
    streams.set(name, s);
    return s;
  };
  scheduler.schedule(stream('a', ['more', 'blocked', 'done']));
  scheduler.schedule(stream('b', ['more', 'done']));
  scheduler.schedule(stream('c', ['done']));
  await turnOf(); // a, b: the two oldest
  assert.equal(order, ['a', 'b']);
  await turnOf(); // a blocks; b ends
  assert.equal(order, ['a', 'b', 'a', 'b']);
  scheduler.schedule(stream('d', ['done']));
  scheduler.schedule(streams.get('a')!); // a's 'drain': back, and still older than c and d
  await turnOf();
  assert.equal(order, ['a', 'b', 'a', 'b', 'a', 'c']);
  await turnOf();
  assert.equal(order, ['a', 'b', 'a', 'b', 'a', 'c', 'd']);
  assert.is(scheduler.size, 0);
});

test('answers go before older watches, for their share of the turn; watches keep the rest and take whole turns alone', async () => {
  const scheduler = new FairStreamScheduler(1, 10, 64, 0.5);
  const order: string[] = [];
  const busy = (name: string, lane: 'answer' | 'watch', steps: number) => {
    let left = steps;
    return {
      lane,
      step(): StepResult {
        order.push(name);
        const until = performance.now() + 1;
        while (performance.now() < until) {
          // a step's CPU work: 1 ms
        }
        return --left > 0 ? 'more' : 'done';
      },
    };
  };
  // The watches are the oldest streams.
  for (let i = 0; i < 20; i++) scheduler.schedule(busy('w', 'watch', 3));
  for (let i = 0; i < 20; i++) scheduler.schedule(busy('a', 'answer', 1));
  await turnOf();
  const first = order.join('');
  // About 5 ms of answer steps (half of the 10 ms turn), then watches to the end of the turn (at
  // least one, however long the answers took).
  assert.match(first, /^a{1,6}w+$/, first);
  order.length = 0;
  // Once no answer is left, watches have whole turns.
  while (order.filter((n) => n === 'a').length + (first.match(/a/g) ?? []).length < 20) await turnOf();
  order.length = 0;
  await turnOf();
  assert.match(order.join(''), /^w+$/, order.join(''));
  assert.ok(order.length > 3, `a whole turn of watch steps: ${order.join('')}`);
  for (let i = 0; i < 100 && scheduler.size > 0; i++) await turnOf();
  assert.is(scheduler.size, 0);
});

test('scheduling a stream that waits for its turn does not queue it twice; a stream that throws is dropped', async () => {
  const scheduler = new FairStreamScheduler(10, 1_000);
  let calls = 0;
  const s = { step: (): StepResult => (calls++, 'done') };
  scheduler.schedule(s);
  scheduler.schedule(s);
  assert.ok(scheduler.isScheduled(s));
  const bad = {
    step(): StepResult {
      throw new Error('response gone');
    },
  };
  scheduler.schedule(bad);
  await turnOf();
  assert.is(calls, 1);
  assert.is(scheduler.size, 0);
  assert.not.ok(scheduler.isScheduled(s));
});

/** A response that takes `capacity` bytes per 'drain' and records what it got. */
class FakeResponse extends EventEmitter implements StreamedResponse {
  chunks: Buffer[] = [];
  writableEnded = false;
  destroyed = false;
  writesSinceDrain = 0;
  constructor(private readonly capacity: number) {
    super();
  }
  write(chunk: Buffer): boolean {
    assert.not.ok(this.writableEnded, 'write after end');
    assert.ok(this.writesSinceDrain === 0, 'wrote again before drain');
    this.chunks.push(Buffer.from(chunk));
    this.writesSinceDrain++;
    return chunk.length < this.capacity;
  }
  end(chunk?: Buffer): unknown {
    if (chunk) this.chunks.push(chunk);
    this.writableEnded = true;
    return this;
  }
  drain(): void {
    this.writesSinceDrain = 0;
    this.emit('drain');
  }
  override once(event: 'drain' | 'close', listener: () => void): this {
    return super.once(event, listener);
  }
}

test('a streamed body is written whole, in order, a slice at a time, and waits for drain', async () => {
  const scheduler = new FairStreamScheduler(64, 1_000);
  const parts = Array.from({ length: 50 }, (_, i) => Buffer.from(`item-${i};`.repeat(3)));
  const res = new FakeResponse(64);
  streamBody(res, parts, scheduler);
  for (let i = 0; i < 200 && !res.writableEnded; i++) {
    await turnOf();
    if (res.listenerCount('drain') > 0) res.drain();
    else res.writesSinceDrain = 0;
  }
  assert.ok(res.writableEnded);
  assert.is(Buffer.concat(res.chunks).toString(), Buffer.concat(parts).toString());
  assert.ok(res.chunks.every((c) => c.length <= 64), 'no write larger than a slice');
});

test('a streamed body stops when its client goes away', async () => {
  const scheduler = new FairStreamScheduler(16, 1_000);
  const res = new FakeResponse(1_000);
  streamBody(res, [Buffer.alloc(1_000, 1)], scheduler);
  await turnOf();
  const written = res.chunks.length;
  res.writesSinceDrain = 0;
  res.emit('close');
  for (let i = 0; i < 5; i++) await turnOf();
  assert.is(res.chunks.length, written);
  assert.is(scheduler.size, 0);
});

test('the watch backlog reports the end of its snapshot only when a later drain can write', () => {
  const backlog = new WatchBacklog<number, string>([1, 2]);
  const out: string[] = [];
  let budget = 2;
  const canWrite = () => budget-- > 0;
  backlog.drain(canWrite, (i) => out.push(`item ${i}`), (c) => out.push(c), () => out.push('end'));
  // Both items out, no budget left for the end: the snapshot is handed out but its end not reported.
  assert.equal(out, ['item 1', 'item 2']);
  assert.ok(backlog.snapshotDone);
  assert.not.ok(backlog.snapshotEnded);
  assert.not.ok(backlog.drained);
  backlog.push(['change']);
  budget = 10;
  backlog.drain(canWrite, (i) => out.push(`item ${i}`), (c) => out.push(c), () => out.push('end'));
  assert.equal(out, ['item 1', 'item 2', 'end', 'change']);
  assert.ok(backlog.snapshotEnded);
  assert.ok(backlog.drained);
});

test('the watch backlog names the oldest change it still owes (what decides a watch too far behind)', () => {
  const backlog = new WatchBacklog<number, { revision: number }>([1]);
  assert.is(backlog.headChange, undefined);
  backlog.push([{ revision: 5 }, { revision: 6 }]);
  backlog.push([{ revision: 9 }]);
  assert.is(backlog.headChange?.revision, 5, 'the snapshot first: every change is still owed');
  let budget = 3; // the item, the snapshot's end, one change
  backlog.drain(() => budget-- > 0, () => {}, () => {}, () => {});
  assert.is(backlog.headChange?.revision, 6);
  budget = 1;
  backlog.drain(() => budget-- > 0, () => {}, () => {});
  assert.is(backlog.headChange?.revision, 9, 'the next batch once one is handed out');
  backlog.drain(() => true, () => {}, () => {});
  assert.is(backlog.headChange, undefined);
});

test.run();
