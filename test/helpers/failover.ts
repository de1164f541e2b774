/**
 * Leader failover, for the reliability suite: a pair of one leader-elected daemon (scheduler or
 * controller manager), each replica its own process, and the Lease they contend for as a watch
 * sees it. `failoverRounds` kills the current leader with SIGKILL again and again, restarts it as a
 * supervisor would (so there is always a pair), and measures each takeover on the Lease: from the
 * kill to the new holder's `acquireTime`. `leaseVerdict` then says whether leadership ever changed
 * hands without a kill and how late the renewals came (the gap between a holder's consecutive
 * `renewTime`s, against the retry period); `lostLeadership` finds a leader's own "lost the lease"
 * log lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { Test } from 'uvu';
import type { Lease } from '../../src/api/generated/kinds.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { resources } from '../../src/client/typed.js';
import { startApiServer, type ApiServerProcess } from './apiserver.js';
import { clientFor } from './client.js';
import type { LogLine, SvcProcess } from './svc-process.js';

/** The leader-election timing a test runs the daemons with (their flags, or the defaults). */
export interface LeaseTiming {
  leaseMs: number;
  renewDeadlineMs: number;
  retryMs: number;
}

/** The spec's defaults: 15 s / 10 s / 2 s. */
export const DEFAULT_TIMING: LeaseTiming = { leaseMs: 15_000, renewDeadlineMs: 10_000, retryMs: 2_000 };

/** The `--leader-elect-*` flags for `t` (both daemons take the same spelling). */
export function leaseFlags(t: LeaseTiming): string[] {
  return [`--leader-elect-lease-duration=${t.leaseMs}ms`, `--leader-elect-renew-deadline=${t.renewDeadlineMs}ms`, `--leader-elect-retry-period=${t.retryMs}ms`];
}

export interface LeaseVersion {
  holder: string;
  acquireTime: number;
  renewTime: number;
  transitions: number;
  /** When the test saw this version. */
  seenAt: number;
}

export interface LeaseWatch {
  readonly history: LeaseVersion[];
  /** Set when the watch ended with an error (the history would then be incomplete). */
  error: unknown;
  stop(): void;
}

/** Every version of the Lease `namespace/name`, in order, as a watch delivers them. */
export function watchLease(client: ApiClient, namespace: string, name: string): LeaseWatch {
  const history: LeaseVersion[] = [];
  const w: LeaseWatch = { history, error: undefined, stop: () => sub.unsubscribe() };
  const sub: Subscription = client.watch<Lease>(resources.leases, { namespace, fieldSelector: `metadata.name=${name}` }).subscribe({
    error: (err: unknown) => (w.error = err),
    next: (ev) => {
      if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
      const spec = ev.object.spec ?? {};
      history.push({
        holder: spec.holderIdentity ?? '',
        acquireTime: Date.parse(spec.acquireTime ?? ''),
        renewTime: Date.parse(spec.renewTime ?? ''),
        transitions: spec.leaseTransitions ?? 0,
        seenAt: Date.now(),
      });
    },
  });
  return w;
}

/** One replica: its process and the leader-election identity it logged at start. */
export interface Replica {
  process: SvcProcess;
  identity: string;
}

export interface Kill {
  /** Identity killed (the holder at the time). */
  holder: string;
  at: number;
  /** The new holder and its acquireTime (ms since epoch). */
  takenBy: string;
  acquiredAt: number;
  takeoverMs: number;
}

const alive = (r: Replica) => r.process.proc.exitCode === null && r.process.proc.signalCode === null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export interface FailoverOptions {
  /** The pair, replaced in place as killed replicas are restarted. */
  replicas: Replica[];
  /** Starts one more replica (resolves once it has logged its identity). */
  start(): Promise<Replica>;
  lease: LeaseWatch;
  timing: LeaseTiming;
  kills: number;
  /** How long the new leader leads, under load, before the next kill. */
  leadMs: number;
  /** Checked between rounds (e.g. the load's invariants), so a failure names its round. */
  between?(round: number): void;
}

/**
 * Kills the Lease's holder `kills` times; each time starts a replacement at once and waits for
 * another replica to take over (up to four lease durations, so a slow takeover is measured rather
 * than cut short), then lets the new leader lead `leadMs`. Resolves to the kills, in order.
 */
export async function failoverRounds(o: FailoverOptions): Promise<Kill[]> {
  const kills: Kill[] = [];
  const holderNow = () => o.lease.history.at(-1)?.holder ?? '';
  for (let round = 1; round <= o.kills; round++) {
    const leader = await until(`a leader among ${o.replicas.map((r) => r.identity).join(', ')} (round ${round})`, 4 * o.timing.leaseMs + 30_000, () =>
      o.replicas.find((r) => r.identity === holderNow() && alive(r)),
    );
    // A pair: every other replica has read the lock and follows this leader (a replica started on
    // a loaded machine can take tens of seconds to connect; killing before would measure that).
    await until(`every replica following ${leader.identity} (round ${round})`, 4 * o.timing.leaseMs + 60_000, () =>
      o.replicas.every((r) => r === leader || r.process.lines.some((l) => l.msg === 'leader election: new leader' && l['leader'] === leader.identity)) || undefined,
    );
    const seen = o.lease.history.length;
    const at = Date.now();
    leader.process.proc.kill('SIGKILL');
    await leader.process.exited;
    // Restarted at once, as a supervisor would: it contends too once it is up.
    const restarted = o.start();
    const next = await until(`a takeover after killing ${leader.identity} (round ${round})`, 4 * o.timing.leaseMs + 30_000, () =>
      o.lease.history.slice(seen).find((v) => v.holder !== '' && v.holder !== leader.identity),
    );
    kills.push({ holder: leader.identity, at, takenBy: next.holder, acquiredAt: next.acquireTime, takeoverMs: next.acquireTime - at });
    o.replicas[o.replicas.indexOf(leader)] = await restarted;
    o.between?.(round);
    await sleep(o.leadMs);
    o.between?.(round);
  }
  return kills;
}

