// --controller-start-interval: with it, the hosted controllers start one after the other, that far
// apart; without it, together.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startHostedControllers } from '../../src/cli/hosted-controllers.js';
import { connectInProcess } from '../../src/cli/in-process-client.js';
import { createInformerFactory, resources } from '../../src/client/index.js';
import { defineController, done } from '../../src/runtime/index.js';
import { startInProcessApiServer } from '../helpers/in-process-apiserver.js';

async function startTimes(intervalMs: number): Promise<number[]> {
  const api = await startInProcessApiServer();
  const conn = connectInProcess(api.server);
  const informers = createInformerFactory(conn.client);
  const defs = ['first', 'second', 'third'].map((name) => defineController({ name, watches: resources.configmaps, reconcile: () => done() }));
  const t0 = Date.now();
  const hosted = startHostedControllers({
    definitions: defs,
    client: conn.client,
    informers,
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    leaderElection: { enabled: false },
    minResyncPeriodMs: 0,
    startIntervalMs: intervalMs,
    onLost: () => {},
  });
  const times = await Promise.all(
    hosted.controllers.map(
      (c) =>
        new Promise<number>((resolve) => {
          const check = () => c.actor.getSnapshot().value !== 'waitingForLeader' && (resolve(Date.now() - t0), true);
          if (!check()) {
            const sub = c.actor.subscribe(() => check() && sub.unsubscribe());
          }
        }),
    ),
  );
  await hosted.shutdown();
  await conn.close();
  await api.stop();
  return times;
}

test('with an interval of 300 ms, controller i leaves waitingForLeader about i x 300 ms after the first', async () => {
  const [a, b, c] = await startTimes(300);
  assert.ok(b! - a! >= 280, `second after ${b! - a!} ms`);
  assert.ok(c! - a! >= 580, `third after ${c! - a!} ms`);
});

test('without one, all start at once', async () => {
  const [a, , c] = await startTimes(0);
  assert.ok(c! - a! < 200, `third after ${c! - a!} ms`);
});

test.run();
