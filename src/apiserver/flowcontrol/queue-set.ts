/**
 * One Limited priority level's queues: fair queuing for server requests with shuffle sharding, as
 * the established queueset does it, on an injectable clock.
 *
 * Contract:
 * - `concurrencyLimit` requests of the level execute at once. An arriving request is dealt a hand of
 *   `handSize` queues from its flow's hash (./shuffle-sharding.ts) and joins the one holding the
 *   fewest requests (waiting + executing; the first such in the hand); if that queue already holds
 *   `queueLengthLimit` waiting requests it is rejected at once (`queue-full`). With zero queues (the
 *   `Reject` limit response) a request runs if a slot is free, else is rejected (`concurrency-limit`).
 * - Dispatch is fair across queues by virtual time: the virtual clock advances at
 *   min(executing, limit) / (queues with work) per real second; a queue that gains work after being
 *   idle starts at the current virtual time; each dispatch advances its queue by the estimated
 *   service time G (60 s) and each completion corrects it by the real service time, so a queue whose
 *   requests finish fast is served sooner. The next request is the head of the queue with the
 *   smallest virtual start (ties: the next one after the last served, round robin).
 * - A waiting request leaves its queue when its wait deadline passes (`time-out`) or its caller
 *   gives up (`cancelled`); either way it never runs.
 * - Fewer queues after a reconfiguration: the extra queues are no longer dealt, but their waiting
 *   requests are still dispatched (the established drain).
 */
import { Dealer } from './shuffle-sharding.js';

/** Virtual seconds a dispatch is charged before the request's real service time is known. */
export const ESTIMATED_SERVICE_SECONDS = 60;

export interface QueueSetConfig {
  /** How many requests of this level execute at once (at least 1). */
  concurrencyLimit: number;
  /** 0: no queuing (Reject). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** Time and timers, injectable (tests drive them by hand). */
export interface Clock {
  /** Milliseconds. */
  now(): number;
  /** Runs `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const REAL_CLOCK: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/** What the caller knows of its request (shown by the debug dumps). */
export interface RequestDescription {
  flowSchema: string;
  distinguisher: string;
  /** Anything else the dumps print about it. */
  detail?: unknown;
  /** Told the length of its queue once it has joined it (the queue-length metric). */
  onQueued?: (queueLength: number) => void;
}

/** A request that was let through: call `finish()` exactly once when it is done. */
export interface Admitted {
  finish(): void;
  /** Milliseconds it waited in its queue. */
  waitedMs: number;
}

export type Outcome = { admitted: Admitted } | { rejected: RejectReason; waitedMs: number };

interface Waiting {
  description: RequestDescription;
  arrivedAt: number;
  queue: Queue;
  settle(o: Outcome): void;
  cancelTimer: () => void;
}

interface Queue {
  index: number;
  waiting: Waiting[];
  executing: number;
  /** Virtual seconds. */
  virtualStart: number;
}

export interface QueueDigest {
  index: number;
  waiting: { description: RequestDescription; arrivedAt: number }[];
  executing: number;
  virtualStart: number;
}

export class QueueSet {
  private queues: Queue[] = [];
  private dealer: Dealer | undefined;
  private executing = 0;
  private waitingTotal = 0;
  private virtualTime = 0;
  private lastRealTime: number;
  private robinIndex = -1;

  constructor(
    private config: QueueSetConfig,
    private readonly clock: Clock,
  ) {
    this.lastRealTime = clock.now();
    this.reconfigure(config);
  }

  get limit(): number {
    return this.config.concurrencyLimit;
  }

  get executingRequests(): number {
    return this.executing;
  }

  get waitingRequests(): number {
    return this.waitingTotal;
  }

  get isIdle(): boolean {
    return this.executing === 0 && this.waitingTotal === 0;
  }

  reconfigure(config: QueueSetConfig): void {
    this.syncTime();
    this.config = { ...config, concurrencyLimit: Math.max(1, config.concurrencyLimit) };
    this.dealer = config.queues > 0 ? new Dealer(config.queues, config.handSize) : undefined;
    for (let i = this.queues.length; i < config.queues; i++) this.queues.push({ index: i, waiting: [], executing: 0, virtualStart: 0 });
    this.trimQueues();
    this.dispatch();
  }

