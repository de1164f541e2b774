// docs/runtime.md's examples: the doc shows the files verbatim, and each of them runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { copyController } from '../../docs/examples/runtime/copy-controller.js';
import { runWhileLeading } from '../../docs/examples/runtime/leader-elected.js';
import { pollerMachine } from '../../docs/examples/runtime/poller-machine.js';
import { workQueueBasics } from '../../docs/examples/runtime/work-queue-basics.js';
import { createInformerFactory } from '../../src/client/index.js';
import { done, WorkQueue } from '../../src/runtime/index.js';
import { ROOT, startApiServer } from '../helpers/apiserver.js';
import { realClient } from '../helpers/real-client.js';
import { capturedLogger, flush } from '../helpers/sim.js';

const EXAMPLES = ['work-queue-basics.ts', 'copy-controller.ts', 'poller-machine.ts', 'leader-elected.ts'];

test('docs/runtime.md shows every example file verbatim', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'runtime.md'), 'utf8');
  for (const f of EXAMPLES) {
    const src = readFileSync(join(ROOT, 'docs', 'examples', 'runtime', f), 'utf8').trimEnd();
    assert.ok(doc.includes(src), `${f} is out of date in docs/runtime.md`);
  }
});

test('work-queue-basics prints what its comments say', () => {
  assert.equal(workQueueBasics(), ['queued: 1', 'while processing: nothing', 'after done: default/a', 'after 4 ms: 0', 'after 5 ms: 1']);
});

test('poller-machine polls every period, pauses, resumes and drains on STOP', async () => {
  const clock = new SimulatedClock();
  const queue = new WorkQueue({ name: 'poller', clock });
  const seen: string[] = [];
  const actor = createActor(pollerMachine, {
    clock,
    input: { queue, keys: ['a', 'b'], periodMs: 1000, workers: 2, logger: capturedLogger().logger, reconcile: (k) => (seen.push(k), done()) },
  });
  actor.start();
  await flush();
  clock.increment(1000);
  await flush();
  assert.is(seen.length, 4);
  actor.send({ type: 'PAUSE' });
  clock.increment(5000);
  await flush();
  assert.is(seen.length, 4);
  actor.send({ type: 'RESUME' });
  await flush();
  assert.is(seen.length, 6);
  actor.send({ type: 'STOP' });
  await flush();
  assert.is(actor.getSnapshot().value, 'stopped');
});

test('leader-elected runs the controller only once it leads, and stops it when leading ends', async () => {
  const server = await startApiServer();
  const conn = realClient(server);
  const informers = createInformerFactory(conn.client);
  let lost = false;
  try {
    const { controller, election } = runWhileLeading(copyController, { client: conn.client, informers, logger: capturedLogger().logger }, () => (lost = true));
    assert.is(controller.actor.getSnapshot().value, 'waitingForLeader');
    for (const deadline = Date.now() + 20_000; !controller.actor.getSnapshot().matches('running'); ) {
      assert.ok(Date.now() < deadline, 'never ran');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(election.isLeader());
    const lease = await server.request('GET', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/configmap-copy');
    assert.is(lease.json.spec.holderIdentity, election.config.identity);
    election.stop();
    assert.is(await controller.finished, 'stopped');
    assert.is(lost, false);
  } finally {
    informers.stop();
    await conn.close();
    await server.stop();
    server.cleanup();
  }
});

test.run();
