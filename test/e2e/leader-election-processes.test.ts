// Leader election end to end: two real `svc run` processes hosting the same controller module
// against the real apiserver. Exactly one leads (and only it reconciles); after kill -9 of the
// leader the other takes over once the lease has lapsed, never earlier; a SIGTERM releases the
// lock so the other takes over at once; a leader that cannot renew in time steps down and leads
// again without exiting. The Lease's history (watched) and each process's started/stopped-leading
// log lines show that two leaders never overlap.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import type { Subscription } from 'rxjs';
import type { SvcObject } from '../../src/api/types.js';
import type { ApiClient } from '../../src/client/types.js';
import { resources } from '../../src/client/index.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { writeSvcconfig } from '../helpers/client.js';
import { realClient } from '../helpers/real-client.js';
import { ECHO_MODULE, startSvc, type LogLine, type SvcProcess } from '../helpers/svc-process.js';

const LEASE_MS = 3000;
const RENEW_MS = 2000;
const RETRY_MS = 500;
const LEASES = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true };

interface LeaseVersion {
  holder: string;
  transitions: number;
  acquireTime: number;
  renewTime: number;
}

let server: ApiServerProcess;
let api: { client: ApiClient; close(): Promise<void> };
let svcconfig: string;

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
});

test.after(async () => {
  await api.close();
  await server.stop();
  server.cleanup();
});

function replica(lock: string, name: string): SvcProcess {
  return startSvc([
    'run',
    `--svcconfig=${svcconfig}`,
    '--secure-port=0',
    `--leader-elect-resource-lock=${lock}`,
    `--leader-elect-resource-name=${name}`,
    `--leader-elect-lease-duration=${LEASE_MS / 1000}s`,
    `--leader-elect-renew-deadline=${RENEW_MS / 1000}s`,
    `--leader-elect-retry-period=${RETRY_MS}ms`,
    ECHO_MODULE,
  ]);
}

/** Every version of the Lease `name`, as a watch delivers them. */
function watchLease(name: string): { history: LeaseVersion[]; sub: Subscription } {
  const history: LeaseVersion[] = [];
  const sub = api.client.watch(LEASES, { namespace: 'svc-system', fieldSelector: `metadata.name=${name}` }).subscribe({
    error: () => {},
    next: (ev) => {
      const spec = ((ev.object as SvcObject)['spec'] ?? {}) as Record<string, string | number | undefined>;
      history.push({
        holder: String(spec['holderIdentity'] ?? ''),
        transitions: Number(spec['leaseTransitions'] ?? 0),
        acquireTime: Date.parse(String(spec['acquireTime'])),
        renewTime: Date.parse(String(spec['renewTime'])),
      });
    },
  });
  return { history, sub };
}

const identityOf = async (p: SvcProcess) =>
  String(((await p.waitFor((l) => l.msg === 'hosting controllers', 30_000, 'start-up')).leaderElection as { identity: string }).identity);
const startedLeading = (l: LogLine) => l.msg === 'started leading';
const isLeading = (p: SvcProcess) => p.lines.some(startedLeading);

/** Intervals during which each process led (by its own log lines; `endedAt` closes an open one). */
function leadIntervals(p: SvcProcess, endedAt: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start: number | undefined;
  for (const l of p.lines) {
    if (l.msg === 'started leading') start = l.receivedAt;
    if (l.msg === 'stopped leading' && start !== undefined) {
      out.push([start, l.receivedAt]);
      start = undefined;
    }
  }
  if (start !== undefined) out.push([start, endedAt]);
  return out;
}

function assertNoOverlap(a: Array<[number, number]>, b: Array<[number, number]>): void {
  for (const [s1, e1] of a) for (const [s2, e2] of b) assert.ok(e1 <= s2 || e2 <= s1, `leading intervals overlap: [${s1},${e1}] and [${s2},${e2}]`);
}

/** Lease history: holders change only once the previous holder's lease lapsed or it released it. */
function assertHistorySafe(history: LeaseVersion[]): void {
  for (let i = 1; i < history.length; i++) {
    const prev = history[i - 1]!;
    const cur = history[i]!;
    assert.ok(cur.renewTime >= prev.renewTime, `renewTime went back: ${JSON.stringify(history)}`);
    if (cur.holder !== prev.holder && prev.holder !== '' && cur.holder !== '') {
      assert.ok(cur.acquireTime - prev.renewTime >= LEASE_MS, `taken over ${cur.acquireTime - prev.renewTime} ms after the last renewal (lease ${LEASE_MS} ms)`);
      assert.is(cur.transitions, prev.transitions + 1, 'a takeover counts one transition');
    }
  }
}

