/**
 * A rate-limited, delaying work queue of keys, with client-go's guarantees:
 *
 * - Deduplication: a key waiting in the queue is queued once however often it is added.
 * - Exclusivity: a key handed out by `get` is not handed out again until `done(key)`; a key added
 *   while it is being processed is queued again by `done`, so the change is never lost.
 * - Fairness: keys are handed out in the order they were (first) added; waiting workers are served
 *   in the order they asked.
 * - Delays: `addAfter` queues a key once its delay has passed (the earliest of several delays of
 *   one key wins); `addRateLimited` delays by the rate limiter (default: max of 5 ms..1,000 s per
 *   key and 10/s burst 100 overall); `forget` resets a key's back-off after a success.
 * - Shutdown: `shutDown` stops handing out keys (`get` resolves `undefined`) and drops adds and
 *   pending delays; keys already handed out finish, and `drained()` resolves when the last one is
 *   `done`.
 *
 * All timing goes through the injected `Clock` (xstate's SimulatedClock in tests).
 */
import type { Registry } from 'prom-client';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { workQueueMetrics } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface WorkQueueOptions {
  /** Names the queue in metrics (`name` label) and logs; usually the controller's name. */
  name: string;
  clock?: Clock;
  /** Default: `defaultControllerRateLimiter(clock)`. */
  rateLimiter?: RateLimiter;
  /** Where the `workqueue_*` metrics go; none when absent. */
  registry?: Registry;
}

export class WorkQueue {
  readonly name: string;
  readonly rateLimiter: RateLimiter;
  private readonly clock: Clock;
  /** Keys ready to be handed out, in order (Set iteration order is insertion order). */
  private readonly queue = new Set<string>();
  /** Keys that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<string>();
  /** Key -> clock time it was taken by a worker. */
  private readonly processing = new Map<string, number>();
  /** Key -> clock time it was queued (for the queue-duration metric). */
  private readonly queuedAt = new Map<string, number>();
  /** Delayed keys -> clock time they become ready. */
  private readonly waiting = new Map<string, number>();
  /** The delayed keys whose pending delay is a back-off (`addRateLimited`), not a planned `addAfter`. */
  private readonly backingOffKeys = new Set<string>();
  private timer: { id: unknown; at: number } | undefined;
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private shutting = false;
  private readonly metrics;

  constructor(opts: WorkQueueOptions) {
    this.name = opts.name;
    this.clock = opts.clock ?? systemClock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    const m = opts.registry ? workQueueMetrics(opts.registry) : undefined;
    this.metrics = m && {
      depth: m.depth.labels(this.name),
      adds: m.adds.labels(this.name),
      retries: m.retries.labels(this.name),
      queueDuration: m.queueDuration.labels(this.name),
      workDuration: m.workDuration.labels(this.name),
    };
  }

  /** Keys waiting to be handed out (not counting delayed or in-flight ones). */
  get length(): number {
    return this.queue.size;
  }
  /** Keys handed out and not yet `done`. */
  get inFlight(): number {
    return this.processing.size;
  }
  /** Keys waiting for a delay to pass (back-off and planned delays). */
  get delayed(): number {
    return this.waiting.size;
  }
  /** Delayed keys backing off after a failure or `requeue` (the rest wait for a planned `addAfter`). */
  get backingOff(): number {
    return this.backingOffKeys.size;
  }
  get shuttingDown(): boolean {
    return this.shutting;
  }

