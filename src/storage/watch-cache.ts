/**
 * The watch cache: an in-memory copy of one resource's store prefix plus a window of recent change
 * events, so watches and lists are served without touching the storage engine.
 *
 * Guarantees:
 * - Consistency: the cache lists the prefix at one revision R and watches the store from R, so its
 *   contents at `revision` are exactly the store's state under the prefix at that revision.
 * - `watch(after)` delivers every change under the prefix with revision > `after`, in revision
 *   order, exactly once: from memory when `after >= oldestRevision()`, otherwise from a direct store
 *   watch until it reaches the in-memory window, then from memory again (so a watch fails with
 *   CompactedError only when the store itself compacted that history).
 *   A watcher that names a `scope` (a key prefix: one namespace) may be spared live changes outside
 *   it (it must still filter: a replay and a direct store watch deliver the whole prefix).
 * - One decode per change and at most one JSON serialization, made when first asked for: the
 *   `object` and `json` of a `CacheEvent` and of an `ObjectView` are shared by every reader and
 *   watcher; objects are deep-frozen.
 * - Callbacks run asynchronously (never inside `watch()`), in order per watcher; none after close().
 *   Live events go to every idle watcher in one synchronous pass from the store watch's callback.
 * - If the store watch fails, the cache re-lists and re-watches by itself (retrying with back-off);
 *   the watchers it was serving get `onError(CompactedError)` and must re-list (a 410 to clients).
 */
import type { Logger } from 'pino';
import type { SvcObject } from '../api/types.js';
import {
  CompactedError,
  StorageUnavailableError,
  type KVEvent,
  type KVRecord,
  type KVStore,
  type WatchHandle,
} from './types.js';
import { ObjectView } from './object-view.js';
import { EventRing } from './watch-cache-ring.js';
import { SortedKeys } from './watch-cache-keys.js';

export interface CacheEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  revision: number;
  key: string;
  /** The new state; for DELETED the last state, with resourceVersion = the deletion's revision. */
  object: SvcObject;
  json: Buffer;
  /** The state before this change (MODIFIED and DELETED). */
  prevObject?: SvcObject;
}

/** How often events that aged out of the history window are let go when no change arrives. */
const EXPIRY_CHECK_MS = 15_000;

/** Stored bytes let go at one expiry check that make `onHistoryReleased` worth calling (about 6 MiB in memory). */
const HISTORY_RELEASED_MUCH = 4 * 2 ** 20;

/**
 * Events younger than this stay in memory beyond the cache size: the established cache's "fresh"
 * duration (its bookmark period of 60 s plus a margin), so a watcher resuming from its last bookmark
 * is served from memory. An older start is still served, from the store's own history.
 */
export const HISTORY_WINDOW_MS = 75_000;

/**
 * Bytes of stored objects the history may hold beyond the cache size, per resource, once its events
 * are HISTORY_MIN_AGE_MS old: under a heavy write load the window would hold every change of the
 * last 75 s (the overload suite's 2,300 writes/s filled the 100,000-event bound: 90 MiB of V8 heap
 * still held a minute after the load). A decoded object takes about 1.6 times its stored size in
 * V8's heap, so this is about 13 MiB: 15,000 changes of a 550-byte ConfigMap. An older start is served
 * from the store's own history, as beyond the window.
 */
export const HISTORY_MAX_BYTES = 8 * 2 ** 20;

/**
 * Events this young stay whatever their bytes: a client that lists and then watches from the list's
 * revision, or resumes from its last bookmark, should find it in memory. Further back it is served by
 * the store until it catches up (one decode per change for it alone), then rejoins the cache. In the
 * node-failure benchmark (30,000 pods started on 1,000 simulated nodes, a 30,000-pod list taking
 * seconds) the setup took 193 s bounded by bytes alone, 112-136 s at 10 s and 104 s at 30 s; the overload
 * suite's 2,300 writes/s kept about 60 MiB more live heap at 30 s, which showed in its p99.
 */
export const HISTORY_MIN_AGE_MS = 10_000;

