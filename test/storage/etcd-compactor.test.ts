/**
 * The compactor against a real etcd: each tick compacts to the revision seen at the previous tick,
 * so at least one interval of history stays readable; interval 0 disables it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCompactor, type HousekeepingTimers } from '../../src/storage/compactor.js';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { CompactedError } from '../../src/storage/types.js';
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

/** Timers that only fire when the test says so. */
function manualTimers(): HousekeepingTimers & { pending: number } {
  const due = new Set<unknown>();
  return {
    setTimeout(fn) {
      const h = { fn };
      due.add(h);
      return h;
    },
    clearTimeout(h) {
      due.delete(h);
    },
    get pending() {
      return due.size;
    },
  };
}

test('each tick compacts to the revision observed at the previous tick', async () => {
  const p = uniquePrefix('compactor');
  const a = await store.create(`${p}a`, bytes('1'));
  const compacted: number[] = [];
  const timers = manualTimers();
  const c = startCompactor(store, 60_000, { timers, onCompacted: (r) => compacted.push(r) });
  try {
    await c.ready; // first tick: records a.modRevision, compacts nothing
    assert.equal(compacted, []);
    assert.is(timers.pending, 1, 'next tick scheduled');
    const b = await store.update(`${p}a`, bytes('2'), a.modRevision);
    await c.tick();
    assert.equal(compacted, [a.modRevision]);
    assert.is(await store.compactedRevision(), a.modRevision);
    const e = await store.get(`${p}a`, a.modRevision - 1).catch((err: unknown) => err);
    assert.instance(e, CompactedError);
    assert.is((await store.get(`${p}a`, a.modRevision))?.modRevision, a.modRevision, 'the interval before the tick is kept');
    const cRec = await store.update(`${p}a`, bytes('3'), b.modRevision);
    await c.tick();
    assert.equal(compacted, [a.modRevision, b.modRevision]);
    assert.is(await store.compactedRevision(), b.modRevision);
    assert.is((await store.get(`${p}a`, b.modRevision))?.modRevision, b.modRevision);
    assert.ok(cRec.modRevision > b.modRevision);
  } finally {
    c.stop();
  }
});

test('with a short real interval, compaction advances but never past the revision of one interval ago', async () => {
  const p = uniquePrefix('compactor-real');
  const intervalMs = 250;
  const before = await store.compactedRevision();
  const samples: { at: number; rev: number }[] = [];
  const c = startCompactor(store, intervalMs);
  try {
    const until = Date.now() + 6 * intervalMs;
    let i = 0;
    while (Date.now() < until) {
      const r = await store.create(`${p}${i++}`, bytes('x'));
      samples.push({ at: Date.now(), rev: r.modRevision });
      await sleep(10);
    }
    const now = Date.now();
    const compacted = await store.compactedRevision();
    assert.ok(compacted > before, `compaction advanced (${before} -> ${compacted})`);
    const oneIntervalAgo = samples.filter((s) => s.at <= now - intervalMs).pop()!;
    assert.ok(compacted <= oneIntervalAgo.rev, `compacted ${compacted} keeps the last interval (rev ${oneIntervalAgo.rev} at -${now - oneIntervalAgo.at} ms)`);
    const list = await store.list(p, { revision: oneIntervalAgo.rev });
    assert.ok(list.items.length > 0);
  } finally {
    c.stop();
  }
});

test('interval 0 disables compaction', async () => {
  const p = uniquePrefix('compactor-off');
  const before = await store.compactedRevision();
  const c = startCompactor(store, 0);
  for (let i = 0; i < 5; i++) await store.create(`${p}${i}`, bytes('x'));
  await c.tick();
  await sleep(200);
  c.stop();
  assert.is(await store.compactedRevision(), before);
});

test.run();
