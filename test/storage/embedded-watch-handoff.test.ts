import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectStoreWatch, dec, enc, openTempStore, sleep, until } from './embedded-fixture.js';

test('watches opened during concurrent writes see every change after their revision exactly once, in order', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const written = new Map<number, string>(); // revision -> key
    let stop = false;
    const writer = async (prefix: string, id: number) => {
      let n = 0;
      while (!stop) {
        const key = `${prefix}w${id}-${n % 20}`;
        const cur = await store.get(key);
        let rev: number;
        if (!cur) rev = (await store.create(key, enc(`v${n}`))).modRevision;
        else if (n % 3 === 0) rev = (await store.delete(key, cur.modRevision)).revision;
        else rev = (await store.update(key, enc(`v${n}`), cur.modRevision)).modRevision;
        written.set(rev, key);
        n++;
      }
    };
    const writers = [0, 1, 2, 3].map((i) => writer(i % 2 ? '/a/' : '/b/', i));
    const watches: Array<{ prefix: string; after: number; w: ReturnType<typeof collectStoreWatch> }> = [];
    // At least 40 watches, and on until enough writes happened (each commit is fsynced, which on a
    // busy disk takes milliseconds).
    for (let i = 0; i < 40 || (i < 2000 && (await store.currentRevision()) <= 220); i++) {
      await sleep(2);
      const prefix = i % 3 === 0 ? '/a/' : i % 3 === 1 ? '/b/' : '/';
      const current = await store.currentRevision();
      // Half start at the current revision (pure handoff), half replay some history first.
      const after = i % 2 ? current : Math.max(0, current - 50);
      watches.push({ prefix, after, w: collectStoreWatch(store, prefix, after) });
    }
    stop = true;
    await Promise.all(writers);
    const last = await store.currentRevision();
    assert.ok(last > 200, `enough concurrent writes (${last})`);
    for (const { prefix, after, w } of watches) {
      const expected = [...written].filter(([rev, key]) => rev > after && key.startsWith(prefix)).map(([rev]) => rev).sort((x, y) => x - y);
      await until(() => w.events.length >= expected.length, 5000, `watch ${prefix} after ${after}`);
      await sleep(10);
      assert.equal(w.events.map((e) => e.modRevision), expected, `watch ${prefix} after ${after}`);
      assert.is(w.errors.length, 0);
      w.handle.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('replayed and live events carry type, values, prevValue and revisions like etcd', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const a = await store.create('/e/a', enc('1'));
    const a2 = await store.update('/e/a', enc('2'), a.modRevision);
    const w = collectStoreWatch(store, '/e/', 0);
    assert.is(w.events.length, 0, 'never delivered synchronously');
    const del = await store.delete('/e/a');
    const again = await store.create('/e/a', enc('3'));
    await until(() => w.events.length === 4);
    assert.equal(
      w.events.map((e) => [e.type, e.modRevision, e.createRevision, e.prevModRevision, dec(e.value), e.prevValue && dec(e.prevValue)]),
      [
        ['put', a.modRevision, a.modRevision, 0, '1', undefined],
        ['put', a2.modRevision, a.modRevision, a.modRevision, '2', '1'],
        ['delete', del.revision, a.modRevision, a2.modRevision, '2', '2'],
        ['put', again.modRevision, again.modRevision, 0, '3', undefined],
      ],
    );
    w.handle.close();
  } finally {
    await t.cleanup();
  }
});

test('a closed watch gets no more callbacks and other prefixes get progress notifications', async () => {
  const t = openTempStore({ progressIntervalMs: 10 });
  const { store } = t;
  try {
    const closed = collectStoreWatch(store, '/p/', 0);
    const other = collectStoreWatch(store, '/quiet/', 0);
    const rec = await store.create('/p/x', enc('1'));
    closed.handle.close();
    await store.update('/p/x', enc('2'), rec.modRevision);
    await until(() => other.progress.includes(2), 2000, 'progress');
    assert.equal(closed.events.map((e) => e.modRevision), [1], 'nothing after close');
    assert.is(other.events.length, 0);
    other.handle.close();
  } finally {
    await t.cleanup();
  }
});

test.run();
