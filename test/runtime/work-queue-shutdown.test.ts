// Work-queue rule: shutdown stops handing out keys and drains the in-flight ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { WorkQueue } from '../../src/runtime/work-queue.js';

test('waiting gets resolve undefined on shutdown', async () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  const g = q.get();
  q.shutDown();
  assert.is(await g, undefined);
  assert.is(await q.get(), undefined);
});

test('after shutdown adds, delays and queued keys are dropped', () => {
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 't', clock });
  q.add('queued');
  q.addAfter('delayed', 10);
  q.shutDown();
  q.add('late');
  clock.increment(100);
  assert.is(q.length, 0);
  assert.is(q.tryGet(), undefined);
});

test('drained resolves only once every in-flight key is done', async () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  q.add('a');
  q.add('b');
  q.tryGet();
  q.tryGet();
  q.shutDown();
  let drained = false;
  const d = q.drained().then(() => (drained = true));
  q.done('a');
  await new Promise((r) => setImmediate(r));
  assert.is(drained, false);
  q.done('b');
  await d;
  assert.is(drained, true);
});

test('drained resolves at once when nothing is in flight', async () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  q.shutDown();
  await q.drained();
});

test.run();
