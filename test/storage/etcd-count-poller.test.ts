/** The object-count poller (--kvstore-count-metric-poll-period) against a real etcd. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCountPoller } from '../../src/storage/compactor.js';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { eventually } from '../helpers/client.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, sleep, uniquePrefix } from './contract.js';

let etcd: RunningEtcd;
let store: EtcdStore;

test.before(async () => {
  etcd = await startEtcd();
  store = await openEtcdStore({ endpoints: [etcd.endpoint] });
});
test.after(async () => {
  await store?.close();
  await etcd?.stop();
});

test('each poll reports the live object count per resource, following creates and deletes', async () => {
  const pods = uniquePrefix('pods');
  const cms = uniquePrefix('configmaps');
  for (let i = 0; i < 3; i++) await store.create(`${pods}ns/p${i}`, bytes('x'));
  await store.create(`${cms}ns/c`, bytes('x'));
  const seen: Record<string, number>[] = [];
  const latest: Record<string, number> = {};
  const pollers = [
    startCountPoller(store, pods, 100, (n) => {
      latest.pods = n;
      seen.push({ ...latest });
    }),
    startCountPoller(store, cms, 100, (n) => {
      latest.configmaps = n;
      seen.push({ ...latest });
    }),
  ];
  const poller = { stop: () => pollers.forEach((x) => x.stop()) };
  try {
    await Promise.all(pollers.map((x) => x.ready));
    assert.equal(latest, { pods: 3, configmaps: 1 });
    await store.delete(`${pods}ns/p0`);
    await store.create(`${cms}ns/d`, bytes('x'));
    const n = seen.length;
    // Two pollers at 100 ms: 4 polls take about 200 ms; a loaded machine may stall a few hundred ms,
    // a poller that missed its period would take seconds.
    const started = Date.now();
    await eventually(() => seen.length >= n + 4, 5_000, '4 polls');
    const took = Date.now() - started;
    assert.ok(took < 2_000, `polled every period (${seen.length - n} polls in ${took} ms)`);
    await eventually(() => latest.pods === 2 && latest.configmaps === 2, 5_000 - (Date.now() - started), 'the new counts').catch(() => undefined);
    assert.equal(latest, { pods: 2, configmaps: 2 });
  } finally {
    poller.stop();
  }
  const after = seen.length;
  await sleep(250);
  assert.is(seen.length, after, 'no polls after stop');
});

test('a failing count is reported as -1 and polling goes on', async () => {
  const broken = await openEtcdStore({ endpoints: [etcd.endpoint] });
  await broken.close(); // every call now fails
  const seen: number[] = [];
  const poller = startCountPoller(broken, '/x/', 50, (c) => seen.push(c));
  await poller.ready;
  await sleep(120);
  poller.stop();
  assert.ok(seen.length >= 2);
  assert.is(seen[0], -1);
});

test('period 0 disables polling', async () => {
  const seen: unknown[] = [];
  const poller = startCountPoller(store, '/', 0, (c) => seen.push(c));
  await poller.ready;
  await sleep(100);
  poller.stop();
  assert.is(seen.length, 0);
});

test.run();
