// Leader election: a leader that cannot renew within the renew deadline stops leading (`lost`,
// reported to the embedder) — before a follower may take over the lease.
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

test('a partitioned leader reports lost after the renew deadline, and before the follower takes over', async () => {
  const h = new ElectionHarness(() => conn.client, 'partition');
  const a = h.add('host-a_1');
  const b = h.add('host-b_2');
  a.actor.start();
  await h.settle();
  b.actor.start();
  await h.settle();
  await h.advance(4_000);
  // The renew that just succeeded is the last: cut A off right after it.
  const lastRenewal = h.clock.now();
  a.net.cut();
  await h.advance(20_000, 100, () => b.isLeader());
  assert.is(a.actor.getSnapshot().value, 'lost');
  assert.is(a.actor.getSnapshot().status, 'done');
  assert.equal(a.stopped.map((s) => s.reason), ['lost']);
  const lostAt = a.stopped[0]!.at;
  // The renew cycle after the last success starts one retry period later and may take 10 s.
  assert.ok(lostAt - lastRenewal <= 2_000 + 10_000, `lost ${lostAt - lastRenewal} ms after the last renewal`);
  assert.ok(b.isLeader());
  assert.ok(b.started[0]! > lostAt, 'the old leader stopped leading before the new one started');
  assert.ok(b.started[0]! - lastRenewal >= 15_000, 'the follower waited out the lease duration');
  h.close();
});

test('a leader that fails a few renewals but succeeds within the deadline stays leader', async () => {
  const h = new ElectionHarness(() => conn.client, 'flaky');
  const a = h.add('host-a_1');
  a.actor.start();
  await h.settle();
  await h.advance(2_000);
  a.net.cut();
  await h.advance(6_000);
  assert.equal(a.actor.getSnapshot().value, { leader: { renewing: 'waiting' } });
  assert.ok(a.actor.getSnapshot().context.failures >= 2);
  a.net.heal();
  await h.advance(2_000);
  assert.ok(a.isLeader());
  assert.equal(a.stopped, []);
  await h.advance(20_000);
  assert.ok(a.isLeader());
  h.close();
});

test.run();
