import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configMap, openTempStore, startCache } from './embedded-fixture.js';

test('waitForRevision resolves false on timeout and true once the revision is reached', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const target = cache.revision + 1;
    const started = Date.now();
    assert.is(await cache.waitForRevision(target, 50), false);
    assert.ok(Date.now() - started >= 45);
    const waiting = cache.waitForRevision(target, 2000);
    await store.create('/cm/a', configMap('a'));
    assert.is(await waiting, true);
    assert.is(await cache.waitForRevision(target - 1, 0), true, 'already reached');
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('writes under other prefixes advance the revision through store progress notifications', async () => {
  const t = openTempStore({ progressIntervalMs: 10 });
  const { store } = t;
  try {
    const cache = await startCache(store, '/cm/');
    const other = await store.create('/secrets/x', configMap('x'));
    assert.is(await cache.waitForRevision(other.modRevision, 2000), true);
    assert.is(cache.size, 0);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test('stop resolves pending waits with false', async () => {
  const t = openTempStore();
  try {
    const cache = await startCache(t.store, '/cm/');
    const waiting = cache.waitForRevision(cache.revision + 10, 10_000);
    cache.stop();
    assert.is(await waiting, false);
  } finally {
    await t.cleanup();
  }
});

test.run();