export interface WatchCacheOptions {
  store: KVStore;
  /** Store key prefix of the resource, e.g. `/registry/configmaps/`. */
  prefix: string;
  /** Minimum number of events kept in memory. */
  capacity: number;
  /** Events younger than this are kept too, up to maxEvents. Default HISTORY_WINDOW_MS (75 s). */
  historyWindowMs?: number;
  /** Hard bound on events kept in memory. Default 100_000 (never below capacity). */
  maxEvents?: number;
  /** Bound on the stored bytes of the events kept beyond `capacity`. Default HISTORY_MAX_BYTES (8 MiB). */
  maxBytes?: number;
  /** Events younger than this are kept whatever maxBytes says. Default HISTORY_MIN_AGE_MS (10 s). */
  minAgeMs?: number;
  /** Decode a stored value; returns the object with metadata.resourceVersion set. */
  decode: (value: Uint8Array, modRevision: number) => SvcObject;
  /** Clock for the history window. Default Date.now. */
  now?: () => number;
  /**
   * Called when the history let go of much at once (HISTORY_RELEASED_MUCH of stored objects) while
   * no change arrives: the memory reclaimer's cue that a collection now gives memory back.
   */
  onHistoryReleased?: () => void;
  logger?: Logger;
}

type Delivery = { events: CacheEvent[] } | { error: Error };

interface CacheWatcher {
  /** Only events with a revision above this are delivered. */
  after: number;
  /** Live changes whose key does not start with this are not delivered (undefined: the whole prefix). */
  scope: string | undefined;
  onEvents: (events: CacheEvent[]) => void;
  onError: (err: Error) => void;
  pending: Delivery[];
  scheduled: boolean;
  closed: boolean;
  /** Set while served by a direct store watch (it started before the in-memory window); cleared when it rejoins. */
  direct?: WatchHandle;
}

/** What `WatchCache.watch` returns. */
export interface CacheWatchHandle {
  close(): void;
  /**
   * True when every change up to the cache's `revision` has been handed to this watcher: it is
   * served from memory and has nothing queued. False while it waits for the cache's list, or is
   * served by a direct store watch (it started before the in-memory window, so it is still
   * replaying older history): a bookmark must not then claim the cache's revision for it, or a
   * client resuming from that bookmark would skip the changes not yet replayed.
   */
  caughtUp(): boolean;
}

interface RevisionWaiter {
  revision: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

const LIST_PAGE = 5000;
/** Lists kept at once (one per namespace listed); past it they are all let go and kept afresh. */
const MAX_KEPT_LISTS = 1024;
const RELIST_BACKOFF_MS = [100, 200, 500, 1000, 2000, 5000, 10_000];

/** The prefix a key's name follows: its namespace's (`<resource>/<ns>/`), or the resource's for a cluster-scoped key. */
function parentOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/** An event sharing its object's JSON, made when the first watcher needs it. */
function changeEvent(type: CacheEvent['type'], cached: ObjectView, prevObject: SvcObject | undefined): CacheEvent {
  return {
    type,
    revision: cached.revision,
    key: cached.key,
    object: cached.object,
    get json() {
      return cached.json;
    },
    prevObject,
  };
}

export class WatchCache {
  private readonly store: KVStore;
  private readonly prefix: string;
  private readonly decodeValue: WatchCacheOptions['decode'];
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly onHistoryReleased: (() => void) | undefined;
  private readonly ring: EventRing<CacheEvent>;
  private objects = new Map<string, ObjectView>();
  private readonly keys = new SortedKeys();
  private rev = 0;
  private listRevision = 0;
  /** Revision of the last change under each parent prefix of a key (its namespace's), since the last (re)list. */
  private readonly lastChange = new Map<string, number>();
  /** Revision of the last change to any key, since the last (re)list. */
  private lastAnyChange = 0;
  /**
   * The last `list()` of the whole resource and of each namespace, dropped at the first change under
   * it: a LIST of a quiet namespace is a lookup, not a walk of its keys and objects (the overload
   * suite's 1,000-item LISTs spent 8% of the server's CPU building the same array again).
   */
  private readonly lists = new Map<string, readonly ObjectView[]>();
  private state: 'new' | 'listing' | 'watching' | 'stopped' = 'new';
  /** Incremented per (re)list; callbacks of an older store watch are ignored. */
  private generation = 0;
  private storeWatch: WatchHandle | undefined;
  /** Every watcher served from memory. */
  private readonly watchers = new Set<CacheWatcher>();
  /**
   * The same watchers by scope (`undefined`: the whole prefix). A change goes only to the watchers of
   * the scopes that hold its key: with many watchers of one namespace, a change in another costs
   * them nothing (400 watch-lists of one namespace took 7.5% of a loaded server's CPU filtering the
   * writes of another).
   */
  private readonly byScope = new Map<string | undefined, Set<CacheWatcher>>();
  /** Watchers registered while a (re)list runs; attached when it completes. */
  private waitingForList: CacheWatcher[] = [];
  private readonly directWatchers = new Set<CacheWatcher>();
  private waiters: RevisionWaiter[] = [];
  private relistTimer: NodeJS.Timeout | undefined;
  /** Lets events that aged out of the history window go while no change arrives (./watch-cache-ring.ts). */
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(opts: WatchCacheOptions) {
    this.store = opts.store;
    this.prefix = opts.prefix;
    this.decodeValue = opts.decode;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger;
    this.onHistoryReleased = opts.onHistoryReleased;
    this.ring = new EventRing<CacheEvent>(
      opts.capacity,
      opts.historyWindowMs ?? HISTORY_WINDOW_MS,
      opts.maxEvents ?? 100_000,
      opts.maxBytes ?? HISTORY_MAX_BYTES,
      opts.minAgeMs ?? HISTORY_MIN_AGE_MS,
    );
  }

