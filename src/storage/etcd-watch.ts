/**
 * One etcd v3 watch on one gRPC stream, with our own resumption.
 *
 * Why not the etcd3 package's `Watcher`: on reconnect it resumes from `header.revision + 1` of the
 * last response, and etcd sets that header to the store's *current* revision on catch-up batches and
 * on the "created" response, so a disconnect during a replay would silently skip history. Here we
 * resume from the revision of the last event (or ordered progress notification) we delivered, and
 * drop anything at or below it, so a reconnect neither loses nor repeats an event.
 *
 * A change other than a create that etcd sends without its previous state (it could not read it:
 * compacted) ends the watch with CompactedError after the events before it, rather than deliver a
 * delete with no object or an update whose old labels are unknown (watchers once lost such deletes).
 */
import type { Logger } from 'pino';
import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';
import {
  CompactedError,
  StorageUnavailableError,
  type KVEvent,
  type WatchCallbacks,
  type WatchHandle,
} from './types.js';

/** Injectable timers (tests pass fakes; default the global ones). */
export interface WatchTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
  now(): number;
}

export const realTimers: WatchTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface EtcdWatchOptions {
  watchClient: WatchClient;
  logger?: Logger;
  /**
   * Send a progress request this often (ms) so callers learn the revision without writes under the
   * prefix; 0 disables. Only safe on etcd >= 3.4.24 / 3.5.8 (older servers may answer ahead of
   * events still queued), so the store passes 0 for older servers.
   */
  progressRequestIntervalMs: number;
  /** Give up (onError with StorageUnavailableError) after the stream failed for this long (ms). */
  retryBudgetMs: number;
  timers: WatchTimers;
  /** Called when etcd reports a compaction revision (keeps the store's notion current). */
  onCompactRevision?(revision: number): void;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

const BACKOFF_MIN_MS = 50;
const BACKOFF_MAX_MS = 2000;

/** Range [key, rangeEnd) covering every key that starts with `prefix` (etcd's byte order). */
export function prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
  const key = Buffer.from(prefix, 'utf8');
  if (key.length === 0) return { key: Buffer.from([0]), rangeEnd: Buffer.from([0]) };
  const end = Buffer.from(key);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return { key, rangeEnd: end.subarray(0, i + 1) };
    }
  }
  // every byte is 0xff: no upper bound
  return { key, rangeEnd: Buffer.from([0]) };
}

/** etcd event -> contract event. */
export function toKVEvent(ev: IEvent): KVEvent {
  const kv = ev.kv;
  const prev = ev.prev_kv ?? undefined;
  const key = kv.key.toString('utf8');
  const modRevision = Number(kv.mod_revision);
  if (ev.type === 'Delete') {
    // etcd's delete event has an empty value and zero create revision; the last state is in prev_kv.
    const last = prev?.value ?? Buffer.alloc(0);
    return {
      type: 'delete',
      key,
      value: last,
      prevValue: prev ? last : undefined,
      modRevision,
      createRevision: prev ? Number(prev.create_revision) : 0,
      prevModRevision: prev ? Number(prev.mod_revision) : 0,
    };
  }
  const createRevision = Number(kv.create_revision);
  const isCreate = createRevision === modRevision;
  return {
    type: 'put',
    key,
    value: kv.value,
    prevValue: isCreate || !prev ? undefined : prev.value,
    modRevision,
    createRevision,
    prevModRevision: isCreate || !prev ? 0 : Number(prev.mod_revision),
  };
}

export class EtcdWatch implements WatchHandle {
  /** Everything up to this revision has been delivered; a reconnect starts right after it. */
  private delivered: number;
  private stream: WatchStream | undefined;
  private created = false;
  private closed = false;
  private failingSince: number | undefined;
  private attempt = 0;
  private retryTimer: unknown;
  private progressTimer: unknown;

