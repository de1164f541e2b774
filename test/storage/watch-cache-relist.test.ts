import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KVStore, WatchCallbacks, WatchHandle } from '../../src/storage/types.js';
import { CompactedError, StorageUnavailableError } from '../../src/storage/types.js';
import { collectCacheWatch, configMap, openTempStore, sleep, startCache, until } from './embedded-fixture.js';

/**
 * The real store, with one fault switch: `breakWatches()` ends every open watch with an error the
 * way a lost engine connection does. Everything else goes straight to the real engine.
 */
function breakable(store: KVStore) {
  const open = new Set<{ inner: WatchHandle; cb: WatchCallbacks }>();
  let lists = 0;
  const wrapped: KVStore = Object.create(store) as KVStore;
  Object.assign(wrapped, {
    list: (...args: Parameters<KVStore['list']>) => {
      lists++;
      return store.list(...args);
    },
    watch: (prefix: string, after: number, cb: WatchCallbacks): WatchHandle => {
      const entry = { inner: store.watch(prefix, after, cb), cb };
      open.add(entry);
      return { close: () => (open.delete(entry), entry.inner.close()) };
    },
  });
  return {
    store: wrapped,
    lists: () => lists,
    breakWatches(err: Error) {
      for (const e of open) {
        e.inner.close();
        e.cb.onError(err);
      }
      open.clear();
    },
  };
}

test('when the store watch breaks, watchers get CompactedError and the cache re-lists and re-watches', async () => {
  const t = openTempStore();
  const fault = breakable(t.store);
  try {
    await t.store.create('/cm/a', configMap('a'));
    const cache = await startCache(fault.store, '/cm/');
    const w = collectCacheWatch(cache, cache.revision);
    const listsBefore = fault.lists();
    fault.breakWatches(new StorageUnavailableError('connection lost'));
    await until(() => w.errors.length === 1);
    assert.instance(w.errors[0], CompactedError, 'clients are told to re-list (410)');
    // Changes made while the watch was down are picked up by the re-list.
    await t.store.create('/cm/b', configMap('b'));
    await t.store.delete('/cm/a');
    await until(() => fault.lists() > listsBefore);
    const rev = await t.store.currentRevision();
    assert.ok(await cache.waitForRevision(rev, 2000));
    assert.equal(cache.list().items.map((i) => i.key), ['/cm/b']);
    // A new watcher works on the new store watch.
    const w2 = collectCacheWatch(cache, cache.revision);
    await t.store.create('/cm/c', configMap('c'));
    await until(() => w2.events.length === 1);
    assert.is(w2.events[0]!.key, '/cm/c');
    await sleep(10);
    assert.is(w.events.length, 0, 'the failed watcher got nothing after its error');
    w2.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
