// Leader-election locks against the real apiserver: the established record shapes for every lock
// type, optimistic concurrency, and multilocks writing both objects, primary first.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { ApiError } from '../../src/client/types.js';
import { LOCK_TYPES } from '../../src/runtime/leader-election/config.js';
import { LockKeeper } from '../../src/runtime/leader-election/lock-keeper.js';
import { newResourceLock } from '../../src/runtime/leader-election/new-lock.js';
import { LEADER_ANNOTATION, type LeaderElectionRecord } from '../../src/runtime/leader-election/record.js';
import { LeaseLock } from '../../src/runtime/leader-election/lease-lock.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { realClient } from '../helpers/real-client.js';
import { instrumented } from '../helpers/instrumented-client.js';

let server: ApiServerProcess;
let conn: ReturnType<typeof realClient>;
test.before(async () => {
  server = await startApiServer();
  conn = realClient(server);
});
test.after(async () => {
  await conn.close();
  await server.stop();
  server.cleanup();
});

const NS = 'svc-system';
const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const clock = { now: () => Date.now() };

async function read(path: string): Promise<SvcObject> {
  const r = await server.request('GET', path);
  assert.is(r.status, 200, `${path}: ${r.text}`);
  return r.json as SvcObject;
}

test('leases: the record is the Lease spec (holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions)', async () => {
  const client = conn.client;
  const keeper = new LockKeeper(newResourceLock('leases', client, { namespace: NS, name: 'lease-shape', identity: 'host_a' }), 15_000, clock);
  assert.equal(await keeper.tryAcquireOrRenew(), { kind: 'acquired', holder: 'host_a' });
  const lease = await read(`/apis/coordination.svc.io/v1/namespaces/${NS}/leases/lease-shape`);
  const spec = lease['spec'] as Record<string, unknown>;
  assert.is(spec['holderIdentity'], 'host_a');
  assert.is(spec['leaseDurationSeconds'], 15);
  assert.is(spec['leaseTransitions'], 0);
  assert.match(String(spec['acquireTime']), MICRO);
  assert.match(String(spec['renewTime']), MICRO);
  assert.equal(await keeper.tryAcquireOrRenew(), { kind: 'renewed', holder: 'host_a' });
  const renewed = (await read(`/apis/coordination.svc.io/v1/namespaces/${NS}/leases/lease-shape`))['spec'] as Record<string, unknown>;
  assert.is(renewed['acquireTime'], spec['acquireTime'], 'renewing keeps acquireTime');
});

test('release after a renewal that raced it (the stop came mid-attempt): the lock is still given up', async () => {
  const client = conn.client;
  const keeper = new LockKeeper(newResourceLock('leases', client, { namespace: NS, name: 'lease-race', identity: 'host_r' }), 15_000, clock);
  assert.equal(await keeper.tryAcquireOrRenew(), { kind: 'acquired', holder: 'host_r' });
  // Another writer of ours (a renewal in flight through a second lock object) moves the version on.
  const other = new LockKeeper(newResourceLock('leases', client, { namespace: NS, name: 'lease-race', identity: 'host_r' }), 15_000, clock);
  assert.equal(await other.tryAcquireOrRenew(), { kind: 'renewed', holder: 'host_r' });
  assert.is(await keeper.release(), true);
  const spec = (await read(`/apis/coordination.svc.io/v1/namespaces/${NS}/leases/lease-race`))['spec'] as Record<string, unknown>;
  assert.is(spec['holderIdentity'] ?? '', '', 'released: no holder');
  assert.is(spec['leaseDurationSeconds'], 1);
});

for (const [type, resource] of [
  ['endpoints', 'endpoints'],
  ['configmaps', 'configmaps'],
] as const) {
  test(`${type}: the record is JSON in the ${LEADER_ANNOTATION} annotation`, async () => {
    const client = conn.client;
    const keeper = new LockKeeper(newResourceLock(type, client, { namespace: NS, name: `${type}-shape`, identity: 'host_b' }), 15_000, clock);
    assert.is((await keeper.tryAcquireOrRenew()).kind, 'acquired');
    const obj = await read(`/api/v1/namespaces/${NS}/${resource}/${type}-shape`);
    const record = JSON.parse(obj.metadata.annotations![LEADER_ANNOTATION]!) as LeaderElectionRecord;
    assert.equal(Object.keys(record).sort(), ['acquireTime', 'holderIdentity', 'leaderTransitions', 'leaseDurationSeconds', 'renewTime']);
    assert.is(record.holderIdentity, 'host_b');
    assert.is(record.leaseDurationSeconds, 15);
    assert.is(record.leaderTransitions, 0);
    assert.match(record.renewTime, SECONDS);
  });
}

for (const [type, primary] of [
  ['endpointsleases', 'endpoints'],
  ['configmapsleases', 'configmaps'],
] as const) {
  test(`${type}: writes the ${primary} lock and the Lease, primary first, with the same holder`, async () => {
    const client = conn.client;
    const keeper = new LockKeeper(newResourceLock(type, client, { namespace: NS, name: `${type}-multi`, identity: 'host_c' }), 15_000, clock);
    assert.is((await keeper.tryAcquireOrRenew()).kind, 'acquired');
    assert.is((await keeper.tryAcquireOrRenew()).kind, 'renewed');
    const old = await read(`/api/v1/namespaces/${NS}/${primary}/${type}-multi`);
    const lease = await read(`/apis/coordination.svc.io/v1/namespaces/${NS}/leases/${type}-multi`);
    assert.is((JSON.parse(old.metadata.annotations![LEADER_ANNOTATION]!) as LeaderElectionRecord).holderIdentity, 'host_c');
    assert.is((lease['spec'] as Record<string, unknown>)['holderIdentity'], 'host_c');
    // Primary first: the old lock was created before the Lease.
    assert.ok(Number(old.metadata.resourceVersion) < Number(lease.metadata.resourceVersion));
  });
}