  /** List the prefix at the current revision, then watch from it. Resolves once the list is loaded. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('watch cache already started');
    this.expiryTimer = setInterval(() => {
      const held = this.ring.bytes;
      this.ring.evictExpired(this.now());
      if (held - this.ring.bytes >= HISTORY_RELEASED_MUCH) this.onHistoryReleased?.();
    }, EXPIRY_CHECK_MS);
    this.expiryTimer.unref();
    try {
      await this.load();
    } catch (err) {
      if (this.stateNow() === 'listing') this.state = 'new';
      throw err;
    }
  }

  /** Highest revision applied (events, or store progress notifications). */
  get revision(): number {
    return this.rev;
  }

  get size(): number {
    return this.objects.size;
  }

  /** Resolves true as soon as `revision >= rev`, false after `timeoutMs` (or on stop). */
  waitForRevision(rev: number, timeoutMs: number): Promise<boolean> {
    if (this.rev >= rev) return Promise.resolve(true);
    if (this.state === 'stopped') return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: RevisionWaiter = {
        revision: rev,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  get(key: string): ObjectView | undefined {
    return this.objects.get(key);
  }

  /**
   * Objects whose key starts with `keyPrefix` (a full store key prefix; default all), sorted by key.
   * The array is shared with other callers until something under the prefix changes: never modify it.
   */
  list(keyPrefix = ''): { items: readonly ObjectView[]; revision: number } {
    const prefix = keyPrefix === '' ? this.prefix : keyPrefix;
    const kept = this.lists.get(prefix);
    if (kept) return { items: kept, revision: this.rev };
    const keys = this.keys.withPrefix(keyPrefix);
    const items: ObjectView[] = new Array<ObjectView>(keys.length);
    for (let i = 0; i < keys.length; i++) items[i] = this.objects.get(keys[i]!)!;
    // Only the prefixes a change names (the resource's and a namespace's) can be dropped by it.
    if (this.state === 'watching' && (prefix === this.prefix || this.isNamespacePrefix(prefix))) {
      if (this.lists.size >= MAX_KEPT_LISTS) this.lists.clear();
      this.lists.set(prefix, items);
    }
    return { items, revision: this.rev };
  }

  /**
   * A stamp that changes whenever anything under `prefix` changes: the revision of the last change
   * under it since the last (re)list, else that list's revision. Exact for the resource's prefix and
   * for a namespace's (the prefix a key's name follows); any other prefix gets the cache's revision,
   * which changes with every change.
   */
  changedUnder(prefix: string): number {
    if (prefix === this.prefix || prefix === '') return this.lastAnyChange || this.listRevision;
    return this.lastChange.get(prefix) ?? (this.isNamespacePrefix(prefix) ? this.listRevision : this.rev);
  }

  /** `<resource prefix><namespace>/`: the prefix a namespaced key's name follows. */
  private isNamespacePrefix(prefix: string): boolean {
    return prefix.length > this.prefix.length && prefix.startsWith(this.prefix) && prefix.indexOf('/', this.prefix.length) === prefix.length - 1;
  }

  /** Events with a revision above this are all in memory. */
  oldestRevision(): number {
    return Math.max(this.listRevision, this.ring.evictedRevision);
  }

  /**
   * Deliver every change with revision > afterRevision (see the class comment for the guarantees).
   * `afterRevision` above the cache's revision delivers only what comes after it (callers wait first).
   * `scope`: only live changes under it are delivered: a key prefix ending in `/` (a namespace's
   * objects) or one object's whole key.
   */
  watch(
    afterRevision: number,
    onEvents: (events: CacheEvent[]) => void,
    onError: (err: Error) => void,
    scope?: string,
  ): CacheWatchHandle {
    const w: CacheWatcher = { after: afterRevision, scope: scope && scope !== this.prefix ? scope : undefined, onEvents, onError, pending: [], scheduled: false, closed: false };
    if (this.state === 'stopped') this.push(w, { error: new StorageUnavailableError('watch cache stopped') });
    else if (this.state === 'watching') this.attach(w);
    else this.waitingForList.push(w);
    return {
      caughtUp: () => !w.closed && this.watchers.has(w) && !w.scheduled && w.pending.length === 0,
      close: () => {
        w.closed = true;
        w.pending = [];
        this.removeLive(w);
        this.directWatchers.delete(w);
        w.direct?.close();
      },
    };
  }

  /** Stop watching the store; no watcher callback runs afterwards and pending waits resolve false. */
  stop(): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.generation++;
    this.storeWatch?.close();
    this.storeWatch = undefined;
    if (this.relistTimer) clearTimeout(this.relistTimer);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    for (const w of [...this.watchers, ...this.directWatchers, ...this.waitingForList]) {
      w.closed = true;
      w.direct?.close();
    }
    this.watchers.clear();
    this.byScope.clear();
    this.directWatchers.clear();
    this.waitingForList = [];
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
  }

  /** Serve a watcher from memory if its start is inside the window, else from the store. */
  private attach(w: CacheWatcher): void {
    if (w.closed) return;
    if (w.after >= this.oldestRevision()) {
      this.serveFromMemory(w);
      return;
    }
    this.directWatchers.add(w);
    this.log?.debug({ prefix: this.prefix, after: w.after, oldest: this.oldestRevision(), revision: this.rev, direct: this.directWatchers.size }, 'watch before the in-memory window: served by the store');
    w.direct = this.store.watch(this.prefix, w.after, {
      onEvents: (events) => {
        const out: CacheEvent[] = [];
        for (const ev of events) {
          const converted = this.convertDirect(ev);
          if (converted) out.push(converted);
        }
        if (out.length > 0) this.push(w, { events: out });
        this.caughtUpFromStore(w, events[events.length - 1]?.modRevision ?? 0);
      },
      onProgress: (rev) => this.caughtUpFromStore(w, rev),
      onError: (err) => {
        this.directWatchers.delete(w);
        this.push(w, { error: err });
      },
    });
  }

  /**
   * A watcher served by the store has had every change up to `rev`: once that reaches the in-memory
   * window it rejoins the cache (the rest from the history, then live), so a watch that started
   * before the window costs one decode per change only while it catches up, not for its whole life.
   * Its queue keeps the order: what the store delivered is queued before the history's replay.
   */
  private caughtUpFromStore(w: CacheWatcher, rev: number): void {
    if (rev > w.after) w.after = rev;
    if (w.closed || !w.direct || this.state !== 'watching' || w.after < this.oldestRevision()) return;
    this.log?.debug({ prefix: this.prefix, after: w.after, revision: this.rev }, 'watch served by the store caught up: back to the cache');
    w.direct.close();
    w.direct = undefined;
    this.directWatchers.delete(w);
    this.serveFromMemory(w);
  }

  /** Replay the history after the watcher's revision (queued behind anything it already has), then go live. */
  private serveFromMemory(w: CacheWatcher): void {
    const replay = this.ring.since(w.after);
    if (replay.length > 0) this.push(w, { events: replay });
    this.addLive(w);
  }

  /** List at one revision (in pages), replace the contents, then watch the store from that revision. */
  private async load(): Promise<void> {
    this.state = 'listing';
    const generation = ++this.generation;
    const records: KVRecord[] = [];
    let page = await this.store.list(this.prefix, { limit: LIST_PAGE });
    const revision = page.revision;
    records.push(...page.items);
    while (page.remaining > 0 && page.items.length > 0) {
      const last = page.items[page.items.length - 1]!.key;
      page = await this.store.list(this.prefix, { revision, startKey: `${last}\0`, limit: LIST_PAGE });
      records.push(...page.items);
    }
    if (generation !== this.generation) return; // stopped meanwhile
    const objects = new Map<string, ObjectView>();
    const sorted: string[] = [];
    for (const rec of records) {
      const cached = this.decodeRecord(rec.key, rec.value, rec.modRevision);
      if (!cached) continue;
      objects.set(rec.key, cached);
      sorted.push(rec.key);
    }
    this.objects = objects;
    this.keys.reset(sorted);
    this.ring.clear(revision);
    this.listRevision = revision;
    this.lastChange.clear();
    this.lastAnyChange = 0;
    this.lists.clear();
    this.storeWatch = this.store.watch(this.prefix, revision, {
      onEvents: (events) => {
        if (generation === this.generation) this.apply(events);
      },
      onProgress: (rev) => {
        if (generation === this.generation && rev > this.rev) this.advance(rev);
      },
      onError: (err) => {
        if (generation === this.generation) this.onStoreWatchFailed(err);
      },
    });
    this.state = 'watching';
    this.log?.debug({ prefix: this.prefix, revision, objects: objects.size }, 'watch cache listed');
    if (revision > this.rev) this.advance(revision);
    const waiting = this.waitingForList;
    this.waitingForList = [];
    for (const w of waiting) this.attach(w);
  }

  private addLive(w: CacheWatcher): void {
    this.watchers.add(w);
    let set = this.byScope.get(w.scope);
    if (!set) this.byScope.set(w.scope, (set = new Set()));
    set.add(w);
  }

  private removeLive(w: CacheWatcher): void {
    if (!this.watchers.delete(w)) return;
    const set = this.byScope.get(w.scope);
    set?.delete(w);
    if (set?.size === 0) this.byScope.delete(w.scope);
  }

  /** Hand a batch of changes to the watchers of the scopes that hold them, in revision order. */
  private fanOut(batch: CacheEvent[]): void {
    // Snapshots: a callback may open a watch, whose replay already holds this batch.
    const groups: Array<{ watchers: CacheWatcher[]; events: CacheEvent[] }> = [];
    const whole = this.byScope.get(undefined);
    if (whole) groups.push({ watchers: [...whole], events: batch });
    if (this.byScope.size > (whole ? 1 : 0)) {
      const byScope = new Map<string, CacheEvent[]>();
      const add = (scope: string, e: CacheEvent) => {
        if (!this.byScope.has(scope)) return;
        const events = byScope.get(scope);
        if (events) events.push(e);
        else byScope.set(scope, [e]);
      };
      for (const e of batch) {
        // The scopes that can hold this key (watch()'s two forms): its namespace, and the key itself.
        add(parentOf(e.key), e);
        add(e.key, e);
      }
      for (const [scope, events] of byScope) groups.push({ watchers: [...this.byScope.get(scope)!], events });
    }
    for (const { watchers, events } of groups) {
      for (const w of watchers) {
        if (events[0]!.revision > w.after) this.deliver(w, events);
        else {
          const newer = events.filter((e) => e.revision > w.after);
          if (newer.length > 0) this.deliver(w, newer);
        }
      }
    }
  }

  /** Apply a batch of store events (revision order): update contents, record history, fan out. */
  private apply(events: KVEvent[]): void {
    const batch: CacheEvent[] = [];
    /** Stored size of each event of `batch`: what the history's byte bound counts. */
    const sizes: number[] = [];
    const at = this.now();
    for (const ev of events) {
      if (ev.modRevision <= this.rev) continue; // already applied (never expected; defensive)
      const prev = this.objects.get(ev.key);
      if (ev.type === 'delete') {
        const cached = this.decodeRecord(ev.key, ev.value, ev.modRevision);
        if (prev) {
          this.objects.delete(ev.key);
          this.keys.remove(ev.key);
        }
        if (cached) {
          batch.push(changeEvent('DELETED', cached, prev?.object));
          sizes.push(ev.value.length);
        }
      } else {
        const cached = this.decodeRecord(ev.key, ev.value, ev.modRevision);
        if (cached) {
          if (!prev) this.keys.add(ev.key);
          this.objects.set(ev.key, cached);
          batch.push(changeEvent(ev.createRevision === ev.modRevision ? 'ADDED' : 'MODIFIED', cached, prev?.object));
          sizes.push(ev.value.length);
        } else if (prev) {
          // Undecodable new state: drop the stale one rather than serve it as current.
          this.objects.delete(ev.key);
          this.keys.remove(ev.key);
        }
      }
      this.rev = ev.modRevision;
      this.lastAnyChange = ev.modRevision;
      const parent = parentOf(ev.key);
      this.lastChange.set(parent, ev.modRevision);
      if (this.lists.size > 0) {
        this.lists.delete(parent);
        this.lists.delete(this.prefix);
      }
    }
    for (let i = 0; i < batch.length; i++) this.ring.append(batch[i]!, at, sizes[i]);
    if (batch.length > 0) this.fanOut(batch);
    this.advance(this.rev);
  }

  /** The store watch broke: fail the watchers served from memory, then re-list and re-watch. */
  private onStoreWatchFailed(err: Error): void {
    this.log?.warn({ err, prefix: this.prefix, revision: this.rev }, 'watch cache lost its store watch; re-listing');
    this.storeWatch = undefined;
    this.generation++;
    for (const w of this.watchers) {
      const compacted = err instanceof CompactedError ? err : new CompactedError(w.after, this.rev);
      this.push(w, { error: compacted });
    }
    this.watchers.clear();
    this.byScope.clear();
    this.state = 'listing';
    void this.relist(0);
  }

  private async relist(attempt: number): Promise<void> {
    if (this.state === 'stopped') return;
    try {
      await this.load();
    } catch (err) {
      if (this.stateNow() === 'stopped') return;
      this.state = 'listing';
      const delay = RELIST_BACKOFF_MS[Math.min(attempt, RELIST_BACKOFF_MS.length - 1)]!;
      this.log?.warn({ err, prefix: this.prefix, retryInMs: delay }, 'watch cache re-list failed');
      this.relistTimer = setTimeout(() => void this.relist(attempt + 1), delay);
      this.relistTimer.unref();
    }
  }

  /** The state re-read after an await (defeats narrowing from before it). */
  private stateNow(): 'new' | 'listing' | 'watching' | 'stopped' {
    return this.state;
  }

  private advance(rev: number): void {
    if (rev > this.rev) this.rev = rev;
    if (this.waiters.length === 0) return;
    const still: RevisionWaiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.revision <= this.rev) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else still.push(waiter);
    }
    this.waiters = still;
  }

