/**
 * Rate limiters for work-queue retries, as client-go's `workqueue` package defines them:
 * a per-key exponential back-off, an overall token bucket, and a "max of" combination.
 *
 * A limiter answers "how long must this key wait before it is queued again?" (`when`), counts
 * the retries of a key (`numRequeues`) and forgets a key once it was processed successfully.
 */
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export interface RateLimiter {
  /** The delay (ms) before `key` may be queued again; counts one more retry of `key`. */
  when(key: string): number;
  /** Stops tracking `key`: its back-off starts again from the base delay. */
  forget(key: string): void;
  /** How many times `key` was rate limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/**
 * Per-key exponential back-off: `baseDelayMs * 2^failures`, capped at `maxDelayMs`.
 * Defaults are client-go's: 5 ms doubling up to 1,000 s.
 */
export class ExponentialBackoffRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1_000_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2^n overflows to Infinity long after it passes the cap; Math.min keeps it finite.
    return Math.min(this.baseDelayMs * 2 ** n, this.maxDelayMs);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket shared by every key: `qps` tokens per second, holding at most `burst`.
 * Each `when` reserves one token and returns how long until that token exists (0 while the bucket
 * has tokens). Defaults are client-go's: 10/s, burst 100. It does not track keys.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;
  constructor(
    readonly qps = 10,
    readonly burst = 100,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    // Reserving may drive the bucket negative: the debt is the wait (golang.org/x/time/rate Reserve).
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
  forget(_key: string): void {}
  numRequeues(_key: string): number {
    return 0;
  }
}

/** The largest delay of several limiters; forget reaches them all; requeues is the largest count. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly limiters: readonly RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/** client-go's `DefaultControllerRateLimiter`: max of 5 ms..1,000 s per key and 10/s burst 100 overall. */
export function defaultControllerRateLimiter(clock: Pick<Clock, 'now'> = systemClock): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialBackoffRateLimiter(5, 1_000_000), new TokenBucketRateLimiter(10, 100, clock));
}
