/**
 * etcd watches survive an etcd crash (SIGKILL + restart): they resume right after the last event
 * delivered, so nothing is lost or repeated, even when the crash interrupts a history replay.
 * A watch whose etcd stays away longer than its retry budget fails with StorageUnavailableError.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { StorageUnavailableError } from '../../src/storage/types.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, recordWatch, sleep, uniquePrefix } from './contract.js';

let etcd: RunningEtcd;
let store: EtcdStore;

test.before(async () => {
  etcd = await startEtcd();
  store = await openEtcdStore({ endpoints: [etcd.endpoint], logger: undefined });
});
test.after(async () => {
  await store?.close();
  await etcd?.stop();
});

async function createMany(prefix: string, n: number, valueSize = 16): Promise<number[]> {
  const revs: number[] = [];
  const value = bytes('v'.repeat(valueSize));
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < n) {
        const i = next++;
        revs.push((await store.create(`${prefix}${String(i).padStart(5, '0')}`, value)).modRevision);
      }
    }),
  );
  return revs.sort((a, b) => a - b);
}

/** Retries a write until etcd answers again after a restart. */
async function eventually<T>(fn: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

test('a live watch resumes after an etcd crash without losing or repeating events', async () => {
  const p = uniquePrefix('resume-live');
  const w = recordWatch(store, p, await store.currentRevision());
  try {
    const first = await createMany(`${p}a`, 50);
    await w.waitFor(50);
    await etcd.kill();
    const failed = await store.create(`${p}during`, bytes('x')).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(failed, StorageUnavailableError, 'writes while etcd is down fail, typed');
    await etcd.restart();
    const one = await eventually(() => store.create(`${p}b-first`, bytes('x')));
    const rest = await createMany(`${p}b`, 49);
    const all = [...first, one.modRevision, ...rest].sort((a, b) => a - b);
    await w.waitFor(100, 30_000);
    await sleep(200);
    assert.is(w.error, undefined);
    assert.equal(w.events.map((e) => e.modRevision), all);
  } finally {
    w.close();
  }
});

test('a crash in the middle of a history replay neither skips nor repeats history', async () => {
  const p = uniquePrefix('resume-replay');
  const start = await store.currentRevision();
  const revs = await createMany(p, 3000, 512);
  let killed: Promise<void> | undefined;
  const events: number[] = [];
  let error: Error | undefined;
  const h = store.watch(p, start, {
    onEvents(batch) {
      events.push(...batch.map((e) => e.modRevision));
      // crash etcd as soon as the first catch-up batch arrived (etcd sends at most 1000 per batch)
      killed ??= etcd.kill();
    },
    onError(err) {
      error = err;
    },
  });
  try {
    const deadline = Date.now() + 10_000;
    while (!killed && Date.now() < deadline) await sleep(5);
    assert.ok(killed, 'got a first batch');
    await killed;
    const before = events.length;
    assert.ok(before < 3000, `the crash interrupted the replay (${before} of 3000 delivered)`);
    await etcd.restart();
    const until = Date.now() + 30_000;
    while (events.length < 3000 && !error && Date.now() < until) await sleep(20);
    await sleep(200);
    assert.is(error, undefined);
    assert.is(events.length, 3000);
    assert.equal(events, revs);
  } finally {
    h.close();
  }
});

test('a watch gives up with StorageUnavailableError when etcd stays away beyond its retry budget', async () => {
  const short = await openEtcdStore({ endpoints: [etcd.endpoint], watchRetryBudgetMs: 1500 });
  const p = uniquePrefix('resume-budget');
  const w = recordWatch(short, p, await short.currentRevision());
  try {
    await sleep(200);
    await etcd.kill();
    const err = await w.waitForError(15_000);
    assert.instance(err, StorageUnavailableError);
  } finally {
    w.close();
    await short.close();
    await etcd.restart();
  }
});

test.run();
