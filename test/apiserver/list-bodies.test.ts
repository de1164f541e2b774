// Joined items of whole-scope LISTs (src/apiserver/list-bodies.ts), and the watch cache's stamp that
// keys them (changedUnder): a body is reused only while nothing under its scope changed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListBodies } from '../../src/apiserver/list-bodies.js';
import { configMap, openTempStore, startCache } from '../storage/embedded-fixture.js';

test('a body is joined once per owner, scope and stamp; a new stamp joins again; the budget holds', () => {
  const bodies = new ListBodies(4000);
  const a = {};
  const b = {};
  let joins = 0;
  const join = (text: string) => () => (joins++, Buffer.from(text));
  assert.is(bodies.get(a, '/cm/ns1/', 5, join('x')).toString(), 'x');
  assert.is(bodies.get(a, '/cm/ns1/', 5, join('never')).toString(), 'x');
  assert.is(bodies.get(b, '/cm/ns1/', 5, join('y')).toString(), 'y', 'another store: its own entry');
  assert.is(bodies.get(a, '/cm/ns1/', 6, join('z')).toString(), 'z', 'a new stamp: joined again');
  assert.is(joins, 3);
  assert.is(bodies.bytes, 2);
  // 999 bytes each: four fit in 4,000 bytes with the two small ones gone first; the oldest then go.
  for (let i = 0; i < 6; i++) bodies.get(a, `/cm/big${i}/`, 1, join('b'.repeat(999)));
  assert.ok(bodies.bytes <= 4000, `held ${bodies.bytes}`);
  assert.is(bodies.get(a, '/cm/big5/', 1, join('again')).length, 999, 'the newest is kept');
  assert.is(bodies.get(a, '/cm/big0/', 1, join('again')).toString(), 'again', 'the oldest went');
  // Larger than a quarter of the budget: answered, not kept.
  assert.is(bodies.get(a, '/cm/huge/', 1, join('h'.repeat(1001))).length, 1001);
  assert.is(bodies.get(a, '/cm/huge/', 1, join('h2')).toString(), 'h2');
});

test("the watch cache's stamp of a namespace changes with its own changes only, and with every (re)list", async () => {
  const t = openTempStore();
  try {
    await t.store.create('/cm/quiet/a', configMap('a', 'quiet'));
    const cache = await startCache(t.store, '/cm/');
    const quiet0 = cache.changedUnder('/cm/quiet/');
    const all0 = cache.changedUnder('/cm/');
    await t.store.create('/cm/busy/b', configMap('b', 'busy'));
    await cache.waitForRevision(await t.store.currentRevision(), 2000);
    assert.is(cache.changedUnder('/cm/quiet/'), quiet0, 'another namespace changed: same stamp');
    assert.is.not(cache.changedUnder('/cm/'), all0, 'the whole resource changed');
    assert.is.not(cache.changedUnder('/cm/busy/'), quiet0);
    const busy = cache.changedUnder('/cm/busy/');
    await t.store.create('/cm/quiet/c', configMap('c', 'quiet'));
    await cache.waitForRevision(await t.store.currentRevision(), 2000);
    assert.is.not(cache.changedUnder('/cm/quiet/'), quiet0, 'its own change: a new stamp');
    assert.is(cache.changedUnder('/cm/busy/'), busy);
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
