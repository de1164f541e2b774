// Controller machine: resync is a delayed transition every [min, 2*min) that re-delivers every
// cached key without touching the API.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { controllerMachine } from '../../machines/controller.js';
import { done } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import { cm, dataSource } from '../helpers/data-source.js';
import { capturedLogger, flush } from '../helpers/sim.js';

function start(minResyncPeriodMs: number, random: () => number) {
  const clock = new SimulatedClock();
  const queue = new WorkQueue({ name: 'resync', clock });
  const source = dataSource([cm('a'), cm('b')]);
  const seen: Array<[number, string]> = [];
  const actor = createActor(controllerMachine, {
    clock,
    input: {
      name: 'resync',
      queue,
      sources: [source],
      concurrency: 1,
      logger: capturedLogger().logger,
      needsLeader: false,
      minResyncPeriodMs,
      random,
      reconcile: (k) => (seen.push([clock.now(), k]), done()),
    },
  });
  actor.start();
  source.markSynced();
  return { actor, clock, seen };
}

test('resync re-delivers every cached key after min * (1 + random) and then again', async () => {
  const { actor, clock, seen } = start(1000, () => 0.5);
  await flush();
  assert.is(seen.length, 2);
  clock.increment(1499);
  await flush();
  assert.is(seen.length, 2);
  clock.increment(1);
  await flush();
  assert.equal(seen.slice(2).map(([t, k]) => [t, k]), [
    [1500, 'default/a'],
    [1500, 'default/b'],
  ]);
  clock.increment(1500);
  await flush();
  assert.is(seen.length, 6);
  assert.is(actor.getSnapshot().context.resyncs, 2);
});

test('the resync delay lies between the period and twice the period', async () => {
  for (const r of [0, 0.999]) {
    const { clock, seen } = start(10_000, () => r);
    await flush();
    const expected = 10_000 * (1 + r);
    clock.increment(Math.floor(expected) - 1);
    await flush();
    assert.is(seen.length, 2);
    clock.increment(1);
    await flush();
    assert.is(seen.length, 4, `resync at ${expected} ms`);
  }
});

test('the default period is 12 h', async () => {
  const { clock, seen } = start(undefined as unknown as number, () => 0);
  await flush();
  clock.increment(12 * 3600_000 - 1);
  await flush();
  assert.is(seen.length, 2);
  clock.increment(1);
  await flush();
  assert.is(seen.length, 4);
});

test('a period of 0 turns resync off', async () => {
  const { clock, seen } = start(0, () => 0);
  await flush();
  clock.increment(48 * 3600_000);
  await flush();
  assert.is(seen.length, 2);
});

test.run();
