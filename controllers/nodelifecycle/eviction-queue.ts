/**
 * A zone's rate-limited queue of nodes (the established RateLimitedTimedQueue): nodes waiting for
 * their NoExecute taint (or, without the taint manager, for their pods' deletion), taken at most at
 * the zone's rate — a token bucket of `qps` tokens per second holding one (burst 1), refilled from
 * the injected clock; qps 0 takes nothing. A node is queued once however often it is added;
 * `remove` drops it (it became Ready). `swapLimiter` changes the rate (a new, full bucket), as the
 * zone's state changes.
 */
import type { Clock } from '../../src/runtime/clock.js';

export interface QueuedNode {
  name: string;
  uid: string;
  /** When it may be processed (ms); a failed attempt pushes it back. */
  processAt: number;
  addedAt: number;
}

/** How processing one node went: done (drop it), or retry after `retryMs`. */
export type TryResult = { done: true } | { done: false; retryMs: number };

export class ZoneEvictionQueue {
  private readonly items = new Map<string, QueuedNode>();
  private tokens = 1;
  private last: number;
  private qpsNow: number;

  constructor(
    qps: number,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.qpsNow = qps;
    this.last = clock.now();
  }

  get qps(): number {
    return this.qpsNow;
  }

  get size(): number {
    return this.items.size;
  }

  has(name: string): boolean {
    return this.items.has(name);
  }

  /** Queues `name`; false when it is queued already. */
  add(name: string, uid: string): boolean {
    if (this.items.has(name)) return false;
    const now = this.clock.now();
    this.items.set(name, { name, uid, processAt: now, addedAt: now });
    return true;
  }

  remove(name: string): boolean {
    return this.items.delete(name);
  }

  clear(): void {
    this.items.clear();
  }

  swapLimiter(qps: number): void {
    if (qps === this.qpsNow) return;
    this.qpsNow = qps;
    this.tokens = qps > 0 ? 1 : 0;
    this.last = this.clock.now();
  }

  private tryAccept(): boolean {
    if (this.qpsNow <= 0) return false;
    const now = this.clock.now();
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qpsNow);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Processes due nodes, oldest first, while the limiter allows; `fn` decides each. Resolves when
   * the queue should be tried again (ms from now; undefined: nothing waits).
   */
  async try(fn: (node: QueuedNode) => Promise<TryResult>): Promise<number | undefined> {
    const due = [...this.items.values()].sort((a, b) => a.processAt - b.processAt);
    for (const item of due) {
      if (item.processAt > this.clock.now()) break;
      if (!this.tryAccept()) break;
      const r = await fn(item);
      // A node removed or re-added meanwhile is left as it now is.
      if (this.items.get(item.name) !== item) continue;
      if (r.done) this.items.delete(item.name);
      else item.processAt = this.clock.now() + r.retryMs;
    }
    return this.nextTryIn();
  }

  /** Milliseconds until `try` may do something again (undefined: empty, or the rate is 0). */
  nextTryIn(): number | undefined {
    if (this.items.size === 0 || this.qpsNow <= 0) return undefined;
    const now = this.clock.now();
    let earliest = Infinity;
    for (const i of this.items.values()) earliest = Math.min(earliest, i.processAt);
    const tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qpsNow);
    const tokenIn = tokens >= 1 ? 0 : ((1 - tokens) / this.qpsNow) * 1000;
    return Math.max(0, earliest - now, Math.ceil(tokenIn));
  }
}
