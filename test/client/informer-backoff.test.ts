// Failed list/watch attempts are retried after a back-off on the injected clock: 800 ms doubling to 30 s.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import type { InformerEvent } from '../../src/client/informer-types.js';
import { watch$ } from '../../src/client/reflector.js';
import { resources } from '../../src/client/typed.js';
import { startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, observedClient } from '../helpers/client.js';
import { advance } from '../helpers/sim.js';

test('lists against a stopped server are retried after 800, 1600, 3200 ms ... capped at 30 s, never sooner', async () => {
  const server = await startApiServer();
  const { client, close } = clientFor(server, { retry: { maxAttempts: 1 } });
  await server.stop(); // nobody listens on the port now: every list fails with ECONNREFUSED
  const clock = new SimulatedClock();
  const seen = observedClient(client);
  const events: InformerEvent[] = [];
  const sub = watch$(seen.client, resources.configmaps, {}, { clock }).subscribe((e) => events.push(e));
  try {
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 30));
    };
    await eventually(() => seen.calls.list === 1, 5000, 'the first list');
    await settle();
    const gaps = [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000];
    for (const [k, gap] of gaps.entries()) {
      await advance(clock, gap - 1, gap - 1, settle);
      assert.is(seen.calls.list, k + 1, `no retry before ${gap} ms`);
      await advance(clock, 1, 1, settle);
      await eventually(() => seen.calls.list === k + 2, 5000, `retry ${k + 1}`);
      await settle();
    }
    assert.equal(events, []);
  } finally {
    sub.unsubscribe();
    await close();
    server.cleanup();
  }
});

test.run();
