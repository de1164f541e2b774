import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CompactedError, type KVRecord, type KVStore } from '../../src/storage/types.js';
import type { WatchCache } from '../../src/storage/watch-cache.js';
import { collectCacheWatch, configMap, decodeObject, openTempStore, startCache, until } from './embedded-fixture.js';

/** Creates `/cm/a` and updates it `updates` times; resolves with its last record once the cache has it. */
async function createAndUpdate(store: KVStore, cache: WatchCache, updates: number): Promise<KVRecord> {
  let rec = await store.create('/cm/a', configMap('a'));
  for (let i = 0; i < updates; i++) rec = await store.update('/cm/a', configMap('a', 'default', { i: String(i) }), rec.modRevision);
  assert.ok(await cache.waitForRevision(rec.modRevision, 1000));
  return rec;
}

test('a watch older than the in-memory window is served by the store, with the same event shapes', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/', { capacity: 3, historyWindowMs: 0, maxEvents: 3 });
    const start = cache.revision;
    await createAndUpdate(store, cache, 10);
    await store.delete('/cm/a');
    const end = await store.currentRevision();
    assert.ok(await cache.waitForRevision(end, 1000));
    assert.ok(cache.oldestRevision() > start, `window moved on (${cache.oldestRevision()} > ${start})`);
    const w = collectCacheWatch(cache, start);
    await until(() => w.events.length === 12);
    assert.equal(w.events.map((e) => e.revision), Array.from({ length: 12 }, (_, i) => start + 1 + i));
    assert.equal(w.events.map((e) => e.type), ['ADDED', ...Array<string>(10).fill('MODIFIED'), 'DELETED']);
    assert.is(w.events[1]!.prevObject!.metadata.resourceVersion, String(start + 1));
    assert.is(w.events[11]!.object.metadata.resourceVersion, String(end));
    assert.equal(w.events[11]!.object.data, { i: '9' });
    // Live changes keep coming through the same (store) watch.
    await store.create('/cm/b', configMap('b'));
    await until(() => w.events.length === 13);
    assert.is(w.errors.length, 0);
    w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('only a watcher served from memory with nothing queued is caught up: one served by the store (started before the window) never claims the cache revision', async () => {
  // The watch handler sends a bookmark at the cache's revision only for a caught-up watcher: a watch
  // resumed from before the window (every watch resumed after a restart) once got bookmarks at the
  // cache's revision while its store watch was still replaying older history, and a client that
  // resumed from such a bookmark skipped the changes in between (seen with etcd under load).
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/', { capacity: 3, historyWindowMs: 0, maxEvents: 3 });
    const start = cache.revision;
    await createAndUpdate(store, cache, 10);
    assert.ok(cache.oldestRevision() > start);
    const direct = collectCacheWatch(cache, start);
    const memory = collectCacheWatch(cache, cache.revision - 1);
    assert.not.ok(direct.handle.caughtUp(), 'a store-served watcher is not caught up, even before its first event');
    assert.not.ok(memory.handle.caughtUp(), 'the replay of the last event is still queued');
    await until(() => direct.events.length === 11 && memory.events.length === 1);
    assert.ok(memory.handle.caughtUp(), 'served from memory, nothing queued');
    // Its replay delivered, the store-served watcher has reached the window and rejoined the cache.
    await until(() => direct.handle.caughtUp());
    memory.handle.close();
    assert.not.ok(memory.handle.caughtUp(), 'a closed watcher is not caught up');
    direct.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watcher served by the store rejoins the cache once it reaches the window: every change once, in order, no longer decoded for it alone', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    let decodes = 0;
    const cache = await startCache(store, '/cm/', {
      capacity: 3,
      historyWindowMs: 0,
      maxEvents: 3,
      decode: (value, rev) => {
        decodes++;
        return decodeObject(value, rev);
      },
    });
    const start = cache.revision;
    let rec = await createAndUpdate(store, cache, 10);
    assert.ok(cache.oldestRevision() > start);
    const w = collectCacheWatch(cache, start);
    assert.not.ok(w.handle.caughtUp(), 'replaying from the store');
    await until(() => w.events.length === 11 && w.handle.caughtUp());
    // Live changes now come from the cache: one decode each for the cache, none for this watcher.
    const before = decodes;
    for (let i = 0; i < 20; i++) rec = await store.update('/cm/a', configMap('a', 'default', { j: String(i) }), rec.modRevision);
    await store.create('/cm/b', configMap('b'));
    const end = await store.currentRevision();
    await until(() => w.events.length === 32);
    assert.is(decodes - before, 21, 'only the cache decoded the live changes');
    assert.equal(w.events.map((e) => e.revision), Array.from({ length: 32 }, (_, i) => start + 1 + i));
    assert.is(w.events[31]!.revision, end);
    assert.is(w.errors.length, 0);
    assert.ok(w.handle.caughtUp());
    w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('changes committed while a store-served watcher rejoins reach it exactly once', async () => {
  // Writes race the rejoin: some land in the store watch's replay, some in the cache's history, some
  // live. The watcher must see each exactly once, in order.
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/', { capacity: 5, historyWindowMs: 0, maxEvents: 5 });
    const start = cache.revision;
    await createAndUpdate(store, cache, 20);
    const watchers = [];
    const writes: Promise<unknown>[] = [];
    for (let k = 0; k < 8; k++) {
      watchers.push(collectCacheWatch(cache, start + k));
      writes.push(store.create(`/cm/w${k}`, configMap(`w${k}`)));
    }
    await Promise.all(writes);
    const end = await store.currentRevision();
    for (const [k, w] of watchers.entries()) {
      await until(() => w.events.length === end - start - k && w.handle.caughtUp());
      assert.equal(w.events.map((e) => e.revision), Array.from({ length: end - start - k }, (_, i) => start + k + 1 + i), `watcher ${k}`);
      assert.is(w.errors.length, 0);
      w.handle.close();
    }
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watch fails with CompactedError only when the store compacted its history', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/', { capacity: 1000 });
    const start = cache.revision;
    let rec = await store.create('/cm/a', configMap('a'));
    for (let i = 0; i < 5; i++) rec = await store.update('/cm/a', configMap('a', 'default', { i: String(i) }), rec.modRevision);
    const end = await store.currentRevision();
    await store.compact(end);
    assert.ok(await cache.waitForRevision(end, 1000));
    // Still inside the cache's window: served from memory although the store compacted it.
    const inWindow = collectCacheWatch(cache, start + 1);
    await until(() => inWindow.events.length === 5);
    assert.is(inWindow.errors.length, 0);
    inWindow.handle.close();
    cache.stop();

    // A fresh cache's window starts at its list: older watches go to the store, which has compacted.
    const fresh = await startCache(store, '/cm/');
    const tooOld = collectCacheWatch(fresh, start + 1);
    await until(() => tooOld.errors.length === 1);
    assert.instance(tooOld.errors[0], CompactedError);
    assert.is((tooOld.errors[0] as CompactedError).compacted, end);
    fresh.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
