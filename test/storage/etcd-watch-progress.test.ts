/**
 * Watch progress on etcd: a quiet watch learns the store's revision from etcd's progress
 * notifications (writes under other prefixes), and progress never runs ahead of undelivered events.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEtcdStore, progressRequestsAreOrdered, type EtcdStore } from '../../src/storage/etcd.js';
import { prefixRange } from '../../src/storage/etcd-watch.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, recordWatch, sleep, uniquePrefix } from './contract.js';

let etcd: RunningEtcd;
let store: EtcdStore;

test.before(async () => {
  etcd = await startEtcd({ progressNotifyInterval: '300ms' });
  store = await openEtcdStore({ endpoints: [etcd.endpoint] });
});
test.after(async () => {
  await store?.close();
  await etcd?.stop();
});

test('a quiet watch gets progress notifications carrying revisions written elsewhere', async () => {
  const quiet = uniquePrefix('quiet');
  const busy = uniquePrefix('busy');
  const w = recordWatch(store, quiet, await store.currentRevision());
  try {
    let last = 0;
    for (let i = 0; i < 5; i++) last = (await store.create(`${busy}${i}`, bytes('x'))).modRevision;
    const deadline = Date.now() + 5000;
    while (!w.progress.some((r) => r >= last) && Date.now() < deadline) await sleep(50);
    assert.ok(w.progress.some((r) => r >= last), `progress reached ${last}: ${w.progress.join(',')}`);
    assert.is(w.events.length, 0);
  } finally {
    w.close();
  }
});

test('progress and events arrive in one order: no event follows a progress at or past its revision', async () => {
  const p = uniquePrefix('ordered');
  const other = uniquePrefix('other');
  const log: { kind: 'event' | 'progress'; rev: number }[] = [];
  const h = store.watch(p, await store.currentRevision(), {
    onEvents: (evs) => evs.forEach((e) => log.push({ kind: 'event', rev: e.modRevision })),
    onProgress: (rev) => log.push({ kind: 'progress', rev }),
    onError: (err) => {
      throw err;
    },
  });
  try {
    const written: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) {
        written.push((await store.create(`${p}${round}-${i}`, bytes('x'))).modRevision);
        await store.create(`${other}${round}-${i}`, bytes('x'));
      }
      // Quiet until a progress notification arrives (etcd sends one only on a ticker that found the
      // watch idle, so a fixed sleep is not enough on a loaded machine).
      const seen = log.length;
      const deadline = Date.now() + 5000;
      while (!log.slice(seen).some((l) => l.kind === 'progress') && Date.now() < deadline) await sleep(50);
    }
    const events = log.filter((l) => l.kind === 'event').map((l) => l.rev);
    assert.equal(events, written, 'every event once, in order');
    assert.ok(log.some((l) => l.kind === 'progress'), 'progress arrived between rounds');
    let progressSoFar = 0;
    for (const entry of log) {
      if (entry.kind === 'progress') progressSoFar = Math.max(progressSoFar, entry.rev);
      else assert.ok(entry.rev > progressSoFar, `event ${entry.rev} after progress ${progressSoFar}`);
    }
  } finally {
    h.close();
  }
});

test('progress requests are only used on etcd versions that order them with events', () => {
  assert.is(progressRequestsAreOrdered('3.4.23'), false);
  assert.is(progressRequestsAreOrdered('3.4.24'), true);
  assert.is(progressRequestsAreOrdered('3.5.7'), false);
  assert.is(progressRequestsAreOrdered('3.5.8'), true);
  assert.is(progressRequestsAreOrdered('3.6.0'), true);
  assert.is(progressRequestsAreOrdered('garbage'), false);
});

test('a prefix maps to the etcd byte range of exactly the keys that start with it', () => {
  assert.equal(prefixRange('/a/'), { key: Buffer.from('/a/'), rangeEnd: Buffer.from('/a0') });
  assert.equal(prefixRange(''), { key: Buffer.from([0]), rangeEnd: Buffer.from([0]) });
  assert.equal(prefixRange('a\u00ff'), { key: Buffer.from('a\u00ff'), rangeEnd: Buffer.from([0x61, 0xc3, 0xc0]) });
});

test.run();