export interface LeaseVerdict {
  /** Holder changes not preceded by a kill of the previous holder. */
  unexplainedChanges: string[];
  /** The longest time between two renewals of one term (same holder and acquireTime), in ms. */
  worstRenewalGapMs: number;
  renewals: number;
}

/** Reads the Lease's history against the kills (see the module comment). */
export function leaseVerdict(history: readonly LeaseVersion[], kills: readonly Kill[]): LeaseVerdict {
  const unexplainedChanges: string[] = [];
  let worstRenewalGapMs = 0;
  let renewals = 0;
  for (let i = 1; i < history.length; i++) {
    const prev = history[i - 1]!;
    const cur = history[i]!;
    if (cur.holder === prev.holder && cur.acquireTime === prev.acquireTime) {
      renewals++;
      worstRenewalGapMs = Math.max(worstRenewalGapMs, cur.renewTime - prev.renewTime);
      continue;
    }
    if (prev.holder === '' || cur.holder === prev.holder) continue;
    if (!kills.some((k) => k.holder === prev.holder && k.at <= cur.seenAt)) {
      unexplainedChanges.push(`${prev.holder} -> ${cur.holder} at ${new Date(cur.acquireTime).toISOString()} (transitions ${cur.transitions})`);
    }
  }
  return { unexplainedChanges, worstRenewalGapMs, renewals };
}

/** A replica's log lines saying it lost its lease while alive (stepped down or exited on it). */
export function lostLeadership(p: SvcProcess): LogLine[] {
  return p.lines.filter(
    (l) => /failed to renew within the renew deadline|^leader election lost/.test(String(l.msg)) || (l.msg === 'stopped leading' && l['reason'] === 'lost'),
  );
}

/** The replicas' "late renewal" warnings: how late, and the event-loop delay they report. */
export function lateRenewals(ps: readonly SvcProcess[]): Array<{ timerLateMs: number; attemptMs: number; lagMaxMs: number }> {
  return ps.flatMap((p) =>
    p.lines
      .filter((l) => l.msg === 'leader election: late renewal')
      .map((l) => ({
        timerLateMs: Number(l['timerLateMs'] ?? 0),
        attemptMs: Number(l['attemptMs'] ?? 0),
        lagMaxMs: Number((l['eventLoopLag'] as { maxMs?: number } | undefined)?.maxMs ?? 0),
      })),
  );
}

export function figureStats(xs: readonly number[]): string {
  if (xs.length === 0) return 'none';
  const sorted = [...xs].sort((a, b) => a - b);
  return `max ${sorted.at(-1)} ms, median ${sorted[Math.floor(sorted.length / 2)]} ms, each ${xs.join(', ')} ms`;
}

/**
 * A write of the load that must land (creating a workload, scaling it): tried again while the
 * overloaded server does not answer (timeouts, 5xx, 429), up to `attempts` times; a 409 means an
 * earlier try did land (the writes are idempotent: fixed names, absolute values).
 */
export async function persistently(write: () => Promise<unknown>, attempts = 8): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await write();
      return;
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 0;
      if (code === 409) return;
      if ((code >= 400 && code < 500 && code !== 408 && code !== 429) || i >= attempts) throw err;
      await sleep(250 * i);
    }
  }
}

/**
 * The bounded form's lease timing (passed as --leader-elect-* flags; the full form uses the defaults):
 * a shorter lease, and the default 2 s retry period, whose last quarter is what a follower's reads
 * may take for its takeover to stay within lease + retry period (at 1 s it overshot by 176 ms on a
 * loaded machine).
 */
export const BOUNDED_TIMING: LeaseTiming = { leaseMs: 10_000, renewDeadlineMs: 8_000, retryMs: 2_000 };

/** What a failover test shares: the apiserver, a client of it, the daemons started, a folder. */
export interface FailoverFixture {
  server: ApiServerProcess;
  api: ReturnType<typeof clientFor>;
  procs: SvcProcess[];
  dir: string;
}

/**
 * Registers on `test` the start of a real apiserver (and a JSON client with bounded waits: an
 * answer the overloaded server never sends must not hold the test) and, after, the end of every
 * process in `procs` (FAILOVER_LOGS=<dir> keeps each daemon's log there: the renewals' timing is
 * in them). `server` and `api` are set once the hooks have run.
 */
export function failoverFixture(test: Test, tag: string): FailoverFixture {
  const fx = { procs: [] as SvcProcess[], dir: mkdtempSync(join(tmpdir(), `svc-failover-${tag}-`)) } as FailoverFixture;
  test.before(async () => {
    fx.server = await startApiServer();
    fx.api = clientFor(fx.server, { contentType: 'application/json', requestTimeoutMs: 30_000 });
  });
  test.after(async () => {
    await Promise.all(fx.procs.map((p) => p.stop('SIGKILL')));
    const logs = process.env['FAILOVER_LOGS'];
    if (logs) for (const p of fx.procs) writeFileSync(join(logs, `${p.pid}.log`), p.output());
    await fx.api?.close();
    await fx.server?.stop();
    fx.server?.cleanup();
    rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}
