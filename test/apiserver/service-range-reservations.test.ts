// Reservations of the Service range allocator (src/apiserver/services/range-allocator.ts): offsets
// taken ahead of creates and handed out with no store write, never twice across two "API servers"
// on one store, given back on close, not handed out near their end, and seen by the repair loop as
// in use while they run and as leaks once they have ended (a reservation the loop dropped is never
// revived).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serviceDefinition } from '../../src/api/kinds/core/service.js';
import { ResourceStore } from '../../src/apiserver/resource-store.js';
import { decodeAllocation, RangeAllocator } from '../../src/apiserver/services/range-allocator.js';
import { ServiceRangeRepair } from '../../src/apiserver/services/repair.js';
import { ServiceAllocations } from '../../src/apiserver/services/service-allocation.js';
import { openEmbeddedStore } from '../../src/storage/embedded.js';
import type { KVStore } from '../../src/storage/types.js';

const logger = pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });
const KEY = '/registry/ranges/serviceips';
const BAND = 256;

async function withStore(fn: (kv: KVStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-reserve-'));
  const kv = openEmbeddedStore({ dir, logger });
  try {
    await fn(kv);
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A /16's allocator with a reservation of `reserve`, on a clock the test moves. */
function reserving(kv: KVStore, clock: { t: number }, reserve = 16, holder?: string): RangeAllocator {
  return new RangeAllocator({
    kv,
    key: KEY,
    range: '10.96.0.0/16',
    size: 65534,
    what: 'IP',
    logger,
    reserve,
    reserveBand: BAND,
    reservationTtlMs: 300_000,
    reservationMarginMs: 90_000,
    now: () => clock.t,
    ...(holder ? { holder } : {}),
  });
}

const stored = async (kv: KVStore) => decodeAllocation(await kv.get(KEY));
const settle = () => new Promise((r) => setTimeout(r, 30));

test('creates take reserved offsets from memory: one write reserves, the next ones write nothing', async () => {
  await withStore(async (kv) => {
    const clock = { t: Date.parse('2026-11-26T10:00:00Z') };
    const a = reserving(kv, clock);
    const first = await a.allocateNext(BAND);
    const afterFirst = await kv.currentRevision();
    const rec = await stored(kv);
    assert.is(rec.reservations?.length, 1);
    assert.is(rec.reservations![0]!.holder, a.holder);
    assert.is(rec.reservations![0]!.offsets.length, 16, 'the write that served the first create reserved 16 more');
    assert.is(rec.reservations![0]!.until, clock.t + 300_000);
    // The next 8 come from memory: no store write until the reservation is half gone.
    const next = [];
    for (let i = 0; i < 8; i++) next.push(await a.allocateNext(BAND));
    assert.is(await kv.currentRevision(), afterFirst, 'no write for creates served from the reservation');
    for (const o of next) assert.ok(rec.reservations![0]!.offsets.includes(o), `${o} came from the stored reservation`);
    // The refill that half-empty asked for, in the background.
    for (let i = 0; i < 100 && (await kv.currentRevision()) === afterFirst; i++) await settle();
    assert.ok((await kv.currentRevision()) > afterFirst, 'refilled in the background');
    assert.ok(a.reserved > 8);
    const all = [first, ...next];
    assert.is(new Set(all).size, all.length);
    assert.ok(all.every((o) => o >= BAND), 'reserved from the dynamic band only');
    assert.is(a.stats.fromReservation, 8);
    // A user's chosen offset that is in our reservation is ours to give.
    const mine = (await stored(kv)).reservations![0]!.offsets.find((o) => !all.includes(o))!;
    assert.is(await a.allocate(mine), mine);
  });
});

test('two reserving allocators on one store never hand out the same offset; close gives the rest back', async () => {
  await withStore(async (kv) => {
    const clock = { t: Date.now() };
    const a = reserving(kv, clock, 16, 'server-a');
    const b = reserving(kv, clock, 16, 'server-b');
    const got: number[] = [];
    for (let round = 0; round < 20; round++) {
      got.push(...(await Promise.all([...Array.from({ length: 25 }, () => a.allocateNext(BAND)), ...Array.from({ length: 25 }, () => b.allocateNext(BAND))])));
    }
    assert.is(new Set(got).size, got.length, 'no offset handed out twice');
    const rec = await stored(kv);
    assert.equal(rec.reservations!.map((r) => r.holder).sort(), ['server-a', 'server-b']);
    await a.close();
    await b.close();
    const after = await stored(kv);
    assert.is(after.reservations, undefined, 'both reservations given back');
    const count = new RangeAllocator({ kv, key: KEY, range: '10.96.0.0/16', size: 65534, what: 'IP', logger });
    assert.is(await count.used(), got.length, 'the bitmap holds exactly what was handed out');
  });
});

test('near its end a reservation is not handed out from memory; the next write renews it', async () => {
  await withStore(async (kv) => {
    const clock = { t: Date.parse('2026-11-26T10:00:00Z') };
    const a = reserving(kv, clock);
    await a.allocateNext(BAND);
    const rev = await kv.currentRevision();
    clock.t += 300_000 - 90_000; // the margin begins
    const o = await a.allocateNext(BAND);
    assert.ok((await kv.currentRevision()) > rev, 'went through a store write');
    const rec = await stored(kv);
    assert.is(rec.reservations![0]!.until, clock.t + 300_000, 'renewed by that write');
    assert.not.ok(rec.reservations![0]!.offsets.includes(o));
    await a.close();
  });
});

test('repair: a running reservation is in use; an ended one is dropped, its offsets freed as leaks, and never revived', async () => {
  await withStore(async (kv) => {
    const clock = { t: Date.parse('2026-11-26T10:00:00Z') };
    const allocations = new ServiceAllocations(kv, '/registry', { clusterIPRanges: ['10.96.0.0/16'], nodePortRange: { base: 30000, size: 2768 } }, logger);
    const services = new ResourceStore({ def: serviceDefinition, kv, storagePrefix: '/registry', continueTokenTtlMs: 60_000, logger });
    const repair = new ServiceRangeRepair({ allocations, services, logger, leakPasses: 2, now: () => clock.t });
    // A server that reserved and was then killed (no close): its own clock.
    const killed = reserving(kv, clock, 16, 'killed');
    await killed.allocateNext(BAND); // its create never got stored: a leak
    let [ips] = await repair.runOnce();
    assert.equal({ reserved: ips!.reserved, leaked: ips!.leaked }, { reserved: 16, leaked: 1 });
    clock.t += 300_001; // the reservation has ended
    [ips] = await repair.runOnce();
    assert.equal({ reserved: ips!.reserved, leaked: ips!.leaked, freed: ips!.freed }, { reserved: 0, leaked: 17, freed: 1 });
    assert.is((await stored(kv)).reservations, undefined, 'the ended reservation is dropped');
    [ips] = await repair.runOnce();
    assert.equal({ leaked: ips!.leaked, freed: ips!.freed, used: ips!.used }, { leaked: 16, freed: 16, used: 0 });
    // Had the killed server come back with its memory, it would not hand out what it reserved.
    await killed.allocateNext(BAND);
    assert.is(killed.stats.fromReservation, 0, 'nothing handed out from the dropped reservation');
    assert.ok((await stored(kv)).reservations?.find((r) => r.holder === 'killed')?.offsets.length === 16, 'a fresh reservation, written against the current bitmap');
  });
});

test.run();