  constructor(
    private readonly opts: EtcdWatchOptions,
    private readonly prefix: string,
    afterRevision: number,
    private readonly callbacks: WatchCallbacks,
    /** Called once when this watch ends for good (closed or failed), so the store can forget it. */
    private readonly onFinished: (w: EtcdWatch) => void,
  ) {
    this.delivered = Math.max(0, afterRevision);
    void this.connect();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.teardown();
    this.onFinished(this);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let stream: WatchStream;
    try {
      stream = await this.opts.watchClient.watch();
    } catch (err) {
      this.retry(err as Error);
      return;
    }
    if (this.closed) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    this.created = false;
    stream.on('data', (res: IWatchResponse) => this.onResponse(stream, res));
    stream.on('error', (err: Error) => this.onStreamLost(stream, err));
    stream.on('end', () => this.onStreamLost(stream, new Error('watch stream ended')));
    const { key, rangeEnd } = prefixRange(this.prefix);
    stream.write({
      create_request: {
        key,
        range_end: rangeEnd,
        start_revision: this.delivered + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(stream: WatchStream, res: IWatchResponse): void {
    if (this.closed || stream !== this.stream) return;
    const compactRevision = Number(res.compact_revision ?? 0);
    if (res.canceled) {
      if (compactRevision > 0) {
        this.opts.onCompactRevision?.(compactRevision);
        this.fail(new CompactedError(this.delivered + 1, compactRevision));
        return;
      }
      this.onStreamLost(stream, new Error(`watch canceled by etcd: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) {
      this.created = true;
      this.attempt = 0;
      this.failingSince = undefined;
      this.startProgressRequests(stream);
      return;
    }
    const events: KVEvent[] = [];
    let lostPrevious: number | undefined;
    for (const ev of res.events ?? []) {
      const e = toKVEvent(ev);
      if (e.modRevision <= this.delivered) continue;
      if (!ev.prev_kv && !(ev.type !== 'Delete' && e.createRevision === e.modRevision)) {
        // A change other than a create comes without its previous state only when etcd could not
        // read it: the history before this revision is compacted (a watch lagging behind the
        // compactor). A delete would arrive with no object to name, an update could not say which
        // selections the object left; as the established server does, this watch cannot go on.
        // Everything before it is delivered; the watcher resumes from there and meets the
        // compaction (410 Gone), or, for the watch cache, lists again.
        lostPrevious = e.modRevision;
        break;
      }
      events.push(e);
    }
    if (events.length > 0) {
      this.delivered = events[events.length - 1]!.modRevision;
      this.safely(() => this.callbacks.onEvents(events));
    }
    if (lostPrevious !== undefined) {
      this.opts.logger?.warn({ prefix: this.prefix, revision: lostPrevious }, 'etcd sent a change without its previous state (compacted): ending the watch');
      this.fail(new CompactedError(this.delivered + 1, lostPrevious));
      return;
    }
    if (events.length > 0) return;
    if ((res.events ?? []).length === 0) {
      // A progress notification: etcd sends these only for watchers that are caught up, in order
      // with their events, so every change up to header.revision has been delivered.
      const rev = Number(res.header?.revision ?? 0);
      if (rev > this.delivered) {
        this.delivered = rev;
        this.safely(() => this.callbacks.onProgress?.(rev));
      }
    }
  }

  private startProgressRequests(stream: WatchStream): void {
    this.stopProgressRequests();
    const every = this.opts.progressRequestIntervalMs;
    if (every <= 0) return;
    this.progressTimer = this.opts.timers.setInterval(() => {
      if (this.closed || stream !== this.stream || !this.created) return;
      stream.write({ progress_request: {} });
    }, every);
  }

  private stopProgressRequests(): void {
    if (this.progressTimer !== undefined) this.opts.timers.clearInterval(this.progressTimer);
    this.progressTimer = undefined;
  }

  private onStreamLost(stream: WatchStream, err: Error): void {
    if (this.closed || stream !== this.stream) return;
    this.stream = undefined;
    this.stopProgressRequests();
    try {
      stream.cancel();
    } catch {
      // already gone
    }
    this.retry(err);
  }

  private retry(err: Error): void {
    if (this.closed) return;
    const now = this.opts.timers.now();
    this.failingSince ??= now;
    if (now - this.failingSince >= this.opts.retryBudgetMs) {
      this.fail(new StorageUnavailableError(`etcd watch on ${this.prefix} failed for ${now - this.failingSince} ms: ${err.message}`));
      return;
    }
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt);
    this.attempt++;
    this.opts.logger?.warn({ prefix: this.prefix, resumeAfter: this.delivered, delayMs: delay, err: err.message }, 'etcd watch lost; reconnecting');
    this.retryTimer = this.opts.timers.setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.teardown();
    this.onFinished(this);
    this.safely(() => this.callbacks.onError(err));
  }

  private teardown(): void {
    this.stopProgressRequests();
    if (this.retryTimer !== undefined) this.opts.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const stream = this.stream;
    this.stream = undefined;
    if (stream) {
      try {
        stream.cancel();
      } catch {
        // already gone
      }
    }
  }

  /** A throwing callback is the caller's bug; rethrow it outside the gRPC stream's handlers. */
  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      setImmediate(() => {
        throw err;
      });
    }
  }
}
