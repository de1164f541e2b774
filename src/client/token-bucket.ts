/**
 * A token bucket: `qps` tokens per second, holding at most `burst`, full at start. It is the
 * client-side rate limit of every request a client sends (`--svc-api-qps`, `--svc-api-burst`).
 *
 * Reserving may drive the bucket below zero: the debt is the caller's wait, so waiters are served
 * in the order they reserved and the long-run rate never exceeds `qps` (golang.org/x/time/rate's
 * Reserve, which client-go's limiter uses). Time comes from an injectable clock.
 */
import { type Clock, sleep, systemClock } from './clock.js';

/** The controller manager's defaults (the scheduler's are 50/100). */
export const DEFAULT_QPS = 20;
export const DEFAULT_BURST = 30;

export class TokenBucket {
  private tokens: number;
  private last: number;

  /**
   * @param qps tokens added per second; `<= 0` or `Infinity` turns limiting off.
   * @param burst the bucket's size (at least 1).
   */
  constructor(
    readonly qps: number = DEFAULT_QPS,
    readonly burst: number = DEFAULT_BURST,
    private readonly clock: Clock = systemClock,
  ) {
    if (!Number.isFinite(burst) || burst < 1) this.burst = 1;
    this.tokens = this.burst;
    this.last = clock.now();
  }

  /** Whether this bucket limits anything. */
  get limited(): boolean {
    return this.qps > 0 && Number.isFinite(this.qps);
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /** Takes one token now or reserves the next one; returns the wait in ms (0 = go now). */
  reserve(): number {
    if (!this.limited) return 0;
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Takes one token only if one is available now. */
  tryTake(): boolean {
    if (!this.limited) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Waits until a token is this caller's. An abort gives the reserved token back (the next
   * waiter's wait does not shrink: it reserved after this one, as with rate.Reservation.Cancel).
   */
  async take(signal?: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait === 0) return;
    try {
      await sleep(this.clock, wait, signal);
    } catch (err) {
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw err;
    }
  }

  /** Tokens available now (negative: reserved ahead). */
  available(): number {
    if (!this.limited) return Infinity;
    this.refill();
    return this.tokens;
  }
}
