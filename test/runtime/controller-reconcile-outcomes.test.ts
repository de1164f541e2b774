// Controller machine: named reconcile outcomes, errors retried with back-off (logged with the key),
// terminal errors not retried.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { controllerMachine, type ControllerMachineInput } from '../../machines/controller.js';
import { done, requeue, requeueAfter, TerminalError } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import { cm, dataSource } from '../helpers/data-source.js';
import { capturedLogger, flush } from '../helpers/sim.js';

function run(reconcile: ControllerMachineInput['reconcile']) {
  const clock = new SimulatedClock();
  const queue = new WorkQueue({ name: 'outcomes', clock });
  const source = dataSource([cm('a')]);
  const { logger, records } = capturedLogger();
  const actor = createActor(controllerMachine, {
    clock,
    input: { name: 'outcomes', queue, sources: [source], concurrency: 1, logger, needsLeader: false, minResyncPeriodMs: 0, reconcile },
  });
  actor.start();
  source.markSynced();
  return { clock, queue, records, actor };
}

/** Steps the clock 1 ms at a time for `ms`, settling promises in between. */
async function step(clock: SimulatedClock, ms: number) {
  for (let i = 0; i < ms; i++) {
    clock.increment(1);
    await flush(1);
  }
}

test('a throwing reconcile is caught, logged with the key and retried at 5, 10, 20 ms', async () => {
  const times: number[] = [];
  const { clock, records, queue } = run(() => {
    times.push(clock.now());
    if (times.length <= 3) throw new Error('boom');
    return done();
  });
  await flush();
  await step(clock, 40);
  assert.equal(times, [0, 5, 15, 35]);
  const errs = records.filter((r) => r['msg'] === 'reconcile failed; retrying with back-off');
  assert.is(errs.length, 3);
  assert.is(errs[0]!['key'], 'default/a');
  assert.match(String((errs[0]!['err'] as { message: string }).message), 'boom');
  assert.is(queue.numRequeues('default/a'), 0, 'success forgets the back-off');
});

test('a TerminalError is logged and not retried', async () => {
  let calls = 0;
  const { clock, records } = run(() => {
    calls++;
    throw new TerminalError('spec is invalid');
  });
  await flush();
  await step(clock, 2000);
  assert.is(calls, 1);
  assert.ok(records.some((r) => r['msg'] === 'reconcile failed with a terminal error; not retrying' && r['key'] === 'default/a'));
});

test('requeueAfter(ms) reconciles again after exactly ms', async () => {
  const times: number[] = [];
  const { clock } = run(() => {
    times.push(clock.now());
    return times.length === 1 ? requeueAfter(250) : done();
  });
  await flush();
  await step(clock, 300);
  assert.equal(times, [0, 250]);
});

test('requeue() backs off like a failure but logs nothing', async () => {
  const times: number[] = [];
  const { clock, records } = run(() => {
    times.push(clock.now());
    return times.length <= 2 ? requeue() : done();
  });
  await flush();
  await step(clock, 20);
  assert.equal(times, [0, 5, 15]);
  assert.is(records.filter((r) => r['level'] === 50).length, 0);
});

test('requeueAfter rejects a negative delay', () => {
  assert.throws(() => requeueAfter(-1), /finite number >= 0/);
});

test.run();
