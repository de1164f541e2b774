// Leader election: a leader that cannot renew within the renew deadline stops leading (`lost`,
// reported to the embedder) — before a follower may take over the lease — then steps down and
// rejoins the election as a follower, and leads again when the lease is free (simulated clock).
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
  // Stepped down and rejoined: a live follower, not a finished machine.
  assert.ok(['follower', 'acquiring'].includes(String(a.actor.getSnapshot().value)), JSON.stringify(a.actor.getSnapshot().value));
  assert.is(a.actor.getSnapshot().status, 'active');
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

test('lost -> steps down -> rejoins -> leader again once the lease is free', async () => {
  const h = new ElectionHarness(() => conn.client, 'rejoin');
  const a = h.add('host-a_1');
  const b = h.add('host-b_2');
  a.actor.start();
  await h.settle();
  b.actor.start();
  await h.settle();
  assert.ok(a.isLeader());
  await h.advance(3_000);
  a.net.cut();
  await h.advance(20_000, 100, () => b.isLeader());
  assert.equal(a.stopped.map((s) => s.reason), ['lost']);
  assert.ok(b.isLeader());
  a.net.heal();
  // A rejoined: it contends as a follower while B renews.
  await h.advance(10_000);
  assert.is(a.actor.getSnapshot().value, 'follower');
  assert.ok(a.actor.getSnapshot().context.timing.steppedDown === 1);
  assert.equal(a.started.length, 1);
  // B dies (kill -9: no release): A takes over after the lease duration, as any follower would.
  b.actor.stop();
  const bDiedAt = h.clock.now();
  await h.advance(30_000, 100, () => a.isLeader());
  assert.ok(a.isLeader(), 'the stepped-down leader leads again');
  assert.is(a.started.length, 2);
  assert.ok(a.started[1]! - bDiedAt >= 13_000, `took over ${a.started[1]! - bDiedAt} ms after B died`);
  h.close();
});

test('alone: a leader that lost the lease and steps down leads again once the API answers', async () => {
  const h = new ElectionHarness(() => conn.client, 'rejoin-alone');
  let stepDowns = 0;
  const a = h.add('host-a_1', {}, {
    stepDown: async () => {
      stepDowns++;
      // The embedder's work takes a while to stop.
      await new Promise((r) => setTimeout(r, 50));
    },
  });
  a.actor.start();
  await h.settle();
  await h.advance(2_000);
  a.net.cut();
  await h.advance(15_000, 100, () => a.stopped.length > 0);
  assert.equal(a.stopped.map((s) => s.reason), ['lost']);
  assert.ok(!a.isLeader());
  assert.is(a.actor.getSnapshot().value, 'steppingDown', 'waits for the embedder to stop its work');
  await new Promise((r) => setTimeout(r, 100));
  await h.advance(100);
  assert.ok(['follower', 'acquiring'].includes(String(a.actor.getSnapshot().value)));
  a.net.heal();
  await h.advance(10_000, 100, () => a.isLeader());
  assert.is(stepDowns, 1);
  assert.ok(a.isLeader());
  assert.is(a.started.length, 2);
  h.close();
});

test.run();