  /** The first `limit` ready keys, in the order they will be handed out (for inspection). */
  readyKeys(limit: number): string[] {
    const out: string[] = [];
    if (limit <= 0) return out;
    for (const key of this.queue) {
      out.push(key);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Queues `key` now (no-op if it is already queued, or after shutdown). */
  add(key: string): void {
    if (this.shutting || this.dirty.has(key)) return;
    this.metrics?.adds.inc();
    this.dirty.add(key);
    // Being processed: `done` queues it again.
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Queues `key` once `delayMs` has passed; an earlier pending delay of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    this.delay(key, delayMs, false);
  }

  /** Queues `key` after the rate limiter's delay; counts a retry. */
  addRateLimited(key: string): void {
    if (this.shutting) return;
    this.metrics?.retries.inc();
    this.delay(key, this.rateLimiter.when(key), true);
  }

  /** The earliest pending delay of a key wins, and says whether the key is backing off or planned. */
  private delay(key: string, delayMs: number, backoff: boolean): void {
    if (this.shutting) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.clock.now() + delayMs;
    const prev = this.waiting.get(key);
    if (prev !== undefined && prev <= at) return;
    this.waiting.set(key, at);
    if (backoff) this.backingOffKeys.add(key);
    else this.backingOffKeys.delete(key);
    this.armTimer();
  }

  /** Resets `key`'s back-off (call after it was processed successfully). */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /** The next key (waits for one); `undefined` once the queue is shut down. Call `done(key)` after. */
  get(): Promise<string | undefined> {
    const key = this.tryGet();
    if (key !== undefined || this.shutting) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** The next key if one is ready now, else `undefined`. */
  tryGet(): string | undefined {
    if (this.shutting) return undefined;
    const first = this.queue.values().next();
    if (first.done) return undefined;
    this.queue.delete(first.value);
    this.take(first.value);
    return first.value;
  }

  /** Marks `key` processed; queues it again if it was added meanwhile. */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics?.workDuration.observe((this.clock.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shutting) this.enqueue(key);
    if (this.shutting && this.processing.size === 0) this.resolveDrain();
  }

  /** Stops handing out keys and drops queued and delayed ones; in-flight keys may still finish. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    if (this.timer) this.clock.clearTimeout(this.timer.id);
    this.timer = undefined;
    this.waiting.clear();
    this.backingOffKeys.clear();
    this.queue.clear();
    this.dirty.clear();
    this.metrics?.depth.set(0);
    for (const g of this.getters.splice(0)) g(undefined);
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Resolves once the queue is shut down and every handed-out key is `done`. */
  drained(): Promise<void> {
    if (this.shutting && this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private enqueue(key: string): void {
    const getter = this.getters.shift();
    // Timestamps only feed metrics: without a registry the hot path skips the clock.
    if (this.metrics) this.queuedAt.set(key, this.clock.now());
    if (getter) {
      this.take(key);
      getter(key);
      return;
    }
    this.queue.add(key);
    this.metrics?.depth.set(this.queue.size);
  }

  private take(key: string): void {
    const now = this.metrics ? this.clock.now() : 0;
    this.dirty.delete(key);
    this.processing.set(key, now);
    const queued = this.queuedAt.get(key);
    this.queuedAt.delete(key);
    if (queued !== undefined) this.metrics?.queueDuration.observe((now - queued) / 1000);
    this.metrics?.depth.set(this.queue.size);
  }

  /** One timer for the earliest delayed key; re-armed when an earlier one arrives. */
  private armTimer(): void {
    let earliest = Infinity;
    for (const at of this.waiting.values()) earliest = Math.min(earliest, at);
    if (earliest === Infinity) return;
    if (this.timer && this.timer.at <= earliest) return;
    if (this.timer) this.clock.clearTimeout(this.timer.id);
    const id = this.clock.setTimeout(() => this.fireDelayed(), Math.max(0, earliest - this.clock.now()));
    this.timer = { id, at: earliest };
  }

  private fireDelayed(): void {
    this.timer = undefined;
    const now = this.clock.now();
    const ready = [...this.waiting].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
    for (const [key] of ready) {
      this.waiting.delete(key);
      this.backingOffKeys.delete(key);
      this.add(key);
    }
    this.armTimer();
  }

  private resolveDrain(): void {
    for (const d of this.drainWaiters.splice(0)) d();
  }
}