  /**
   * Admits, queues or rejects a request of the flow hashed `hash`. A queued request waits at most
   * `waitLimitMs`; `signal` (the caller giving up) removes it. Settles at once unless queued.
   */
  enqueue(hash: bigint, description: RequestDescription, waitLimitMs: number, signal?: { onAbort(fn: () => void): void }): Promise<Outcome> {
    this.syncTime();
    const now = this.clock.now();
    if (!this.dealer) {
      if (this.executing >= this.config.concurrencyLimit) return Promise.resolve({ rejected: 'concurrency-limit', waitedMs: 0 });
      this.executing++;
      return Promise.resolve({ admitted: this.admitted(undefined, now, 0) });
    }
    const queue = this.chooseQueue(hash);
    if (queue.waiting.length >= this.config.queueLengthLimit) return Promise.resolve({ rejected: 'queue-full', waitedMs: 0 });
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const entry: Waiting = {
        description,
        arrivedAt: now,
        queue,
        settle: (o) => {
          if (settled) return;
          settled = true;
          entry.cancelTimer();
          resolve(o);
        },
        cancelTimer: () => {},
      };
      if (queue.waiting.length === 0 && queue.executing === 0) queue.virtualStart = this.virtualTime;
      queue.waiting.push(entry);
      this.waitingTotal++;
      description.onQueued?.(queue.waiting.length);
      entry.cancelTimer = this.clock.after(waitLimitMs, () => this.drop(entry, 'time-out'));
      signal?.onAbort(() => this.drop(entry, 'cancelled'));
      this.dispatch();
    });
  }

  /** Every queue's state, for the debug dumps. */
  dump(): QueueDigest[] {
    this.syncTime();
    return this.queues.map((q) => ({
      index: q.index,
      waiting: q.waiting.map((w) => ({ description: w.description, arrivedAt: w.arrivedAt })),
      executing: q.executing,
      virtualStart: q.virtualStart,
    }));
  }

  private chooseQueue(hash: bigint): Queue {
    let best: Queue | undefined;
    let bestLength = Infinity;
    for (const i of this.dealer!.deal(hash)) {
      const q = this.queues[i]!;
      const length = q.waiting.length + q.executing;
      if (length < bestLength) {
        best = q;
        bestLength = length;
      }
    }
    return best!;
  }

  private drop(entry: Waiting, reason: RejectReason): void {
    const q = entry.queue;
    const at = q.waiting.indexOf(entry);
    if (at < 0) return;
    this.syncTime();
    q.waiting.splice(at, 1);
    this.waitingTotal--;
    entry.settle({ rejected: reason, waitedMs: this.clock.now() - entry.arrivedAt });
    this.trimQueues();
  }

  /** Virtual time catches up with the real time passed, at the rate of the work in progress. */
  private syncTime(): void {
    const now = this.clock.now();
    const elapsed = (now - this.lastRealTime) / 1000;
    this.lastRealTime = now;
    if (elapsed <= 0) return;
    let active = 0;
    for (const q of this.queues) if (q.waiting.length > 0 || q.executing > 0) active++;
    if (active === 0) return;
    this.virtualTime += (elapsed * Math.min(this.executing, this.config.concurrencyLimit)) / active;
  }

  private dispatch(): void {
    while (this.executing < this.config.concurrencyLimit && this.waitingTotal > 0) {
      const q = this.selectQueue();
      if (!q) return;
      const entry = q.waiting.shift()!;
      this.waitingTotal--;
      q.executing++;
      this.executing++;
      q.virtualStart += ESTIMATED_SERVICE_SECONDS;
      const now = this.clock.now();
      entry.settle({ admitted: this.admitted(q, now, now - entry.arrivedAt) });
    }
  }

  private selectQueue(): Queue | undefined {
    const n = this.queues.length;
    let best: Queue | undefined;
    for (let k = 1; k <= n; k++) {
      const q = this.queues[(this.robinIndex + k) % n]!;
      if (q.waiting.length === 0) continue;
      if (!best || q.virtualStart < best.virtualStart) best = q;
    }
    if (best) this.robinIndex = best.index;
    return best;
  }

  private admitted(queue: Queue | undefined, startedAt: number, waitedMs: number): Admitted {
    let done = false;
    return {
      waitedMs,
      finish: () => {
        if (done) return;
        done = true;
        this.syncTime();
        this.executing--;
        if (queue) {
          queue.executing--;
          // Charge the real service time instead of the estimate.
          queue.virtualStart -= ESTIMATED_SERVICE_SECONDS - (this.clock.now() - startedAt) / 1000;
        }
        this.dispatch();
        this.trimQueues();
      },
    };
  }

  /** Queues beyond the configured number go once they hold nothing. */
  private trimQueues(): void {
    while (this.queues.length > this.config.queues) {
      const last = this.queues[this.queues.length - 1]!;
      if (last.waiting.length > 0 || last.executing > 0) return;
      this.queues.pop();
      if (this.robinIndex >= this.queues.length) this.robinIndex = -1;
    }
  }
}
