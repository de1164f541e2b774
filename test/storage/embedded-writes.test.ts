import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, KeyExistsError, KeyNotFoundError, StorageUnavailableError } from '../../src/storage/types.js';
import { dec, enc, openTempStore } from './embedded-fixture.js';

test('writes committed together get consecutive revisions and a failing one does not affect the rest', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    await store.create('/w/dup', enc('first'));
    const results = await Promise.allSettled([
      store.create('/w/1', enc('1')),
      store.create('/w/dup', enc('second')),
      store.create('/w/2', enc('2')),
      store.update('/w/missing', enc('x'), 1),
      store.delete('/w/dup', 999),
      store.create('/w/3', enc('3')),
    ]);
    const ok = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ modRevision: number }>).value.modRevision);
    assert.equal(ok, [2, 3, 4]);
    const errs = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    assert.instance(errs[0], KeyExistsError);
    assert.instance(errs[1], KeyNotFoundError);
    assert.instance(errs[2], ConflictError);
    assert.is((errs[2] as ConflictError).current.modRevision, 1);
    assert.is(dec((await store.get('/w/dup'))!.value), 'first');
    assert.is(await store.currentRevision(), 4);
  } finally {
    await t.cleanup();
  }
});

test('update and delete honour the expected revision', async () => {
  const t = openTempStore();
  const { store } = t;
  try {
    const c = await store.create('/u/k', enc('1'));
    const u = await store.update('/u/k', enc('2'), c.modRevision);
    assert.is(u.createRevision, c.modRevision);
    try {
      await store.update('/u/k', enc('3'), c.modRevision);
      assert.unreachable();
    } catch (err) {
      assert.instance(err, ConflictError);
      assert.is(dec((err as ConflictError).current.value), '2');
    }
    const d = await store.delete('/u/k', u.modRevision);
    assert.is(d.deleted.modRevision, u.modRevision);
    assert.is(d.revision, u.modRevision + 1);
    assert.is(await store.get('/u/k'), undefined);
  } finally {
    await t.cleanup();
  }
});

test('close waits for queued writes, then every call fails with StorageUnavailableError', async () => {
  const t = openTempStore();
  const { store } = t;
  const pending = store.create('/q/k', enc('1'));
  await store.close();
  assert.is((await pending).modRevision, 1);
  try {
    await store.get('/q/k');
    assert.unreachable();
  } catch (err) {
    assert.instance(err, StorageUnavailableError);
  }
  await t.cleanup();
});

test.run();
