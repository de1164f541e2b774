/**
 * The one writer the whole fleet shares (node status, leases, pod status, pod removal), so that
 * thousands of nodes cost a bounded amount of work at any moment:
 *
 * - Writes are keyed (`pod/<uid>`, `lease/<node>` ...): a write queued for a key that already has
 *   one waiting replaces it (only the latest state matters), so a burst of changes is one write.
 * - At most `concurrency` writes are in flight; the rest wait in arrival order.
 * - A write that fails with a retryable error (conflict, throttling, server or network trouble)
 *   runs again after a back-off (200 ms doubling to 10 s) unless a newer write for its key arrived;
 *   a 404 (the object is gone) ends it. Each write builds its request when it runs, from the
 *   state of that moment.
 */
import type { Logger } from 'pino';
import { ApiError } from '../client/types.js';
import type { Clock } from '../client/clock.js';

export type Write = () => Promise<void>;

export interface StatusWriterOptions {
  concurrency?: number;
  clock: Clock;
  logger: Logger;
}

const RETRY_BASE_MS = 200;
const RETRY_MAX_MS = 10_000;

export class StatusWriter {
  private readonly waiting = new Map<string, Write>();
  private readonly retries = new Map<string, { attempt: number; timer: unknown }>();
  private readonly running = new Set<string>();
  private readonly concurrency: number;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** Writes done and failed (for /metrics and benchmarks). */
  readonly counts = { written: 0, retried: 0, dropped: 0 };

  constructor(private readonly opts: StatusWriterOptions) {
    this.concurrency = opts.concurrency ?? 32;
  }

  /** Queues `write` under `key`, replacing a write still waiting for that key. */
  enqueue(key: string, write: Write): void {
    if (this.stopped) return;
    const retry = this.retries.get(key);
    if (retry) {
      this.opts.clock.clearTimeout(retry.timer);
      this.retries.delete(key);
    }
    this.waiting.delete(key);
    this.waiting.set(key, write);
    this.pump();
  }

  /** Writes waiting or running. */
  get pending(): number {
    return this.waiting.size + this.running.size + this.retries.size;
  }

  /** Resolves when nothing is waiting, running or due for a retry. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops everything waiting; running writes finish. */
  stop(): void {
    this.stopped = true;
    this.waiting.clear();
    for (const r of this.retries.values()) this.opts.clock.clearTimeout(r.timer);
    this.retries.clear();
    this.checkIdle();
  }

  private pump(): void {
    for (const [key, write] of this.waiting) {
      if (this.running.size >= this.concurrency) return;
      if (this.running.has(key)) continue; // one write per key at a time: the newer one waits
      this.waiting.delete(key);
      this.run(key, write, 0);
    }
  }

  private run(key: string, write: Write, attempt: number): void {
    this.running.add(key);
    write().then(
      () => {
        this.counts.written++;
        this.finish(key);
      },
      (err: unknown) => {
        this.running.delete(key);
        if (err instanceof ApiError && err.code === 404) {
          this.counts.dropped++;
        } else if (!this.stopped && !this.waiting.has(key) && retryable(err)) {
          this.counts.retried++;
          const delay = Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_MAX_MS);
          if (attempt >= 3) this.opts.logger.warn({ key, attempt, err: String(err) }, 'simulated node write failing; retrying');
          const timer = this.opts.clock.setTimeout(() => {
            this.retries.delete(key);
            if (this.stopped || this.waiting.has(key)) return this.pump();
            if (this.running.size >= this.concurrency) {
              this.waiting.set(key, write);
              return this.pump();
            }
            this.run(key, write, attempt + 1);
          }, delay);
          this.retries.set(key, { attempt, timer });
        } else if (!this.waiting.has(key)) {
          this.counts.dropped++;
          this.opts.logger.warn({ key, err: String(err) }, 'simulated node write failed; dropped');
        }
        this.pump();
        this.checkIdle();
      },
    );
  }

  private finish(key: string): void {
    this.running.delete(key);
    this.pump();
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.pending > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function retryable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true; // network trouble
  return err.code === 409 || err.code === 429 || err.code >= 500;
}
