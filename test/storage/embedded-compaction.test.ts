import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/storage/embedded.js';
import { CompactedError } from '../../src/storage/types.js';
import { collectStoreWatch, dec, enc, openTempStore, until } from './embedded-fixture.js';

async function rejectsWith(p: Promise<unknown>, type: new (...args: never[]) => Error): Promise<Error> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, type);
    return err as Error;
  }
  throw new Error(`expected ${type.name}`);
}

test('compaction keeps every revision at or after it readable and rejects older ones', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    let a = await store.create('/c/a', enc('a1')); // 1
    await store.create('/c/b', enc('b1')); // 2
    a = await store.update('/c/a', enc('a2'), a.modRevision); // 3
    await store.delete('/c/b'); // 4
    await store.create('/c/d', enc('d1')); // 5
    const at = await store.currentRevision(); // 5
    a = await store.update('/c/a', enc('a3'), a.modRevision); // 6
    await store.delete('/c/d'); // 7

    await store.compact(at);
    assert.is(await store.compactedRevision(), at);
    // The state at the compaction revision is intact.
    assert.equal((await store.list('/c/', { revision: at })).items.map((i) => [i.key, dec(i.value)]), [
      ['/c/a', 'a2'],
      ['/c/d', 'd1'],
    ]);
    assert.is(dec((await store.get('/c/a', at))!.value), 'a2');
    assert.is(await store.get('/c/b', at), undefined);
    // Older revisions are gone.
    const err = (await rejectsWith(store.list('/c/', { revision: at - 1 }), CompactedError)) as CompactedError;
    assert.is(err.compacted, at);
    await rejectsWith(store.get('/c/a', 1), CompactedError);
    // Watches from before the compaction fail asynchronously; from at it replays 6 and 7 with prevValue.
    const old = collectStoreWatch(store, '/c/', at - 1);
    const fromAt = collectStoreWatch(store, '/c/', at);
    assert.is(old.errors.length, 0, 'errors are never delivered synchronously');
    await until(() => old.errors.length === 1 && fromAt.events.length === 2);
    assert.instance(old.errors[0], CompactedError);
    assert.equal(fromAt.events.map((e) => [e.type, e.modRevision, dec(e.value), e.prevValue && dec(e.prevValue)]), [
      ['put', 6, 'a3', 'a2'],
      ['delete', 7, 'd1', 'd1'],
    ]);
    fromAt.handle.close();
    // Compacting to an older revision is a no-op; compaction survives a reopen.
    await store.compact(2);
    assert.is(await store.compactedRevision(), at);
    await store.close();
    const reopened = openEmbeddedStore({ dir: t.dir });
    assert.is(await reopened.compactedRevision(), at);
    assert.is(await reopened.currentRevision(), 7);
    await rejectsWith(reopened.list('/c/', { revision: 3 }), CompactedError);
    await reopened.close();
  } finally {
    await t.cleanup();
  }
});

test('compaction removes superseded history rows and tombstones but no live record', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    let rec = await store.create('/h/k', enc('0'));
    for (let i = 1; i <= 50; i++) rec = await store.update('/h/k', enc(String(i)), rec.modRevision);
    for (let i = 0; i < 20; i++) await store.create(`/h/gone-${i}`, enc('x'));
    for (let i = 0; i < 20; i++) await store.delete(`/h/gone-${i}`);
    const rev = await store.currentRevision();
    await store.compact(rev);
    // Reach into the file to prove history really shrank (1 live row for /h/k, nothing for the deleted).
    const Database = (await import('better-sqlite3')).default;
    await store.close();
    const db = new Database(`${t.dir}/svc.db`, { readonly: true });
    const rows = db.prepare('SELECT COUNT(*) AS n FROM revs').get() as { n: number };
    db.close();
    assert.is(rows.n, 1);
    const reopened = openEmbeddedStore({ dir: t.dir });
    assert.is(dec((await reopened.get('/h/k'))!.value), '50');
    assert.is(await reopened.count('/h/'), 1);
    await reopened.close();
  } finally {
    await t.cleanup();
  }
});

test.run();
