import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventRing } from '../../src/storage/watch-cache-ring.js';
import { configMap, openTempStore, startCache } from './embedded-fixture.js';

const ev = (revision: number) => ({ revision });

test('the ring keeps at least capacity events and drops older ones once past the time window', () => {
  const ring = new EventRing(3, 1000, 100);
  for (let r = 1; r <= 10; r++) ring.append(ev(r), 0); // all young: kept
  assert.is(ring.length, 10);
  ring.append(ev(11), 5000); // everything before is expired: down to capacity
  assert.is(ring.length, 3);
  assert.equal(ring.since(0).map((e) => e.revision), [9, 10, 11]);
  assert.is(ring.evictedRevision, 8);
});

test('events that aged out go without a new append (an idle resource keeps only its capacity)', () => {
  const ring = new EventRing(3, 1000, 100);
  for (let r = 1; r <= 10; r++) ring.append(ev(r), r * 100);
  assert.is(ring.evictExpired(1000), 0, 'all still inside the window');
  assert.is(ring.evictExpired(1550), 5, 'revisions 1-5 (times 100-500) aged out');
  assert.equal(ring.since(0).map((e) => e.revision), [6, 7, 8, 9, 10]);
  assert.is(ring.evictExpired(60_000), 2, 'never below capacity');
  assert.equal(ring.since(0).map((e) => e.revision), [8, 9, 10]);
  assert.is(ring.evictedRevision, 7);
});

test('the ring never holds more than maxEvents, even inside the window', () => {
  const ring = new EventRing(2, 60_000, 5);
  for (let r = 1; r <= 40; r++) ring.append(ev(r), r);
  assert.is(ring.length, 5);
  assert.equal(ring.since(0).map((e) => e.revision), [36, 37, 38, 39, 40]);
  assert.equal(ring.since(38).map((e) => e.revision), [39, 40]);
  assert.equal(ring.since(40), []);
});

test('beyond capacity, the ring holds no more than maxBytes of events, even inside the window', () => {
  const ring = new EventRing(3, 60_000, 1000, 1000);
  for (let r = 1; r <= 20; r++) ring.append(ev(r), r, 300);
  // 3 events of 300 bytes fit in 1,000: the oldest go as each new one comes.
  assert.is(ring.length, 3);
  assert.is(ring.bytes, 900);
  assert.equal(ring.since(0).map((e) => e.revision), [18, 19, 20]);
  assert.is(ring.evictedRevision, 17);
  // Larger events than the bound: the ring still keeps its capacity.
  for (let r = 21; r <= 25; r++) ring.append(ev(r), r, 5000);
  assert.equal(ring.since(0).map((e) => e.revision), [23, 24, 25]);
  assert.is(ring.bytes, 15_000);
  // Small ones again: beyond the capacity, only while the bytes fit.
  const small = new EventRing(1, 60_000, 1000, 1000);
  for (let r = 1; r <= 10; r++) small.append(ev(r), r, 100);
  assert.is(small.length, 10);
  small.append(ev(11), 11, 100);
  assert.is(small.length, 10, 'the 11th pushed the oldest out');
  assert.is(small.bytes, 1000);
  small.clear(11);
  assert.is(small.bytes, 0);
});

test('the byte bound never takes an event younger than minAgeMs; the expiry check applies it once they age', () => {
  const ring = new EventRing(1, 60_000, 1000, 1000, 100);
  for (let r = 1; r <= 20; r++) ring.append(ev(r), 10 + r, 300);
  assert.is(ring.length, 20, 'all younger than 100 ms at the last append: kept over the bound');
  assert.is(ring.bytes, 6000);
  assert.is(ring.evictExpired(50), 0, 'still young');
  assert.is(ring.evictExpired(200), 17, 'aged: down to what fits in 1,000 bytes');
  assert.equal(ring.since(0).map((e) => e.revision), [18, 19, 20]);
});

test('replay start is found by revision across wrap-around and growth', () => {
  const ring = new EventRing(4, 0, 1000);
  for (let r = 1; r <= 1000; r += 2) ring.append(ev(r), 0); // odd revisions, expired immediately
  assert.is(ring.length, 4);
  assert.equal(ring.since(994).map((e) => e.revision), [995, 997, 999]);
  assert.equal(ring.since(995).map((e) => e.revision), [997, 999]);
});

test('the cache keeps events younger than historyWindowMs beyond its capacity (injected clock)', async () => {
  const t = openTempStore();
  let now = 0;
  try {
    const cache = await startCache(t.store, '/cm/', { capacity: 2, historyWindowMs: 1000, now: () => now });
    const start = cache.revision;
    for (let i = 0; i < 10; i++) await t.store.create(`/cm/${i}`, configMap(String(i)));
    assert.ok(await cache.waitForRevision(start + 10, 1000));
    assert.is(cache.oldestRevision(), start, 'all ten still in the window');
    now = 5000;
    await t.store.create('/cm/late', configMap('late'));
    assert.ok(await cache.waitForRevision(start + 11, 1000));
    assert.is(cache.oldestRevision(), start + 9, 'only capacity events left');
    cache.stop();
  } finally {
    await t.cleanup();
  }
});

test.run();
