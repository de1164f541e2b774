// Controller machine: at most `concurrency` reconciles at once, never two of one key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { controllerMachine } from '../../machines/controller.js';
import { done, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { WorkQueue } from '../../src/runtime/work-queue.js';
import { cm, dataSource } from '../helpers/data-source.js';
import { capturedLogger, flush } from '../helpers/sim.js';

for (const concurrency of [1, 3, 5]) {
  test(`concurrency ${concurrency}: at most ${concurrency} reconciles run at once, and never the same key twice`, async () => {
    const clock = new SimulatedClock();
    const queue = new WorkQueue({ name: 'conc', clock });
    const source = dataSource(Array.from({ length: 10 }, (_, i) => cm(`o${i}`)));
    const running = new Set<string>();
    let peak = 0;
    let overlap = 0;
    let total = 0;
    const actor = createActor(controllerMachine, {
      clock,
      input: {
        name: 'conc',
        queue,
        sources: [source],
        concurrency,
        logger: capturedLogger().logger,
        needsLeader: false,
        reconcile: async (key): Promise<ReconcileOutcome> => {
          if (running.has(key)) overlap++;
          running.add(key);
          peak = Math.max(peak, running.size);
          total++;
          await flush(2);
          // Changes arrive mid-reconcile: the key must wait for this one to finish.
          if (total < 40) source.put(cm(key.split('/')[1]!));
          running.delete(key);
          return done();
        },
      },
    });
    actor.start();
    source.markSynced();
    for (let i = 0; i < 200 && (queue.length > 0 || queue.inFlight > 0); i++) await flush(1);
    assert.is(overlap, 0);
    assert.is(peak, concurrency);
    assert.ok(total >= 40);
    actor.send({ type: 'STOP' });
    await flush();
    assert.is(actor.getSnapshot().value, 'stopped');
  });
}

test.run();
