// The Service range allocator: the bitmap and the address math, the persisted allocator's
// compare-and-swap (two "API servers" on one embedded store and on one real etcd never hand out the
// same address), group commit, persistence, and the repair loop (leaks freed after their passes,
// unmarked addresses marked, double allocations and out-of-range addresses reported as Events).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventDefinition } from '../../src/api/kinds/core/event.js';
import { serviceDefinition } from '../../src/api/kinds/core/service.js';
import type { SvcObject } from '../../src/api/types.js';
import { ResourceStore } from '../../src/apiserver/resource-store.js';
import { Bitmap } from '../../src/api/net/bitmap.js';
import { clusterIPBandStart } from '../../src/apiserver/services/allocation-bands.js';
import { canonicalIp } from '../../src/api/net/ip-address.js';
import { ServiceIPRange } from '../../src/apiserver/services/ip-range.js';
import { AllocatedError, RangeAllocator, RangeFullError } from '../../src/apiserver/services/range-allocator.js';
import { ServiceRangeRepair } from '../../src/apiserver/services/repair.js';
import { ServiceAllocations } from '../../src/apiserver/services/service-allocation.js';
import { encodeForStorage } from '../../src/apiserver/stored-object.js';
import { openEmbeddedStore } from '../../src/storage/embedded.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import type { KVStore } from '../../src/storage/types.js';
import { startEtcd } from '../helpers/etcd.js';

const logger = pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });

