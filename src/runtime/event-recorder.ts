/**
 * Records core/v1 Events about objects, as users of such a system expect them:
 *
 * - Aggregation: an event with the same involved object, type, reason, message and source as one
 *   recorded within `aggregationWindowMs` (default 10 min) is not a new object: the existing
 *   Event's `count` goes up by one and `lastTimestamp` moves, with a merge PATCH. If that Event is
 *   gone (expired, deleted), a new one is created.
 * - Rate limit: per involved object (and source) a token bucket, burst 25 refilled at one per
 *   5 minutes (client-go's spam filter); events past it are dropped (outcome `dropped`).
 * - An optional shared `limiter` (e.g. one token bucket for a whole fleet of simulated nodes) bounds
 *   the rate over every object; events past it are dropped too, so a burst at scale costs the API
 *   server a bounded number of writes.
 * - Never throws into the caller: a failed write is logged and reported as `failed`.
 * - Writes of one aggregation key are serialised, so repeats never race into two Events.
 */
import { rfc3339 } from '../api/time.js';
import type { Logger } from 'pino';
import type { SvcObject } from '../api/types.js';
import type { ApiClient } from '../client/types.js';
import { ApiError } from '../client/types.js';
import { systemClock, type Clock } from './clock.js';
import { EVENTS } from './resource-refs.js';

export type EventType = 'Normal' | 'Warning';

/** What became of one `event()` call. */
export type RecordOutcome = 'created' | 'aggregated' | 'dropped' | 'failed';

export interface EventRecorderOptions {
  client: ApiClient;
  /** `source.component` and `reportingComponent`, e.g. the controller's name. */
  component: string;
  /** `source.host`; default none. */
  host?: string;
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
  /** Default 10 minutes. */
  aggregationWindowMs?: number;
  /** Per-object bucket size; default 25. */
  burst?: number;
  /** Per-object refill rate in events per second; default 1/300. */
  qps?: number;
  /** A rate limit shared over all objects (and recorders); an event without a token is dropped. */
  limiter?: { tryTake(): boolean };
}

/** Per event: which part of the object it is about (`involvedObject.fieldPath`, e.g. `spec.containers{web}`). */
export interface EventOptions {
  fieldPath?: string;
}

interface Aggregate {
  namespace: string;
  name: string;
  count: number;
  lastMs: number;
}

/** Entries kept per cache (aggregates, per-object rate buckets). */
const CACHE_ENTRIES = 4096;

export class EventRecorder {
  private readonly aggregates = new Map<string, Aggregate>();
  private readonly buckets = new Map<string, { tokens: number; last: number }>();
  private readonly chains = new Map<string, Promise<RecordOutcome>>();
  private readonly clock: Pick<Clock, 'now'>;
  private readonly window: number;
  private readonly burst: number;
  private readonly qps: number;
  private seq = 0;

  constructor(private readonly opts: EventRecorderOptions) {
    this.clock = opts.clock ?? systemClock;
    this.window = opts.aggregationWindowMs ?? 10 * 60_000;
    this.burst = opts.burst ?? 25;
    this.qps = opts.qps ?? 1 / 300;
  }

  /** Records that `reason` happened to `obj`, e.g. `event(cm, 'Normal', 'Mirrored', 'copied to 3 namespaces')`. */
  event(obj: SvcObject, type: EventType, reason: string, message: string, options: EventOptions = {}): Promise<RecordOutcome> {
    const ref = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      fieldPath: options.fieldPath,
    };
    // The shared limit first: past it, an event costs no per-object bookkeeping either.
    if (this.opts.limiter && !this.opts.limiter.tryTake()) return Promise.resolve('dropped');
    const objectId = [this.opts.component, this.opts.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? ''].join('\u0000');
    if (!this.takeToken(objectId)) return Promise.resolve('dropped');
    const key = [objectId, ref.fieldPath ?? '', type, reason, message].join('\u0000');
    const prev = this.chains.get(key) ?? Promise.resolve<RecordOutcome>('created');
    const next = prev.then(() => this.write(key, ref, type, reason, message));
    this.chains.set(key, next);
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  private async write(key: string, ref: Record<string, string | undefined>, type: EventType, reason: string, message: string): Promise<RecordOutcome> {
    const now = this.clock.now();
    const agg = this.aggregates.get(key);
    try {
      if (agg && now - agg.lastMs <= this.window) {
        try {
          await this.opts.client.patch(EVENTS, agg.namespace, agg.name, 'merge', { count: agg.count + 1, lastTimestamp: rfc3339(now) });
          agg.count++;
          agg.lastMs = now;
          return 'aggregated';
        } catch (e) {
          // The aggregated Event is gone (expired or deleted): start a new one.
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
      const namespace = ref['namespace'] || 'default';
      const nanos = BigInt(now) * 1_000_000n + BigInt(this.seq++ % 1_000_000);
      const name = `${ref['name']}.${nanos.toString(16)}`;
      await this.opts.client.create(EVENTS, namespace, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== undefined)),
        reason,
        message,
        type,
        source: { component: this.opts.component, ...(this.opts.host ? { host: this.opts.host } : {}) },
        reportingComponent: this.opts.component,
        firstTimestamp: rfc3339(now),
        lastTimestamp: rfc3339(now),
        count: 1,
      });
      this.aggregates.set(key, { namespace, name, count: 1, lastMs: now });
      this.evictOld(now);
      return 'created';
    } catch (err) {
      this.opts.logger?.warn({ err, reason, involvedObject: ref }, 'could not record event');
      return 'failed';
    }
  }

  private takeToken(id: string): boolean {
    const now = this.clock.now();
    const b = this.buckets.get(id) ?? { tokens: this.burst, last: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.last) / 1000) * this.qps);
    b.last = now;
    // Most recently used last, so the bound below drops the longest-unused objects' buckets.
    this.buckets.delete(id);
    this.buckets.set(id, b);
    if (this.buckets.size > CACHE_ENTRIES) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /**
   * Keeps the aggregation cache bounded (oldest first, as established: an LRU of 4,096): entries
   * past the window cannot aggregate any more, and beyond the bound the oldest are dropped. Costs
   * the entries dropped, never a scan of the whole cache.
   */
  private evictOld(now: number): void {
    for (const [k, a] of this.aggregates) {
      if (this.aggregates.size <= CACHE_ENTRIES && now - a.lastMs <= this.window) break;
      this.aggregates.delete(k);
    }
  }
}
