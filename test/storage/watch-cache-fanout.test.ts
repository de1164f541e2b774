import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CacheEvent } from '../../src/storage/watch-cache.js';
import { collectCacheWatch, configMap, openTempStore, sleep, startCache, until } from './embedded-fixture.js';

test('a commit reaches every idle watcher in one pass: all have it when the write resolves', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const from = cache.revision;
    const watchers = Array.from({ length: 50 }, () => collectCacheWatch(cache, from));
    await sleep(5);
    const a = await store.create('/cm/a', configMap('a'));
    assert.equal(
      watchers.map((w) => w.events.map((e) => e.revision)),
      watchers.map(() => [a.modRevision]),
      'no watcher waits for a later microtask',
    );
    for (const w of watchers) w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watch opened from inside a callback gets the current batch once (its replay), then live events', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const from = cache.revision;
    const inner: CacheEvent[] = [];
    let opened = false;
    const outer = cache.watch(
      from,
      () => {
        if (opened) return;
        opened = true;
        cache.watch(from, (evs) => inner.push(...evs), () => {});
      },
      () => {},
    );
    const a = await store.create('/cm/a', configMap('a'));
    const b = await store.create('/cm/b', configMap('b'));
    await until(() => inner.length >= 2);
    await sleep(10);
    assert.equal(inner.map((e) => e.revision), [a.modRevision, b.modRevision]);
    outer.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watcher closed by another watcher in the same pass receives nothing more', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const from = cache.revision;
    const closer = { close: () => {} };
    const first = cache.watch(from, () => closer.close(), () => {});
    const second = collectCacheWatch(cache, from);
    closer.close = () => second.handle.close();
    await store.create('/cm/a', configMap('a'));
    await sleep(10);
    assert.is(second.events.length, 0);
    first.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watcher with a scope gets only the live changes under it; a replay from the window is whole', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const from = cache.revision;
    const all = collectCacheWatch(cache, from);
    const ns1 = collectCacheWatch(cache, from, '/cm/ns1/');
    const quiet = collectCacheWatch(cache, from, '/cm/quiet/');
    // One object's key: the scope of a watch with a metadata.name field selector.
    const one = collectCacheWatch(cache, from, '/cm/ns1/c');
    const closed = collectCacheWatch(cache, from, '/cm/ns1/');
    closed.handle.close();
    await store.create('/cm/ns1/a', configMap('a', 'ns1'));
    await store.create('/cm/ns2/b', configMap('b', 'ns2'));
    await store.create('/cm/ns1/c', configMap('c', 'ns1'));
    await until(() => all.events.length === 3 && ns1.events.length === 2 && one.events.length === 1);
    await sleep(10);
    assert.equal(ns1.events.map((e) => e.key), ['/cm/ns1/a', '/cm/ns1/c']);
    assert.equal(one.events.map((e) => e.key), ['/cm/ns1/c']);
    assert.is(quiet.batches.length, 0, 'no delivery at all for a scope without changes');
    assert.is(closed.batches.length, 0, 'a closed watcher is out of its scope');
    // A replay is not narrowed (the watch handler filters it): a late scoped watcher gets all three.
    const late = collectCacheWatch(cache, from, '/cm/ns1/');
    await until(() => late.events.length === 3);
    for (const w of [all, ns1, quiet, one, late]) w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
