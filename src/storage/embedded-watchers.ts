/**
 * Watch fan-out of the embedded engine: which watchers a committed change goes to, and an ordered,
 * asynchronous delivery queue.
 *
 * Guarantees:
 * - Every callback runs in a microtask, never inside a write transaction or inside `watch()`.
 * - Deliveries run in the order they were queued; replays are queued at registration and commits
 *   after their transaction, so each watcher sees revisions strictly in order.
 * - No callback runs for a watcher after its `close()`.
 * - Matching is by key prefix: a map from prefix to watchers plus the distinct prefix lengths, so an
 *   event costs one map lookup per distinct length (a handful), not one test per watcher.
 */
import type { Logger } from 'pino';
import type { KVEvent, WatchCallbacks } from './types.js';

export interface EngineWatcher {
  readonly prefix: string;
  /** Only changes with a revision above this are delivered. */
  readonly after: number;
  readonly callbacks: WatchCallbacks;
  closed: boolean;
  registered: boolean;
}

export interface WatcherRegistryOptions {
  logger?: Logger;
  /**
   * Progress notifications after writes: 0 sends them right after each batch's events (in the same
   * delivery pass), a positive value at most that often (ms), a negative value disables them.
   */
  progressIntervalMs: number;
  currentRevision: () => number;
}

export class WatcherRegistry {
  private readonly byPrefix = new Map<string, Set<EngineWatcher>>();
  /** Distinct prefix lengths in use (ascending), with how many prefixes have each length. */
  private lengths: number[] = [];
  private readonly lengthCounts = new Map<number, number>();
  private deliveries: Array<() => void> = [];
  private draining = false;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: WatcherRegistryOptions) {}

  get size(): number {
    let n = 0;
    for (const set of this.byPrefix.values()) n += set.size;
    return n;
  }

  /** Register a watcher for live changes and queue its replay (already read by the caller). */
  add(prefix: string, after: number, callbacks: WatchCallbacks, replay: KVEvent[]): EngineWatcher {
    const w: EngineWatcher = { prefix, after, callbacks, closed: false, registered: true };
    let set = this.byPrefix.get(prefix);
    if (!set) {
      set = new Set();
      this.byPrefix.set(prefix, set);
      const n = this.lengthCounts.get(prefix.length) ?? 0;
      this.lengthCounts.set(prefix.length, n + 1);
      if (n === 0) this.lengths = [...this.lengthCounts.keys()].sort((a, b) => a - b);
    }
    set.add(w);
    if (replay.length > 0) this.deliverEvents(w, replay);
    return w;
  }

  /** Stop a watcher: no callback runs for it afterwards. */
  remove(w: EngineWatcher): void {
    w.closed = true;
    this.unregister(w);
  }

  /** End a watcher with a terminal error (delivered asynchronously, after anything already queued). */
  fail(w: EngineWatcher, err: Error): void {
    this.unregister(w);
    this.enqueue(() => {
      if (w.closed) return;
      w.closed = true;
      w.callbacks.onError(err);
    });
  }

  closeAll(err: Error): void {
    for (const set of [...this.byPrefix.values()]) for (const w of [...set]) this.fail(w, err);
    if (this.progressTimer) clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
  }

  /** Fan out the events of one committed batch (in revision order) to matching watchers. */
  dispatch(events: KVEvent[]): void {
    if (events.length === 0 || this.byPrefix.size === 0) return;
    let perWatcher: Map<EngineWatcher, KVEvent[]> | undefined;
    for (const ev of events) {
      const key = ev.key;
      for (const len of this.lengths) {
        if (len > key.length) break;
        const set = this.byPrefix.get(len === key.length ? key : key.slice(0, len));
        if (!set) continue;
        for (const w of set) {
          if (ev.modRevision <= w.after) continue;
          perWatcher ??= new Map();
          const list = perWatcher.get(w);
          if (list) list.push(ev);
          else perWatcher.set(w, [ev]);
        }
      }
    }
    if (perWatcher) for (const [w, evs] of perWatcher) this.deliverEvents(w, evs);
    this.scheduleProgress();
  }

  private deliverEvents(w: EngineWatcher, events: KVEvent[]): void {
    this.enqueue(() => {
      if (!w.closed) w.callbacks.onEvents(events);
    });
  }

  private scheduleProgress(): void {
    const interval = this.opts.progressIntervalMs;
    if (interval < 0) return;
    if (interval === 0) {
      // Queued after this batch's events with the revision as of this batch, so a watcher never
      // hears of a revision before the events up to it.
      const rev = this.opts.currentRevision();
      this.enqueue(() => this.notifyProgress(false, rev));
      return;
    }
    if (this.progressTimer) return;
    this.progressTimer = setTimeout(() => {
      this.progressTimer = undefined;
      this.notifyProgress(true);
    }, interval);
    this.progressTimer.unref();
  }

  private notifyProgress(viaQueue: boolean, rev = this.opts.currentRevision()): void {
    for (const set of this.byPrefix.values()) {
      for (const w of set) {
        if (!w.callbacks.onProgress || rev <= w.after) continue;
        const send = () => {
          if (!w.closed) w.callbacks.onProgress?.(rev);
        };
        if (viaQueue) this.enqueue(send);
        else send();
      }
    }
  }

  private unregister(w: EngineWatcher): void {
    if (!w.registered) return;
    w.registered = false;
    const set = this.byPrefix.get(w.prefix);
    if (!set) return;
    set.delete(w);
    if (set.size > 0) return;
    this.byPrefix.delete(w.prefix);
    const n = (this.lengthCounts.get(w.prefix.length) ?? 1) - 1;
    if (n > 0) this.lengthCounts.set(w.prefix.length, n);
    else {
      this.lengthCounts.delete(w.prefix.length);
      this.lengths = [...this.lengthCounts.keys()].sort((a, b) => a - b);
    }
  }

  private enqueue(fn: () => void): void {
    this.deliveries.push(fn);
    if (this.draining) return;
    this.draining = true;
    queueMicrotask(() => this.drain());
  }

  /** Run queued deliveries in order; a throwing callback is logged and does not stop the others. */
  private drain(): void {
    for (let i = 0; i < this.deliveries.length; i++) {
      try {
        this.deliveries[i]!();
      } catch (err) {
        this.opts.logger?.error({ err }, 'watch callback threw');
      }
    }
    this.deliveries = [];
    this.draining = false;
  }
}