function embedded(): { kv: KVStore; done(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ranges-'));
  const kv = openEmbeddedStore({ dir, logger });
  return {
    kv,
    async done() {
      await kv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const allocator = (kv: KVStore, size = 254) => new RangeAllocator({ kv, key: '/registry/ranges/serviceips', range: '10.0.0.0/24', size, what: 'IP', logger });

test('address math: a /24 hands out .1 to .254; network and broadcast are never offsets', () => {
  const r = new ServiceIPRange('10.0.0.7/24');
  assert.is(r.cidr, '10.0.0.0/24');
  assert.is(r.size, 254);
  assert.is(r.ipAt(0), '10.0.0.1');
  assert.is(r.ipAt(253), '10.0.0.254');
  assert.is(r.offsetOf('10.0.0.0'), undefined);
  assert.is(r.offsetOf('10.0.0.255'), undefined);
  assert.is(r.offsetOf('10.0.1.1'), undefined);
  assert.is(r.offsetOf('10.0.0.5'), 4);
  const v6 = new ServiceIPRange('fd00:10:96::/108');
  assert.is(v6.size, 65_535, 'IPv6 ranges are capped at 65,536 addresses, the network address excluded');
  assert.is(v6.ipAt(0), 'fd00:10:96::1');
  assert.is(v6.offsetOf('fd00:10:96:0:0:0:0:a'), 9);
  assert.is(canonicalIp('fd00:0:0:0:0:0:0:1'), 'fd00::1');
  assert.is(canonicalIp('::ffff:1.2.3.4'), '::ffff:102:304');
});

test('bitmap: the established byte layout, counts, and a free pick in the upper band first', () => {
  const b = new Bitmap(20);
  assert.ok(b.set(0));
  assert.ok(b.set(9));
  assert.not.ok(b.set(9), 'setting twice reports it');
  assert.equal([...b.data()], [0b1, 0b10], 'bit i is bit i%8 of byte i/8; trailing zero bytes dropped');
  assert.is(b.count, 2);
  assert.ok(b.clear(0));
  assert.not.ok(b.clear(0));
  assert.equal([...new Bitmap(20, b.data()).offsets()], [9]);
  const big = new Bitmap(254);
  const band = clusterIPBandStart(254);
  assert.is(band, 16);
  for (let i = 0; i < 100; i++) {
    const o = big.pickFree(band)!;
    assert.ok(o >= band, `dynamic picks stay above the static band (${o})`);
    big.set(o);
  }
  const full = new Bitmap(3);
  for (let i = 0; i < 3; i++) full.set(full.pickFree(0)!);
  assert.is(full.pickFree(0), undefined);
});

test('allocator: chosen and next offsets, refusals, release, and a new allocator sees what is stored', async () => {
  const { kv, done } = embedded();
  try {
    const a = allocator(kv);
    assert.is(await a.allocate(4), 4);
    try {
      await a.allocate(4);
      assert.unreachable('taken twice');
    } catch (err) {
      assert.instance(err, AllocatedError);
      assert.is((err as Error).message, 'provided IP is already allocated');
    }
    const next = await a.allocateNext(16);
    assert.ok(next >= 16);
    const restarted = allocator(kv);
    assert.is(await restarted.used(), 2, 'the allocation survives a restart');
    await restarted.release(4);
    assert.is(await a.allocate(4), 4, 'the other allocator learns of the release from the store');
    // Dry runs change nothing.
    const before = (await kv.get('/registry/ranges/serviceips'))!.modRevision;
    await a.peekFree(16);
    await a.checkFree(100);
    assert.is((await kv.get('/registry/ranges/serviceips'))!.modRevision, before);
  } finally {
    await done();
  }
});

test('allocator: a full range says so', async () => {
  const { kv, done } = embedded();
  try {
    const a = allocator(kv, 4);
    await Promise.all([0, 1, 2, 3].map(() => a.allocateNext(0)));
    try {
      await a.allocateNext(0);
      assert.unreachable('full');
    } catch (err) {
      assert.instance(err, RangeFullError);
    }
  } finally {
    await done();
  }
});

test('allocator: a burst is group-committed (far fewer store writes than allocations)', async () => {
  const { kv, done } = embedded();
  try {
    const a = allocator(kv);
    const start = await kv.currentRevision();
    const got = await Promise.all(Array.from({ length: 200 }, () => a.allocateNext(16)));
    assert.is(new Set(got).size, 200);
    const writes = (await kv.currentRevision()) - start;
    assert.ok(writes <= 5, `200 allocations took ${writes} store writes`);
  } finally {
    await done();
  }
});

async function race(kvA: KVStore, kvB: KVStore): Promise<void> {
  // Two API servers, each with its own allocator (and its own stale copy), allocating at once.
  const a = new RangeAllocator({ kv: kvA, key: '/registry/ranges/servicenodeports', range: '30000-32767', size: 2768, what: 'port', logger });
  const b = new RangeAllocator({ kv: kvB, key: '/registry/ranges/servicenodeports', range: '30000-32767', size: 2768, what: 'port', logger });
  const rounds = 10;
  const all: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const batch = await Promise.all([
      ...Array.from({ length: 50 }, () => a.allocateNext(0)),
      ...Array.from({ length: 50 }, () => b.allocateNext(0)),
    ]);
    all.push(...batch);
  }
  assert.is(all.length, rounds * 100);
  assert.is(new Set(all).size, all.length, 'no offset handed out twice');
  // The same chosen offset from both (one that was just given back): exactly one wins.
  const contested = all[0]!;
  await a.release(contested);
  const outcomes = await Promise.allSettled([a.allocate(contested), b.allocate(contested)]);
  assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
  assert.instance((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason, AllocatedError);
  const stored = new RangeAllocator({ kv: kvA, key: '/registry/ranges/servicenodeports', range: '30000-32767', size: 2768, what: 'port', logger });
  assert.is(await stored.used(), rounds * 100);
}

test('compare-and-swap: two allocators on one embedded store never hand out the same port', async () => {
  const { kv, done } = embedded();
  try {
    await race(kv, kv);
  } finally {
    await done();
  }
});

test('compare-and-swap: two clients of one real etcd never hand out the same port', async () => {
  const etcd = await startEtcd();
  const a = await openEtcdStore({ endpoints: [etcd.endpoint] });
  const b = await openEtcdStore({ endpoints: [etcd.endpoint] });
  try {
    await race(a, b);
  } finally {
    await a.close();
    await b.close();
    await etcd.stop();
  }
});

function serviceStores(kv: KVStore) {
  const services = new ResourceStore({ def: serviceDefinition, kv, storagePrefix: '/registry', continueTokenTtlMs: 60_000, logger });
  const events = new ResourceStore({ def: eventDefinition, kv, storagePrefix: '/registry', continueTokenTtlMs: 60_000, logger });
  return { services, events };
}

async function putService(kv: KVStore, name: string, spec: Record<string, unknown>): Promise<void> {
  const obj: SvcObject = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec };
  await kv.create(`/registry/services/default/${name}`, encodeForStorage(obj));
}

test('repair: a leaked address is freed after its passes; an unmarked one is marked', async () => {
  const { kv, done } = embedded();
  try {
    const allocations = new ServiceAllocations(kv, '/registry', { clusterIPRanges: ['10.0.0.0/24'], nodePortRange: { base: 30000, size: 2768 } }, logger);
    const { services, events } = serviceStores(kv);
    const repair = new ServiceRangeRepair({ allocations, services, events: { def: eventDefinition, store: events }, logger, leakPasses: 2 });
    const ip = allocations.ipAllocators[0]!;
    // A crash between the allocation and the Service's write: 10.0.0.50 taken, no Service.
    await ip.allocate(49);
    // A Service whose address and node port are not marked (e.g. written before the key existed).
    await putService(kv, 'held', { type: 'NodePort', clusterIP: '10.0.0.20', clusterIPs: ['10.0.0.20'], ports: [{ port: 80, nodePort: 30080 }] });
    let [ips, ports] = await repair.runOnce();
    assert.is(ips!.leaked, 1);
    assert.is(ips!.freed, 0, 'kept for now: a create may be on its way');
    assert.is(ips!.used, 1);
    assert.is(ports!.used, 1);
    [ips] = await repair.runOnce();
    assert.is(ips!.freed, 1, 'freed on the second pass');
    const fresh = new ServiceAllocations(kv, '/registry', { clusterIPRanges: ['10.0.0.0/24'], nodePortRange: { base: 30000, size: 2768 } }, logger);
    await fresh.ipAllocators[0]!.allocate(49); // free again
    await fresh.ipAllocators[0]!.release(49);
    await fresh.ipAllocators[0]!.checkFree(49);
    try {
      await fresh.ipAllocators[0]!.checkFree(19);
      assert.unreachable('10.0.0.20 is marked');
    } catch (err) {
      assert.instance(err, AllocatedError);
    }
    try {
      await fresh.nodePorts.checkFree(80);
      assert.unreachable('30080 is marked');
    } catch (err) {
      assert.instance(err, AllocatedError);
    }
    [ips, ports] = await repair.runOnce();
    assert.equal({ leaked: ips!.leaked, notAllocated: ips!.notAllocated, duplicates: ips!.duplicates }, { leaked: 0, notAllocated: 0, duplicates: 0 });
  } finally {
    await done();
  }
});

test('repair: two Services on one address and one outside the range are reported as Warning Events', async () => {
  const { kv, done } = embedded();
  try {
    const allocations = new ServiceAllocations(kv, '/registry', { clusterIPRanges: ['10.0.0.0/24'], nodePortRange: { base: 30000, size: 2768 } }, logger);
    const { services, events } = serviceStores(kv);
    const repair = new ServiceRangeRepair({ allocations, services, events: { def: eventDefinition, store: events }, logger });
    await putService(kv, 'first', { clusterIP: '10.0.0.30', clusterIPs: ['10.0.0.30'], ports: [{ port: 80 }] });
    await putService(kv, 'second', { clusterIP: '10.0.0.30', clusterIPs: ['10.0.0.30'], ports: [{ port: 80 }] });
    await putService(kv, 'outside', { clusterIP: '10.9.0.1', clusterIPs: ['10.9.0.1'], ports: [{ port: 80 }] });
    const [ips] = await repair.runOnce();
    assert.is(ips!.duplicates, 1);
    assert.is(ips!.outOfRange, 1);
    const list = await kv.list('/registry/events/');
    const reasons = list.items.map((r) => JSON.parse(Buffer.from(r.value).toString()) as { reason: string; message: string; type: string });
    assert.equal(reasons.map((e) => e.reason).sort(), ['ClusterIPAlreadyAllocated', 'ClusterIPOutOfRange']);
    assert.ok(reasons.every((e) => e.type === 'Warning'));
    assert.ok(reasons.some((e) => e.message === 'Cluster IP [IPv4]:10.0.0.30 was assigned to multiple services; please recreate service'), JSON.stringify(reasons));
  } finally {
    await done();
  }
});

test.run();
