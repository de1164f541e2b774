import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configMap, dec, openTempStore, sleep, startCache } from './embedded-fixture.js';

test('the initial list holds every object at the store revision, sorted, frozen, serialized once', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    for (const ns of ['b', 'a']) for (const n of ['y', 'x']) await store.create(`/registry/configmaps/${ns}/${n}`, configMap(n, ns));
    await store.create('/registry/secrets/a/s', configMap('s', 'a')); // another resource
    const cache = await startCache(store, '/registry/configmaps/');
    assert.is(cache.revision, await store.currentRevision());
    assert.is(cache.size, 4);
    const all = cache.list();
    assert.equal(all.items.map((i) => i.key), ['/registry/configmaps/a/x', '/registry/configmaps/a/y', '/registry/configmaps/b/x', '/registry/configmaps/b/y']);
    assert.is(all.revision, cache.revision);
    for (const item of all.items) {
      const rec = (await store.get(item.key))!;
      assert.is(item.revision, rec.modRevision);
      assert.is(item.object.metadata.resourceVersion, String(rec.modRevision));
      assert.ok(Object.isFrozen(item.object) && Object.isFrozen(item.object.metadata));
      assert.is(item.json.toString(), JSON.stringify(item.object));
      assert.is(cache.get(item.key), item);
    }
    assert.equal(cache.list('/registry/configmaps/b/').items.map((i) => i.object.metadata.name), ['x', 'y']);
    assert.is(cache.list('/registry/configmaps/c/').items.length, 0);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('list and get follow creates, updates and deletes in key order', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const c = await store.create('/cm/n/m', configMap('m', 'n'));
    await store.create('/cm/n/a', configMap('a', 'n'));
    await store.create('/cm/n/z', configMap('z', 'n'));
    assert.equal(cache.list().items.map((i) => i.key), ['/cm/n/a', '/cm/n/m', '/cm/n/z']);
    await store.update('/cm/n/m', configMap('m', 'n', { k: 'v' }), c.modRevision);
    await store.delete('/cm/n/a');
    await store.create('/cm/n/b', configMap('b', 'n'));
    const rev = await store.currentRevision();
    assert.ok(await cache.waitForRevision(rev, 1000));
    assert.equal(cache.list().items.map((i) => i.key), ['/cm/n/b', '/cm/n/m', '/cm/n/z']);
    assert.equal(cache.get('/cm/n/m')!.object.data, { k: 'v' });
    assert.is(cache.get('/cm/n/a'), undefined);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a cache started while writes race holds exactly the store state afterwards (list then watch, no gap)', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    let stop = false;
    let n = 0;
    const writer = (async () => {
      while (!stop) {
        const key = `/race/k${n % 300}`;
        const cur = await store.get(key);
        if (!cur) await store.create(key, configMap(`k${n}`));
        else if (n % 4 === 0) await store.delete(key);
        else await store.update(key, configMap(`k${n}`), cur.modRevision);
        n++;
      }
    })();
    const writers2 = Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`/race/bulk-${i}`, configMap(`b${i}`))));
    await sleep(20);
    const cache = await startCache(store, '/race/');
    await sleep(30);
    stop = true;
    await writer;
    await writers2;
    const rev = await store.currentRevision();
    assert.ok(await cache.waitForRevision(rev, 2000));
    const fromStore = (await store.list('/race/')).items.map((r) => [r.key, r.modRevision, dec(r.value)]);
    const fromCache = cache.list().items.map((i) => [i.key, i.revision, JSON.stringify({ ...i.object, metadata: { name: i.object.metadata.name, namespace: i.object.metadata.namespace } })]);
    assert.equal(fromCache, fromStore);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('a namespace list is kept until something in it changes; the whole list until anything does', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/registry/configmaps/');
    await store.create('/registry/configmaps/a/x', configMap('x', 'a'));
    const b = await store.create('/registry/configmaps/b/x', configMap('x', 'b'));
    assert.ok(await cache.waitForRevision(b.modRevision, 1000));
    const a1 = cache.list('/registry/configmaps/a/');
    const all1 = cache.list();
    assert.is(cache.list('/registry/configmaps/a/').items, a1.items, 'nothing changed: the same array');
    assert.is(cache.list('/registry/configmaps/').items, all1.items, 'the whole resource by either spelling');

    const b2 = await store.update('/registry/configmaps/b/x', configMap('x', 'b', { v: '2' }), b.modRevision);
    assert.ok(await cache.waitForRevision(b2.modRevision, 1000));
    const a2 = cache.list('/registry/configmaps/a/');
    assert.is(a2.items, a1.items, 'a change in another namespace keeps it');
    assert.is(a2.revision, b2.modRevision, 'at the cache revision');
    const all2 = cache.list();
    assert.is.not(all2.items, all1.items, 'any change drops the whole list');
    assert.equal(all2.items.find((i) => i.key === '/registry/configmaps/b/x')!.object.data, { v: '2' });

    const a3rec = await store.create('/registry/configmaps/a/y', configMap('y', 'a'));
    assert.ok(await cache.waitForRevision(a3rec.modRevision, 1000));
    assert.equal(cache.list('/registry/configmaps/a/').items.map((i) => i.key), ['/registry/configmaps/a/x', '/registry/configmaps/a/y']);
    await store.delete('/registry/configmaps/a/x');
    assert.ok(await cache.waitForRevision(await store.currentRevision(), 1000));
    assert.equal(cache.list('/registry/configmaps/a/').items.map((i) => i.key), ['/registry/configmaps/a/y']);
    assert.equal(cache.list().items.map((i) => i.key), ['/registry/configmaps/a/y', '/registry/configmaps/b/x']);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
