// Work-queue rule: keys are deduplicated and handed out in the order they were first added.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { WorkQueue } from '../../src/runtime/work-queue.js';

test('a key added many times while queued is handed out once', () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  for (let i = 0; i < 5; i++) q.add('a');
  q.add('b');
  q.add('a');
  assert.is(q.length, 2);
  assert.is(q.tryGet(), 'a');
  assert.is(q.tryGet(), 'b');
  assert.is(q.tryGet(), undefined);
});

test('keys come out in first-added order', () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  for (const k of ['c', 'a', 'b', 'a', 'c']) q.add(k);
  assert.equal([q.tryGet(), q.tryGet(), q.tryGet()], ['c', 'a', 'b']);
});

test('a waiting get is served by the next add, waiting gets in the order they asked', async () => {
  const q = new WorkQueue({ name: 't', clock: new SimulatedClock() });
  const first = q.get();
  const second = q.get();
  q.add('x');
  q.add('y');
  assert.equal(await Promise.all([first, second]), ['x', 'y']);
});

test.run();
