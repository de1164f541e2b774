import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectCacheWatch, configMap, openTempStore, sleep, startCache, until } from './embedded-fixture.js';

test('a watch from a revision inside the window replays buffered events then live ones, no gap or duplicate', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const a = await store.create('/cm/a', configMap('a'));
    const mid = await store.currentRevision();
    const a2 = await store.update('/cm/a', configMap('a', 'default', { v: '2' }), a.modRevision);
    const b = await store.create('/cm/b', configMap('b'));
    await store.delete('/cm/a');
    assert.ok(await cache.waitForRevision(await store.currentRevision(), 1000));
    assert.ok(mid >= cache.oldestRevision());
    const w = collectCacheWatch(cache, mid);
    assert.is(w.events.length, 0, 'never delivered synchronously');
    // Live writes right after registration follow the replay without a seam.
    const c = await store.create('/cm/c', configMap('c'));
    await until(() => w.events.length === 4);
    assert.equal(
      w.events.map((e) => [e.type, e.revision, e.key, e.object.metadata.resourceVersion, e.prevObject?.metadata.resourceVersion]),
      [
        ['MODIFIED', a2.modRevision, '/cm/a', String(a2.modRevision), String(a.modRevision)],
        ['ADDED', b.modRevision, '/cm/b', String(b.modRevision), undefined],
        ['DELETED', b.modRevision + 1, '/cm/a', String(b.modRevision + 1), String(a2.modRevision)],
        ['ADDED', c.modRevision, '/cm/c', String(c.modRevision), undefined],
      ],
    );
    assert.equal(w.events[2]!.object.data, { v: '2' }, 'a DELETED event carries the last state');
    w.handle.close();
    await store.create('/cm/d', configMap('d'));
    await sleep(10);
    assert.is(w.events.length, 4, 'nothing after close');
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('every watcher receives the same event objects and serialized bytes (serialized once per change)', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const from = cache.revision;
    const w1 = collectCacheWatch(cache, from);
    const w2 = collectCacheWatch(cache, from);
    await store.create('/cm/a', configMap('a'));
    await until(() => w1.events.length === 1 && w2.events.length === 1);
    const late = collectCacheWatch(cache, from); // replayed from the buffer
    await until(() => late.events.length === 1);
    assert.ok(w1.events[0] === w2.events[0] && w1.events[0] === late.events[0]);
    assert.ok(w1.events[0]!.json === cache.get('/cm/a')!.json);
    assert.ok(w1.events[0]!.object === cache.get('/cm/a')!.object);
    assert.is(w1.events[0]!.json.toString(), JSON.stringify(w1.events[0]!.object));
    for (const w of [w1, w2, late]) w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a watch from a revision ahead of the cache delivers only events after that revision', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const base = cache.revision;
    const w = collectCacheWatch(cache, base + 2);
    await store.create('/cm/1', configMap('1'));
    await store.create('/cm/2', configMap('2'));
    await store.create('/cm/3', configMap('3'));
    await store.create('/cm/4', configMap('4'));
    await until(() => w.events.length === 2);
    await sleep(10);
    assert.equal(w.events.map((e) => e.revision), [base + 3, base + 4]);
    w.handle.close();
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
