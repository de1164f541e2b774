/**
 * Work-queue overhead per reconcile: the controller machine with its worker actors
 * (machines/controller.ts, machines/worker.ts, src/runtime/work-queue.ts) against a plain
 * async-loop work queue (below: a minimal deduplicating queue and N async workers), on the same
 * work, at several concurrencies, in the same process and run.
 *
 * Each round queues `keys` distinct keys, starts the workers, and measures until every key was
 * reconciled once: the CPU time of this process (user + system), which other processes on a shared
 * machine disturb far less than wall time (also kept). Plain and machine rounds alternate; the
 * median round of each is reported.
 */
import pino from 'pino';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createActor } from 'xstate';
import { controllerMachine } from '../machines/controller.js';
import { done, WorkQueue, type ReconcileOutcome } from '../src/runtime/index.js';
import { median, nowMs } from './load.js';

export type WorkKind = 'no-op' | 'small await';

/** The work each reconcile does: nothing, or one event-loop turn (as a tiny I/O wait would). */
export const WORK: Record<WorkKind, () => ReconcileOutcome | Promise<ReconcileOutcome>> = {
  'no-op': () => done(),
  'small await': async () => {
    await nextTurn();
    return done();
  },
};

/** The plain work queue: deduplicated keys, a key never in two workers at once; nothing else. */
class PlainQueue {
  private readonly queue = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private closed = false;

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) this.hand(key, getter);
    else this.queue.add(key);
  }

  get(): Promise<string | undefined> {
    const first = this.queue.values().next();
    if (!first.done) {
      this.queue.delete(first.value);
      this.dirty.delete(first.value);
      this.processing.add(first.value);
      return Promise.resolve(first.value);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  close(): void {
    this.closed = true;
    for (const g of this.getters.splice(0)) g(undefined);
  }

  private hand(key: string, getter: (key: string) => void): void {
    this.dirty.delete(key);
    this.processing.add(key);
    getter(key);
  }
}

/** Wall and CPU seconds (this process, user + system) of one round. */
interface Round {
  wall: number;
  cpu: number;
}

function stopwatch(): () => Round {
  const wall = nowMs();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wall: (nowMs() - wall) / 1000, cpu: (used.user + used.system) / 1e6 };
  };
}

/** `keys` reconciles through the plain queue and `concurrency` async loops. */
async function plainRound(keys: string[], concurrency: number, work: () => ReconcileOutcome | Promise<ReconcileOutcome>): Promise<Round> {
  const q = new PlainQueue();
  for (const k of keys) q.add(k);
  let left = keys.length;
  let finish!: () => void;
  const all = new Promise<void>((r) => (finish = r));
  const elapsed = stopwatch();
  const loops = Array.from({ length: concurrency }, async () => {
    for (;;) {
      const key = await q.get();
      if (key === undefined) return;
      try {
        await work();
      } catch {
        // a real loop would log and retry; the work here never throws
      }
      q.done(key);
      if (--left === 0) finish();
    }
  });
  await all;
  const round = elapsed();
  q.close();
  await Promise.all(loops);
  return round;
}

const silent = pino({ level: 'silent' });

/** `keys` reconciles through the controller machine's workers. */
async function machineRound(keys: string[], concurrency: number, work: () => ReconcileOutcome | Promise<ReconcileOutcome>): Promise<Round> {
  const queue = new WorkQueue({ name: 'bench' });
  for (const k of keys) queue.add(k);
  let left = keys.length;
  let finish!: () => void;
  const all = new Promise<void>((r) => (finish = r));
  const reconcile = () => {
    const out = work();
    if (--left === 0) finish();
    return out;
  };
  const actor = createActor(controllerMachine, {
    input: { name: 'bench', queue, sources: [], concurrency, reconcile, logger: silent, needsLeader: false, minResyncPeriodMs: 0 },
  });
  const elapsed = stopwatch();
  actor.start();
  await all;
  const round = elapsed();
  actor.send({ type: 'STOP' });
  await queue.drained();
  actor.stop();
  return round;
}

export interface QueueOverheadOptions {
  keys: number;
  concurrencies: number[];
  rounds: number;
  works: WorkKind[];
}

export interface QueueOverheadRow {
  work: WorkKind;
  concurrency: number;
  /** Median round: µs of CPU time per reconcile, and reconciles per CPU second. */
  plainUs: number;
  machineUs: number;
  plainPerSecond: number;
  machinePerSecond: number;
  /** machine ÷ plain throughput, by CPU time (1 = no cost). */
  ratio: number;
  /** The same by wall time (noisier when other processes share the CPUs). */
  wallRatio: number;
}

export interface QueueOverheadFigures {
  keys: number;
  rounds: number;
  rows: QueueOverheadRow[];
}

export async function measureQueueOverhead(opts: QueueOverheadOptions, log: (msg: string) => void = () => {}): Promise<QueueOverheadFigures> {
  const keys = Array.from({ length: opts.keys }, (_, i) => `bench/cm-${i}`);
  const rows: QueueOverheadRow[] = [];
  for (const work of opts.works) {
    for (const concurrency of opts.concurrencies) {
      const fn = WORK[work];
      // Warm-up (JIT) of both paths, then alternating rounds.
      await plainRound(keys, concurrency, fn);
      await machineRound(keys, concurrency, fn);
      const plain: Round[] = [];
      const machine: Round[] = [];
      for (let r = 0; r < opts.rounds; r++) {
        plain.push(await plainRound(keys, concurrency, fn));
        machine.push(await machineRound(keys, concurrency, fn));
      }
      const p = median(plain.map((x) => x.cpu));
      const m = median(machine.map((x) => x.cpu));
      const row: QueueOverheadRow = {
        work,
        concurrency,
        plainUs: (p * 1e6) / opts.keys,
        machineUs: (m * 1e6) / opts.keys,
        plainPerSecond: opts.keys / p,
        machinePerSecond: opts.keys / m,
        ratio: p / m,
        wallRatio: median(plain.map((x) => x.wall)) / median(machine.map((x) => x.wall)),
      };
      rows.push(row);
      log(`queue ${work} x${concurrency}: plain ${row.plainUs.toFixed(2)} µs, machine ${row.machineUs.toFixed(2)} µs per reconcile (${(row.ratio * 100).toFixed(0)}% of plain; by wall time ${(row.wallRatio * 100).toFixed(0)}%)`);
    }
  }
  return { keys: opts.keys, rounds: opts.rounds, rows };
}
