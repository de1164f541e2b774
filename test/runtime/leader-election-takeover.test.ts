// Leader election, two electors against the real apiserver on a simulated clock: one leads, the
// other follows; a crashed leader's lease is taken over only after the lease duration; the lock's
// history never shows two leaders at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { ElectionHarness } from '../helpers/election.js';
import { realClient } from '../helpers/real-client.js';

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

const LEASE = 15_000;
const RETRY = 2_000;

test('the first elector acquires a free lock; the second follows and keeps retrying', async () => {
  const h = new ElectionHarness(() => conn.client, 'first-wins');
  const a = h.add('host-a_1');
  a.actor.start();
  await h.settle();
  assert.ok(a.isLeader());
  const b = h.add('host-b_2');
  b.actor.start();
  await h.settle();
  assert.is(b.actor.getSnapshot().value, 'follower');
  const before = b.net.calls;
  await h.advance(30_000);
  assert.ok(a.isLeader(), 'the leader keeps renewing');
  assert.ok(b.net.calls - before >= 14, 'the follower retried every retry period');
  assert.is(b.actor.getSnapshot().value, 'follower');
  h.close();
});

test('a crashed leader is replaced after the lease duration (not before, and within lease + retry)', async () => {
  const h = new ElectionHarness(() => conn.client, 'takeover');
  h.watchHistory();
  const a = h.add('host-a_1');
  const b = h.add('host-b_2');
  a.actor.start();
  await h.settle();
  b.actor.start();
  await h.settle();
  await h.advance(7_000);
  // Crash: the actor just stops; it neither renews nor releases.
  a.actor.stop();
  const crashedAt = h.clock.now();
  await h.advance(LEASE + RETRY + 1_000, 100, () => b.isLeader());
  assert.ok(b.isLeader(), 'the follower took over');
  const tookOver = b.started[0]!;
  await h.historyWhere((hist) => hist.at(-1)?.holder === 'host-b_2');
  const lastRenew = Date.parse(h.history.filter((r) => r.holder === 'host-a_1').at(-1)!.renewTime);
  assert.ok(tookOver >= lastRenew + LEASE, `took over ${tookOver - lastRenew} ms after the last renewal; lease is ${LEASE}`);
  assert.ok(tookOver <= crashedAt + LEASE + RETRY, `took over ${tookOver - crashedAt} ms after the crash; limit ${LEASE + RETRY}`);
  const holders = h.history.map((r) => r.holder);
  assert.is(holders[0], 'host-a_1');
  assert.is(holders.at(-1), 'host-b_2');
  h.close();
});

test('the lock history shows one holder at a time, each change of holder counting one transition', async () => {
  const h = new ElectionHarness(() => conn.client, 'history');
  h.watchHistory();
  const ids = ['host-a_1', 'host-b_2', 'host-c_3'];
  const electors = ids.map((id) => h.add(id));
  for (const e of electors) e.actor.start();
  await h.settle();
  // Crash whoever leads, twice; the others take over in turn.
  for (let round = 0; round < 2; round++) {
    await h.advance(5_000);
    const leader = electors.find((e) => e.isLeader())!;
    leader.actor.stop();
    await h.advance(LEASE + 2 * RETRY, 100, () => electors.some((e) => e !== leader && e.isLeader()));
  }
  await h.advance(500);
  await h.historyWhere((hist) => new Set(hist.map((r) => r.holder)).size === 3);
  const changes = h.history.filter((r, i) => i === 0 || r.holder !== h.history[i - 1]!.holder);
  assert.is(changes.length, 3, JSON.stringify(h.history));
  changes.forEach((r, i) => assert.is(r.transitions, i, 'leaseTransitions counts holder changes'));
  for (let i = 1; i < changes.length; i++) {
    const prevVersions = h.history.filter((r) => r.holder === changes[i - 1]!.holder);
    const lastRenew = Date.parse(prevVersions.at(-1)!.renewTime);
    assert.ok(Date.parse(changes[i]!.acquireTime) >= lastRenew + LEASE, 'the next holder acquired only after the lease lapsed');
  }
  // The electors' own view agrees: three terms, each starting after the previous leader's crash.
  const starts = electors.flatMap((e) => e.started).sort((x, y) => x - y);
  assert.is(starts.length, 3);
  h.close();
});

test('a leader that is stopped with releaseOnStop hands over at the follower next retry', async () => {
  const h = new ElectionHarness(() => conn.client, 'release');
  const a = h.add('host-a_1', { releaseOnStop: true });
  const b = h.add('host-b_2');
  a.actor.start();
  await h.settle();
  b.actor.start();
  await h.settle();
  await h.advance(3_000);
  a.actor.send({ type: 'STOP' });
  await h.settle();
  assert.is(a.actor.getSnapshot().value, 'stopped');
  assert.equal(a.stopped.map((s) => s.reason), ['stopped']);
  const releasedAt = h.clock.now();
  await h.advance(LEASE, 100, () => b.isLeader());
  assert.ok(b.isLeader());
  assert.ok(b.started[0]! - releasedAt <= RETRY + 1_000, `took ${b.started[0]! - releasedAt} ms`);
  h.close();
});

test.run();
