import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FutureRevisionError } from '../../src/storage/types.js';
import { configMap, dec, enc, openTempStore } from './embedded-fixture.js';

test('list and get at an older revision see exactly the state at that revision', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const a = await store.create('/r/a', enc('a1'));
    const b = await store.create('/r/b', enc('b1'));
    const at = await store.currentRevision();
    await store.update('/r/a', enc('a2'), a.modRevision);
    await store.delete('/r/b');
    await store.create('/r/c', enc('c1'));
    await store.create('/r/b', enc('b2')); // a new life of b

    const old = await store.list('/r/', { revision: at });
    assert.is(old.revision, at);
    assert.equal(old.items.map((i) => [i.key, dec(i.value), i.modRevision]), [
      ['/r/a', 'a1', a.modRevision],
      ['/r/b', 'b1', b.modRevision],
    ]);
    assert.is(dec((await store.get('/r/a', at))!.value), 'a1');
    assert.is(await store.get('/r/c', at), undefined);
    const bNow = (await store.get('/r/b'))!;
    assert.is(dec(bNow.value), 'b2');
    assert.ok(bNow.createRevision > b.createRevision, 're-create starts a new life');
    assert.is(await store.get('/r/b', at + 2), undefined, 'deleted at that revision');
    const now = await store.list('/r/');
    assert.equal(now.items.map((i) => dec(i.value)), ['a2', 'b2', 'c1']);
  } finally {
    await t.cleanup();
  }
});

test('chunked list at one revision is one consistent snapshot with exact remaining counts', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    for (let i = 0; i < 25; i++) await store.create(`/cm/ns/${String(i).padStart(2, '0')}`, configMap(`n${i}`));
    const first = await store.list('/cm/', { limit: 10 });
    assert.is(first.items.length, 10);
    assert.is(first.remaining, 15);
    // Writes between chunks: must stay invisible to the remaining chunks.
    await store.delete('/cm/ns/15');
    await store.create('/cm/ns/99', configMap('late'));
    const cur = (await store.get('/cm/ns/12'))!;
    await store.update('/cm/ns/12', configMap('changed'), cur.modRevision);
    const keys = first.items.map((i) => i.key);
    let page = first;
    while (page.remaining > 0) {
      page = await store.list('/cm/', { revision: first.revision, startKey: `${page.items.at(-1)!.key}\0`, limit: 10 });
      assert.is(page.revision, first.revision);
      keys.push(...page.items.map((i) => i.key));
    }
    assert.is(keys.length, 25);
    assert.ok(keys.includes('/cm/ns/15') && !keys.includes('/cm/ns/99'));
    const twelve = await store.get('/cm/ns/12', first.revision);
    assert.is(JSON.parse(dec(twelve!.value)).metadata.name, 'n12');
    // At the current revision the counts follow the live state.
    const live = await store.list('/cm/', { limit: 20 });
    assert.is(live.remaining, 5);
    assert.is(await store.count('/cm/'), 25);
  } finally {
    await t.cleanup();
  }
});

test('prefix ranges do not leak into sibling prefixes', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    await store.create('/registry/pods/a', enc('1'));
    await store.create('/registry/pods0', enc('2'));
    await store.create('/registry/podsx/b', enc('3'));
    await store.create('/registry/pod', enc('4'));
    assert.equal((await store.list('/registry/pods/')).items.map((i) => i.key), ['/registry/pods/a']);
    assert.is(await store.count('/registry/pods'), 3);
    assert.is((await store.list('')).items.length, 4);
  } finally {
    await t.cleanup();
  }
});

test('reads at a revision newer than the store fail with FutureRevisionError', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    await store.create('/x', enc('1'));
    const rev = await store.currentRevision();
    await assert_rejects(() => store.get('/x', rev + 1), FutureRevisionError);
    await assert_rejects(() => store.list('/', { revision: rev + 5 }), FutureRevisionError);
  } finally {
    await t.cleanup();
  }
});

async function assert_rejects(fn: () => Promise<unknown>, type: new (...args: never[]) => Error): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, type);
    return;
  }
  assert.unreachable(`expected ${type.name}`);
}

test.run();