test('a multilock whose two records name different holders reports an unknown holder', async () => {
  const client = conn.client;
  const keeper = new LockKeeper(newResourceLock('configmapsleases', client, { namespace: NS, name: 'split', identity: 'host_d' }), 15_000, clock);
  await keeper.tryAcquireOrRenew();
  const r = await server.request('PATCH', `/apis/coordination.svc.io/v1/namespaces/${NS}/leases/split`, { spec: { holderIdentity: 'someone-else' } }, {
    'content-type': 'application/merge-patch+json',
  });
  assert.is(r.status, 200);
  const other = new LockKeeper(newResourceLock('configmapsleases', client, { namespace: NS, name: 'split', identity: 'host_e' }), 15_000, clock);
  const out = await other.tryAcquireOrRenew();
  assert.equal(out, { kind: 'heldByOther', holder: 'leaderelection.svc.io/unknown' });
});

test('two multilock replicas racing to create a fresh lock: exactly one wins, and both records name it', async () => {
  const client = conn.client;
  for (let round = 0; round < 6; round++) {
    const name = `race-${round}`;
    const keepers = ['host_x', 'host_y'].map(
      (identity) => new LockKeeper(newResourceLock('endpointsleases', client, { namespace: NS, name, identity }), 15_000, clock),
    );
    const outs = await Promise.all(keepers.map((k) => k.tryAcquireOrRenew().catch((e: unknown) => ({ kind: 'threw', error: String(e) }))));
    const winners = outs.filter((o) => o.kind === 'acquired') as { kind: 'acquired'; holder: string }[];
    assert.is(winners.length, 1, `round ${round}: ${JSON.stringify(outs)}`);
    const ep = await read(`/api/v1/namespaces/${NS}/endpoints/${name}`);
    const annotated = JSON.parse(String(ep.metadata.annotations?.[LEADER_ANNOTATION])) as LeaderElectionRecord;
    const lease = (await read(`/apis/coordination.svc.io/v1/namespaces/${NS}/leases/${name}`))['spec'] as Record<string, unknown>;
    assert.is(annotated.holderIdentity, winners[0]!.holder, 'the Endpoints record names the winner');
    assert.is(lease['holderIdentity'], winners[0]!.holder, 'the Lease names the winner');
  }
});

test('every update is optimistic: a write based on a stale read fails with 409 Conflict', async () => {
  const client = conn.client;
  const a = new LeaseLock(client, NS, 'occ', 'a');
  const b = new LeaseLock(client, NS, 'occ', 'b');
  const rec = (holder: string): LeaderElectionRecord => ({ holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: '', renewTime: '', leaderTransitions: 0 });
  await a.create(rec('a'));
  await b.get();
  // A real change: an identical update is a no-op that keeps the resourceVersion.
  await a.update({ ...rec('a'), leaderTransitions: 1 });
  try {
    await b.update(rec('b'));
    assert.unreachable('stale update went through');
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    assert.is((e as ApiError).code, 409);
  }
  const keeper = new LockKeeper(b, 15_000, clock);
  assert.is((await keeper.tryAcquireOrRenew()).kind, 'heldByOther');
});

test('a leader renews with writes only (leases: 1 request, endpointsleases: 2); a lock written by someone else meanwhile is read again', async () => {
  for (const [type, writes] of [['leases', 1], ['endpointsleases', 2]] as const) {
    const net = instrumented(conn.client);
    const keeper = new LockKeeper(newResourceLock(type, net.client, { namespace: NS, name: `${type}-fast`, identity: 'host_f' }), 15_000, clock);
    assert.is((await keeper.tryAcquireOrRenew()).kind, 'acquired');
    const before = net.calls;
    assert.is((await keeper.tryAcquireOrRenew()).kind, 'renewed');
    assert.is(net.calls - before, writes, `${type}: a renewal is ${writes} request(s)`);
    // Another replica takes the lock over (as after our lease had run out).
    let skew = 0;
    const thief = new LockKeeper(newResourceLock(type, conn.client, { namespace: NS, name: `${type}-fast`, identity: 'host_g' }), 15_000, { now: () => Date.now() + skew });
    assert.is((await thief.tryAcquireOrRenew()).kind, 'heldByOther');
    skew = 16_000;
    assert.is((await thief.tryAcquireOrRenew()).kind, 'acquired');
    // Our write on the version we last wrote conflicts; the slow path reads the lock and follows.
    assert.equal(await keeper.tryAcquireOrRenew(), { kind: 'heldByOther', holder: 'host_g' });
  }
});

test('every lock type is buildable by name', () => {
  const client = conn.client;
  for (const t of LOCK_TYPES) assert.ok(newResourceLock(t, client, { namespace: NS, name: 'n', identity: 'i' }).describe().startsWith(`${NS}/n`));
});

test.run();