  private decodeRecord(key: string, value: Uint8Array, modRevision: number): ObjectView | undefined {
    try {
      return new ObjectView(key, this.decodeValue(value, modRevision), modRevision);
    } catch (err) {
      this.log?.error({ err, key, revision: modRevision }, 'watch cache could not decode a stored object; skipped');
      return undefined;
    }
  }

  /** Convert an event of a direct store watch (not shared: only its one watcher sees it). */
  private convertDirect(ev: KVEvent): CacheEvent | undefined {
    const cached = this.decodeRecord(ev.key, ev.value, ev.modRevision);
    if (!cached) return undefined;
    const prev = ev.prevValue && this.decodeRecord(ev.key, ev.prevValue, ev.prevModRevision);
    const type = ev.type === 'delete' ? 'DELETED' : ev.createRevision === ev.modRevision ? 'ADDED' : 'MODIFIED';
    return changeEvent(type, cached, prev?.object);
  }

  /**
   * Live events, called from the store watch's callback (so never inside `watch()`): straight to the
   * callback when nothing is queued for the watcher, so a commit reaches every watcher in one pass
   * without a microtask per watcher; behind its queue otherwise, to keep the order.
   */
  private deliver(w: CacheWatcher, events: CacheEvent[]): void {
    if (w.closed) return;
    if (w.scheduled || w.pending.length > 0) {
      this.push(w, { events });
      return;
    }
    try {
      w.onEvents(events);
    } catch (err) {
      this.log?.error({ err }, 'watch cache callback threw');
    }
  }

  /** Queue a delivery for one watcher; a microtask runs its queue in order. */
  private push(w: CacheWatcher, d: Delivery): void {
    if (w.closed) return;
    w.pending.push(d);
    if (w.scheduled) return;
    w.scheduled = true;
    queueMicrotask(() => {
      w.scheduled = false;
      const pending = w.pending;
      w.pending = [];
      for (const item of pending) {
        if (w.closed) return;
        try {
          if ('events' in item) w.onEvents(item.events);
          else {
            w.closed = true;
            w.onError(item.error);
          }
        } catch (err) {
          this.log?.error({ err }, 'watch cache callback threw');
        }
      }
    });
  }
}
