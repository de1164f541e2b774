/**
 * The engine-agnostic storage contract suite: one test per guarantee of `src/storage/types.ts` and
 * per typed error. Every engine test file calls `runStorageContract(name, open, close)`.
 *
 * Tests never assume the store is empty or starts at a given revision (a shared etcd keeps state
 * between tests): each test works under its own key prefix and compares revisions relatively.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  type KVEvent,
  type KVStore,
} from '../../src/storage/types.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const bytes = (s: string): Uint8Array => encoder.encode(s);
export const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : decoder.decode(b));

let prefixCounter = 0;
/** A fresh key prefix no other test (or earlier run against the same server) uses. */
export function uniquePrefix(label: string): string {
  prefixCounter++;
  return `/contract/${label}-${process.pid}-${prefixCounter}-${Math.random().toString(36).slice(2, 8)}/`;
}

/** Collects the events of one watch; `waitFor(n)` resolves once n events (or an error) arrived. */
export interface WatchRecorder {
  events: KVEvent[];
  /** Sizes of the batches handed to onEvents, in order. */
  batches: number[];
  progress: number[];
  error?: Error;
  waitFor(n: number, timeoutMs?: number): Promise<KVEvent[]>;
  waitForError(timeoutMs?: number): Promise<Error>;
  close(): void;
}

export function recordWatch(store: KVStore, prefix: string, afterRevision: number): WatchRecorder {
  const rec: Omit<WatchRecorder, 'close'> & { close?: () => void } = {
    events: [],
    batches: [],
    progress: [],
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (rec.events.length < n) {
        if (rec.error) throw new Error(`watch failed while waiting for ${n} events: ${rec.error.message}`);
        if (Date.now() > deadline) {
          throw new Error(`expected ${n} watch events, got ${rec.events.length}: ${rec.events.map((e) => `${e.type} ${e.key}@${e.modRevision}`).join(', ')}`);
        }
        await sleep(10);
      }
      return rec.events.slice(0, n);
    },
    async waitForError(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!rec.error) {
        if (Date.now() > deadline) throw new Error(`expected the watch to fail; got ${rec.events.length} events and no error`);
        await sleep(10);
      }
      return rec.error;
    },
  };
  const handle = store.watch(prefix, afterRevision, {
    onEvents(events) {
      rec.batches.push(events.length);
      rec.events.push(...events);
    },
    onProgress(revision) {
      rec.progress.push(revision);
    },
    onError(err) {
      rec.error = err;
    },
  });
  return Object.assign(rec, { close: () => handle.close() });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function expectReject<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E, what: string): Promise<E> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, type, `${what}: expected ${type.name}, got ${(err as Error)?.name}: ${(err as Error)?.message}`);
    return err as E;
  }
  assert.unreachable(`${what}: expected ${type.name}, but it resolved`);
  throw new Error('unreachable');
}