async function echoedBy(name: string, timeoutMs = 10_000): Promise<string> {
  await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { echo: 'yes' } }, data: {} });
  for (const deadline = Date.now() + timeoutMs; ; ) {
    try {
      const cm = await api.client.get(resources.configmaps, 'default', `${name}-echo`);
      return String((cm['data'] as Record<string, string>)['reconciledBy']);
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} was never echoed`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test('leases: one leader; kill -9 and the other takes over after the lease lapsed, never two at once', async () => {
  const lockName = 'echo-leases';
  const { history, sub } = watchLease(lockName);
  const a = replica('leases', lockName);
  const b = replica('leases', lockName);
  try {
    const ids = new Map([[a, await identityOf(a)], [b, await identityOf(b)]]);
    const first = await Promise.race([a.waitFor(startedLeading, 30_000, 'a leader'), b.waitFor(startedLeading, 30_000, 'a leader')]);
    const leader = first.pid === a.pid ? a : b;
    const follower = leader === a ? b : a;
    // The follower tries again at least once more (a jittered retry period) and does not lead.
    await new Promise((r) => setTimeout(r, RETRY_MS * 2.2));
    assert.not.ok(isLeading(follower), 'only one process leads');
    assert.is(history.at(-1)!.holder, ids.get(leader), 'the Lease names the leader');
    assert.is(await echoedBy('before-kill'), String(leader.pid), 'the leader reconciles');

    const killedAt = Date.now();
    leader.proc.kill('SIGKILL');
    await leader.exited;
    const took = await follower.waitFor(startedLeading, LEASE_MS + 4 * RETRY_MS * 2.2 + 2000, 'a takeover');
    const after = took.receivedAt - killedAt;
    // The follower counts the lease from when it last saw the record change (up to one jittered
    // retry period, 1.1 s here, after the leader's last renewal) and notices the lapse on its next
    // jittered attempt: lease + 2 × 1.1 s, plus scheduling slack.
    assert.ok(after <= LEASE_MS + 2 * RETRY_MS * 2.2 + 700, `took over ${after} ms after the kill`);
    assert.ok(after >= LEASE_MS - RETRY_MS, `took over only ${after} ms after the kill: before the lease lapsed`);
    await new Promise((r) => setTimeout(r, 200));
    assert.is(history.at(-1)!.holder, ids.get(follower));
    assert.is(await echoedBy('after-kill'), String(follower.pid), 'the new leader reconciles');

    assertHistorySafe(history);
    assert.ok(history.some((h) => h.holder === ids.get(leader)) && history.some((h) => h.holder === ids.get(follower)));
    assertNoOverlap(leadIntervals(leader, killedAt), leadIntervals(follower, Date.now()));

    // SIGTERM: drains, releases the lock, exits 0.
    assert.is(await follower.stop('SIGTERM'), 0, follower.output());
    await new Promise((r) => setTimeout(r, 200));
    assert.is(history.at(-1)!.holder, '', 'the lock was released');
  } finally {
    sub.unsubscribe();
    await a.stop('SIGKILL');
    await b.stop('SIGKILL');
  }
});

test('endpointsleases (the default lock): SIGTERM of the leader hands over at once, both records follow', async () => {
  const lockName = 'echo-endpointsleases';
  const { history, sub } = watchLease(lockName);
  const a = replica('endpointsleases', lockName);
  const b = replica('endpointsleases', lockName);
  try {
    const ids = new Map([[a, await identityOf(a)], [b, await identityOf(b)]]);
    const first = await Promise.race([a.waitFor(startedLeading, 30_000, 'a leader'), b.waitFor(startedLeading, 30_000, 'a leader')]);
    const leader = first.pid === a.pid ? a : b;
    const follower = leader === a ? b : a;
    const ep = await api.client.get(ENDPOINTS, 'svc-system', lockName);
    const record = JSON.parse(String(ep.metadata.annotations?.['control-plane.alpha.svc.io/leader'])) as { holderIdentity: string };
    assert.is(record.holderIdentity, ids.get(leader), 'the Endpoints annotation names the leader');

    const stoppedAt = Date.now();
    assert.is(await leader.stop('SIGTERM'), 0, leader.output());
    const took = await follower.waitFor(startedLeading, LEASE_MS + 3000, 'a takeover');
    // A released lock (lease 1 s) is taken on the follower's next attempts, well within the lease.
    assert.ok(took.receivedAt - stoppedAt < LEASE_MS, `took over ${took.receivedAt - stoppedAt} ms after SIGTERM`);
    assertNoOverlap(leadIntervals(leader, stoppedAt), leadIntervals(follower, Date.now()));
    assert.ok(history.some((h) => h.holder === ''), 'the leader released the Lease');
    await new Promise((r) => setTimeout(r, 200));
    assert.is(history.at(-1)!.holder, ids.get(follower));
    const ep2 = await api.client.get(ENDPOINTS, 'svc-system', lockName);
    const record2 = JSON.parse(String(ep2.metadata.annotations?.['control-plane.alpha.svc.io/leader'])) as { holderIdentity: string };
    assert.is(record2.holderIdentity, ids.get(follower), 'the Endpoints annotation names the new leader');
  } finally {
    sub.unsubscribe();
    await a.stop('SIGKILL');
    await b.stop('SIGKILL');
  }
});

test('a leader that cannot renew within the renew deadline steps down, stays alive and leads again', async () => {
  const p = replica('leases', 'echo-lost');
  try {
    await p.waitFor(startedLeading, 30_000, 'leading');
    // The API server stops answering (SIGSTOP): renewals hang until the renew deadline passes.
    const frozenAt = Date.now();
    server.proc.kill('SIGSTOP');
    let lost: LogLine;
    try {
      lost = await p.waitFor((l) => l.msg === 'stopped leading' && l.reason === 'lost', RENEW_MS + RETRY_MS + 5000, 'stepping down');
    } finally {
      server.proc.kill('SIGCONT');
    }
    const lostAfter = lost.receivedAt - frozenAt;
    assert.ok(lostAfter >= RENEW_MS - RETRY_MS, `stepped down ${lostAfter} ms after the server froze`);
    await p.waitFor((l) => /^leader election lost/.test(String(l.msg)), 5_000, 'the lost warning');
    // Not exited: it rejoined the election and, the lease being its own or lapsed, leads again.
    await p.waitFor((l) => l.msg === 'leader election: stepped down; rejoining the election', 5_000, 'rejoining');
    const deadline = Date.now() + LEASE_MS + 10_000;
    while (p.lines.filter(startedLeading).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.is(p.lines.filter(startedLeading).length, 2, p.output());
    const stillAlive = await Promise.race([p.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 200))]);
    assert.ok(stillAlive, 'the process did not exit');
  } finally {
    await p.stop('SIGKILL');
  }
});

test.run();