export function runStorageContract(name: string, open: () => Promise<KVStore>, close: (s: KVStore) => Promise<void>): void {
  const test = suite<{ store?: KVStore }>(`storage contract [${name}]`, {});

  test.before.each(async (ctx) => {
    ctx.store = await open();
  });
  test.after.each(async (ctx) => {
    if (ctx.store) await close(ctx.store);
    ctx.store = undefined;
  });
  const storeOf = (ctx: { store?: KVStore }): KVStore => {
    if (!ctx.store) throw new Error('store not opened');
    return ctx.store;
  };

  test('every committed write (create, update, delete) advances the global revision by exactly one', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('rev');
    const r0 = await s.currentRevision();
    const c = await s.create(`${p}a`, bytes('1'));
    assert.is(c.modRevision, r0 + 1);
    assert.is(await s.currentRevision(), r0 + 1);
    const u = await s.update(`${p}a`, bytes('2'), c.modRevision);
    assert.is(u.modRevision, r0 + 2);
    const d = await s.delete(`${p}a`);
    assert.is(d.revision, r0 + 3);
    assert.is(await s.currentRevision(), r0 + 3);
  });

  test('failed writes do not advance the revision', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('failrev');
    const c = await s.create(`${p}a`, bytes('1'));
    const r = await s.currentRevision();
    await expectReject(s.create(`${p}a`, bytes('x')), KeyExistsError, 'create existing');
    await expectReject(s.update(`${p}a`, bytes('x'), c.modRevision + 100), ConflictError, 'stale update');
    await expectReject(s.delete(`${p}missing`), KeyNotFoundError, 'delete missing');
    assert.is(await s.currentRevision(), r);
  });

  test('create sets createRevision and modRevision to the revision of the create', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('create');
    const c = await s.create(`${p}a`, bytes('hello'));
    assert.is(c.key, `${p}a`);
    assert.is(c.createRevision, c.modRevision);
    assert.is(text(c.value), 'hello');
    const g = await s.get(`${p}a`);
    assert.ok(g);
    assert.is(g.createRevision, c.createRevision);
    assert.is(g.modRevision, c.modRevision);
    assert.is(text(g.value), 'hello');
  });

  test('create of a live key fails with KeyExistsError and leaves the value alone', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('exists');
    await s.create(`${p}a`, bytes('first'));
    const err = await expectReject(s.create(`${p}a`, bytes('second')), KeyExistsError, 'second create');
    assert.is(err.key, `${p}a`);
    assert.is(text((await s.get(`${p}a`))?.value), 'first');
  });

  test('a re-create after delete starts a new life with a new createRevision', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('recreate');
    const first = await s.create(`${p}a`, bytes('1'));
    await s.delete(`${p}a`);
    const second = await s.create(`${p}a`, bytes('2'));
    assert.ok(second.createRevision > first.createRevision);
    assert.is(second.createRevision, second.modRevision);
  });

  test('update keeps createRevision and sets modRevision to the revision of the update', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('update');
    const c = await s.create(`${p}a`, bytes('1'));
    const u = await s.update(`${p}a`, bytes('2'), c.modRevision);
    assert.is(u.createRevision, c.createRevision);
    assert.ok(u.modRevision > c.modRevision);
    assert.is(text(u.value), '2');
    const g = await s.get(`${p}a`);
    assert.is(g?.modRevision, u.modRevision);
    assert.is(g?.createRevision, c.createRevision);
    assert.is(text(g?.value), '2');
  });

  test('update of an absent key fails with KeyNotFoundError and creates nothing', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('update-missing');
    const err = await expectReject(s.update(`${p}a`, bytes('x'), 1), KeyNotFoundError, 'update missing');
    assert.is(err.key, `${p}a`);
    assert.is(await s.get(`${p}a`), undefined);
  });

  test('update with a stale modRevision fails with ConflictError carrying the current record', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('conflict');
    const c = await s.create(`${p}a`, bytes('1'));
    const u = await s.update(`${p}a`, bytes('2'), c.modRevision);
    const err = await expectReject(s.update(`${p}a`, bytes('3'), c.modRevision), ConflictError, 'stale update');
    assert.is(err.key, `${p}a`);
    assert.is(err.current.key, `${p}a`);
    assert.is(err.current.modRevision, u.modRevision);
    assert.is(err.current.createRevision, c.createRevision);
    assert.is(text(err.current.value), '2');
    assert.is(text((await s.get(`${p}a`))?.value), '2');
  });

  test('delete returns the deleted record and the revision of the delete', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('delete');
    const c = await s.create(`${p}a`, bytes('v'));
    const d = await s.delete(`${p}a`);
    assert.is(d.deleted.key, `${p}a`);
    assert.is(d.deleted.modRevision, c.modRevision);
    assert.is(d.deleted.createRevision, c.createRevision);
    assert.is(text(d.deleted.value), 'v');
    assert.is(d.revision, await s.currentRevision());
    assert.is(await s.get(`${p}a`), undefined);
  });

  test('delete of an absent key fails with KeyNotFoundError', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('delete-missing');
    const err = await expectReject(s.delete(`${p}a`), KeyNotFoundError, 'delete missing');
    assert.is(err.key, `${p}a`);
    await expectReject(s.delete(`${p}a`, 5), KeyNotFoundError, 'delete missing with precondition');
  });

  test('delete with a stale modRevision fails with ConflictError and keeps the key', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('delete-conflict');
    const c = await s.create(`${p}a`, bytes('1'));
    const u = await s.update(`${p}a`, bytes('2'), c.modRevision);
    const err = await expectReject(s.delete(`${p}a`, c.modRevision), ConflictError, 'stale delete');
    assert.is(err.current.modRevision, u.modRevision);
    assert.is(text(err.current.value), '2');
    assert.ok(await s.get(`${p}a`));
    const d = await s.delete(`${p}a`, u.modRevision);
    assert.is(d.deleted.modRevision, u.modRevision);
  });

  test('values are opaque bytes and round-trip exactly', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('bytes');
    const value = new Uint8Array(256);
    for (let i = 0; i < 256; i++) value[i] = i;
    await s.create(`${p}bin`, value);
    const g = await s.get(`${p}bin`);
    assert.ok(g);
    assert.equal(Array.from(g.value), Array.from(value));
    await s.create(`${p}empty`, new Uint8Array(0));
    assert.is((await s.get(`${p}empty`))?.value.length, 0);
  });

  test('list returns the live keys under the prefix in ascending key order, at the current revision', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('list');
    for (const k of ['c', 'a', 'e', 'b', 'd']) await s.create(`${p}${k}`, bytes(k));
    await s.create(`${p.slice(0, -1)}x/sibling`, bytes('outside')); // shares the text before the slash only
    await s.delete(`${p}d`);
    const r = await s.list(p);
    assert.equal(r.items.map((i) => i.key), ['a', 'b', 'c', 'e'].map((k) => `${p}${k}`));
    assert.equal(r.items.map((i) => text(i.value)), ['a', 'b', 'c', 'e']);
    assert.is(r.revision, await s.currentRevision());
    assert.is(r.remaining, 0);
  });

  test('list with limit and startKey pages through the keys, counting the remaining ones', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('page');
    const keys = Array.from({ length: 7 }, (_, i) => `${p}k${i}`);
    for (const k of keys) await s.create(k, bytes(k));
    const first = await s.list(p, { limit: 3 });
    assert.equal(first.items.map((i) => i.key), keys.slice(0, 3));
    assert.is(first.remaining, 4);
    const second = await s.list(p, { limit: 3, startKey: `${first.items[2]!.key}\0`, revision: first.revision });
    assert.equal(second.items.map((i) => i.key), keys.slice(3, 6));
    assert.is(second.remaining, 1);
    assert.is(second.revision, first.revision);
    const third = await s.list(p, { limit: 3, startKey: `${second.items[2]!.key}\0`, revision: first.revision });
    assert.equal(third.items.map((i) => i.key), keys.slice(6));
    assert.is(third.remaining, 0);
    const exact = await s.list(p, { limit: 7 });
    assert.is(exact.items.length, 7);
    assert.is(exact.remaining, 0);
  });

  test('list at an old revision sees that snapshot after later updates, deletes and creates', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('snapshot');
    const a = await s.create(`${p}a`, bytes('a1'));
    const b = await s.create(`${p}b`, bytes('b1'));
    await s.create(`${p}c`, bytes('c1'));
    const at = await s.currentRevision();
    await s.update(`${p}a`, bytes('a2'), a.modRevision);
    await s.delete(`${p}b`, b.modRevision);
    await s.create(`${p}aa`, bytes('new'));
    await s.create(`${p}0`, bytes('new'));
    const old = await s.list(p, { revision: at });
    assert.is(old.revision, at);
    assert.equal(old.items.map((i) => `${i.key.slice(p.length)}=${text(i.value)}`), ['a=a1', 'b=b1', 'c=c1']);
    assert.is(old.items[0]!.modRevision, a.modRevision);
    const paged = await s.list(p, { revision: at, limit: 1, startKey: `${p}a\0` });
    assert.equal(paged.items.map((i) => i.key), [`${p}b`]);
    assert.is(paged.remaining, 1);
    const now = await s.list(p);
    assert.equal(now.items.map((i) => `${i.key.slice(p.length)}=${text(i.value)}`), ['0=new', 'a=a2', 'aa=new', 'c=c1']);
  });

  test('get at a revision returns the value live then, or undefined before its create', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('get-at');
    const before = await s.currentRevision();
    const c = await s.create(`${p}a`, bytes('1'));
    const u = await s.update(`${p}a`, bytes('2'), c.modRevision);
    await s.delete(`${p}a`);
    assert.is(await s.get(`${p}a`), undefined);
    assert.is(await s.get(`${p}a`, before), undefined);
    const atCreate = await s.get(`${p}a`, c.modRevision);
    assert.is(text(atCreate?.value), '1');
    assert.is(atCreate?.modRevision, c.modRevision);
    const atUpdate = await s.get(`${p}a`, u.modRevision);
    assert.is(text(atUpdate?.value), '2');
    assert.is(atUpdate?.createRevision, c.createRevision);
  });

  test('count gives the number of live keys under the prefix', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('count');
    assert.is(await s.count(p), 0);
    for (let i = 0; i < 5; i++) await s.create(`${p}${i}`, bytes('x'));
    await s.delete(`${p}2`);
    assert.is(await s.count(p), 4);
    assert.is(await s.count(`${p}3`), 1);
  });

  test('a revision newer than the store fails with FutureRevisionError', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('future');
    await s.create(`${p}a`, bytes('1'));
    const cur = await s.currentRevision();
    const e1 = await expectReject(s.get(`${p}a`, cur + 1000), FutureRevisionError, 'get in the future');
    assert.is(e1.requested, cur + 1000);
    assert.ok(e1.current >= cur && e1.current < cur + 1000);
    await expectReject(s.list(p, { revision: cur + 1000 }), FutureRevisionError, 'list in the future');
    await expectReject(s.compact(cur + 1000), FutureRevisionError, 'compact in the future');
  });

  test('after compaction, reads before the compacted revision fail with CompactedError and later ones work', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('compact');
    const a = await s.create(`${p}a`, bytes('1'));
    const u1 = await s.update(`${p}a`, bytes('2'), a.modRevision);
    const u2 = await s.update(`${p}a`, bytes('3'), u1.modRevision);
    await s.compact(u2.modRevision);
    assert.is(await s.compactedRevision(), u2.modRevision);
    const e = await expectReject(s.get(`${p}a`, u1.modRevision), CompactedError, 'get before compaction');
    assert.is(e.compacted, u2.modRevision);
    await expectReject(s.list(p, { revision: a.modRevision }), CompactedError, 'list before compaction');
    assert.is(text((await s.get(`${p}a`, u2.modRevision))?.value), '3');
    assert.is((await s.list(p, { revision: u2.modRevision })).items.length, 1);
    // compacting to an older revision again changes nothing and does not fail
    await s.compact(u1.modRevision);
    assert.is(await s.compactedRevision(), u2.modRevision);
  });

  test('a watch from a compacted revision fails with CompactedError instead of skipping history', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-compacted');
    const a = await s.create(`${p}a`, bytes('1'));
    const u1 = await s.update(`${p}a`, bytes('2'), a.modRevision);
    const u2 = await s.update(`${p}a`, bytes('3'), u1.modRevision);
    await s.compact(u2.modRevision);
    const w = recordWatch(s, p, a.modRevision - 1);
    try {
      const err = await w.waitForError();
      assert.instance(err, CompactedError);
      assert.is(w.events.length, 0);
    } finally {
      w.close();
    }
    const ok = recordWatch(s, p, u2.modRevision);
    try {
      const u3 = await s.update(`${p}a`, bytes('4'), u2.modRevision);
      const [ev] = await ok.waitFor(1);
      assert.is(ev!.modRevision, u3.modRevision);
      assert.is(ok.error, undefined);
    } finally {
      ok.close();
    }
  });

  test('a watch from a revision replays the history in order, then delivers live events, each once', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-replay');
    const start = await s.currentRevision();
    const a = await s.create(`${p}a`, bytes('a1'));
    const b = await s.create(`${p}b`, bytes('b1'));
    const a2 = await s.update(`${p}a`, bytes('a2'), a.modRevision);
    const w = recordWatch(s, p, start);
    try {
      await w.waitFor(3);
      const db = await s.delete(`${p}b`);
      const c = await s.create(`${p}c`, bytes('c1'));
      const evs = await w.waitFor(5);
      await sleep(100); // nothing extra may follow
      assert.is(w.events.length, 5);
      assert.equal(evs.map((e) => e.modRevision), [a.modRevision, b.modRevision, a2.modRevision, db.revision, c.modRevision]);
      assert.equal(evs.map((e) => e.type), ['put', 'put', 'put', 'delete', 'put']);
      const [ea, , ea2, , ec] = evs;
      assert.is(ea!.createRevision, a.modRevision);
      assert.is(ea!.prevModRevision, 0);
      assert.is(ea!.prevValue, undefined);
      assert.is(text(ea!.value), 'a1');
      assert.is(ea2!.createRevision, a.modRevision);
      assert.is(ea2!.prevModRevision, a.modRevision);
      assert.is(text(ea2!.prevValue), 'a1');
      assert.is(text(ea2!.value), 'a2');
      assert.is(ec!.key, `${p}c`);
      assert.is(w.error, undefined);
    } finally {
      w.close();
    }
  });

  test('a watch from a mid-history revision starts right after it', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-mid');
    const a = await s.create(`${p}a`, bytes('1'));
    const b = await s.create(`${p}b`, bytes('1'));
    const c = await s.create(`${p}c`, bytes('1'));
    const w = recordWatch(s, p, a.modRevision);
    try {
      const evs = await w.waitFor(2);
      await sleep(100);
      assert.equal(w.events.map((e) => e.modRevision), [b.modRevision, c.modRevision]);
      assert.equal(evs.map((e) => e.key), [`${p}b`, `${p}c`]);
    } finally {
      w.close();
    }
  });

  test('a watch delete event carries the last value and prevValue', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-delete');
    const c = await s.create(`${p}a`, bytes('v1'));
    const u = await s.update(`${p}a`, bytes('v2'), c.modRevision);
    const w = recordWatch(s, p, u.modRevision);
    try {
      const d = await s.delete(`${p}a`);
      const [ev] = await w.waitFor(1);
      assert.is(ev!.type, 'delete');
      assert.is(ev!.key, `${p}a`);
      assert.is(ev!.modRevision, d.revision);
      assert.is(text(ev!.value), 'v2');
      assert.is(text(ev!.prevValue), 'v2');
      assert.is(ev!.prevModRevision, u.modRevision);
      assert.is(ev!.createRevision, c.createRevision);
    } finally {
      w.close();
    }
  });

  test('a watch sees only keys under its prefix', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-prefix');
    const start = await s.currentRevision();
    const w = recordWatch(s, `${p}a/`, start);
    try {
      await s.create(`${p}ab`, bytes('no'));
      await s.create(`${p}b/x`, bytes('no'));
      await s.create(`${p}a`, bytes('no'));
      const yes = await s.create(`${p}a/x`, bytes('yes'));
      await s.create(`${p}a0`, bytes('no'));
      await w.waitFor(1);
      await sleep(150);
      assert.equal(w.events.map((e) => e.key), [`${p}a/x`]);
      assert.is(w.events[0]!.modRevision, yes.modRevision);
    } finally {
      w.close();
    }
  });

  test('a closed watch gets no more callbacks', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-close');
    const w = recordWatch(s, p, await s.currentRevision());
    const a = await s.create(`${p}a`, bytes('1'));
    await w.waitFor(1);
    w.close();
    await s.update(`${p}a`, bytes('2'), a.modRevision);
    await s.create(`${p}b`, bytes('1'));
    await sleep(200);
    assert.is(w.events.length, 1);
    assert.is(w.error, undefined);
  });

  test('a watch from the current revision gets only later changes', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('watch-now');
    await s.create(`${p}old`, bytes('1'));
    const w = recordWatch(s, p, await s.currentRevision());
    try {
      await sleep(50);
      const n = await s.create(`${p}new`, bytes('1'));
      await w.waitFor(1);
      await sleep(100);
      assert.equal(w.events.map((e) => e.modRevision), [n.modRevision]);
    } finally {
      w.close();
    }
  });

  test('concurrent updates with the same expected revision: exactly one wins, the rest conflict', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('race');
    const c = await s.create(`${p}a`, bytes('0'));
    const n = 10;
    const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => s.update(`${p}a`, bytes(`w${i}`), c.modRevision)));
    const won = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<KVStore['update']>>> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.is(won.length, 1);
    assert.is(lost.length, n - 1);
    for (const l of lost) {
      assert.instance(l.reason, ConflictError);
      assert.is((l.reason as ConflictError).current.modRevision, won[0]!.value.modRevision);
    }
    const g = await s.get(`${p}a`);
    assert.is(g?.modRevision, won[0]!.value.modRevision);
    assert.is(text(g?.value), text(won[0]!.value.value));
  });

  test('concurrent creates of one key: exactly one wins, the rest get KeyExistsError', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('race-create');
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => s.create(`${p}a`, bytes(`c${i}`))));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.instance(r.reason, KeyExistsError);
  });

  test('parallel writes to different keys get distinct consecutive revisions seen in order by a watch', async (ctx) => {
    const s = storeOf(ctx);
    const p = uniquePrefix('parallel');
    const start = await s.currentRevision();
    const w = recordWatch(s, p, start);
    try {
      const n = 20;
      const recs = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`${p}${String(i).padStart(2, '0')}`, bytes(String(i)))));
      const revs = recs.map((r) => r.modRevision).sort((x, y) => x - y);
      assert.is(new Set(revs).size, n);
      const evs = await w.waitFor(n);
      const seen = evs.map((e) => e.modRevision);
      assert.equal(seen, [...seen].sort((x, y) => x - y), 'watch events in revision order');
      assert.equal(seen, revs);
    } finally {
      w.close();
    }
  });

  test.run();
}
