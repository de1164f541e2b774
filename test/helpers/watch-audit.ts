/**
 * Checks that watchers saw every change exactly once, in order: the writer records each change it
 * made (`ChangeLog`), each watcher's client is wrapped in a `WatchRecorder` that records, in
 * order, every list (its resourceVersion), watch event and bookmark the watcher's reflector
 * received, and `auditWatchers` compares the two.
 *
 * The rules (a watcher's history is cut into segments, one per list):
 * - A segment starts at a list at resourceVersion L and ends with the last resourceVersion R the
 *   watcher saw before its next list (an event or a bookmark: the version it would resume from).
 *   It must hold every change of its selection with L < rv <= R exactly once, in resourceVersion
 *   order, with the right type (ADDED for a create, MODIFIED for an update, DELETED for a delete);
 *   a change missing is a gap, an event with no change or a change seen twice is a duplicate.
 *   What happened between R and the next list is replaced by that list (a re-list after 410).
 * - A delete's answer carries no resourceVersion, so the writer knows only that it lies between
 *   the key's change before and the key's change after. Its version is taken from the watchers'
 *   DELETED events, all of which must agree and fall in that interval; a delete no watcher saw
 *   is a gap for any segment that covers its whole interval.
 * Records are kept in typed arrays (100 watchers x 100,000 changes is 10 million events).
 */
import { Observable } from 'rxjs';
import { isGone } from '../../src/client/api-errors.js';
import type { ApiClient, ClientWatchEvent, ResourceRef, SvcObject, WatchOptions } from '../../src/client/index.js';

const LIST = 0;
const ADDED = 1;
const MODIFIED = 2;
const DELETED = 3;
const BOOKMARK = 4;
const TYPE_CODE: Record<string, number> = { ADDED, MODIFIED, DELETED, BOOKMARK };
const TYPE_NAME = ['LIST', 'ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'];

/** `namespace/name` <-> small integer, shared by the log and the recorders. */
export class KeyTable {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  readonly namespaces: string[] = [];
  id(namespace: string, name: string): number {
    const key = `${namespace}/${name}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(key, id);
      this.names.push(key);
      this.namespaces.push(namespace);
    }
    return id;
  }
}

/** A growable column of numbers. */
class Column<A extends Float64Array | Int32Array | Uint8Array> {
  length = 0;
  constructor(private data: A, private readonly make: (n: number) => A) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  at(i: number): number {
    return this.data[i]!;
  }
}

const f64 = () => new Column(new Float64Array(1024), (n) => new Float64Array(n));
const i32 = () => new Column(new Int32Array(1024), (n) => new Int32Array(n));
const u8 = () => new Column(new Uint8Array(1024), (n) => new Uint8Array(n));

interface Change {
  type: number;
  /** NaN for a delete until a watcher places it. */
  rv: number;
  /** Deletes: the key's change before (its rv) and after (Infinity when none). */
  lo: number;
  hi: number;
}

/** What the writer did, per key, in the order it did it (one writer per key at a time). */
export class ChangeLog {
  readonly perKey = new Map<number, Change[]>();
  count = 0;
  constructor(readonly keys: KeyTable) {}
  private add(namespace: string, name: string, c: Change): void {
    const id = this.keys.id(namespace, name);
    const list = this.perKey.get(id) ?? [];
    const prev = list[list.length - 1];
    if (prev && prev.type === DELETED && prev.hi === Infinity) prev.hi = c.rv;
    list.push(c);
    this.perKey.set(id, list);
    this.count++;
  }
  created(namespace: string, name: string, rv: string): void {
    this.add(namespace, name, { type: ADDED, rv: Number(rv), lo: 0, hi: 0 });
  }
  updated(namespace: string, name: string, rv: string): void {
    this.add(namespace, name, { type: MODIFIED, rv: Number(rv), lo: 0, hi: 0 });
  }
  deleted(namespace: string, name: string): void {
    const list = this.perKey.get(this.keys.id(namespace, name));
    const lo = list?.[list.length - 1]?.rv ?? 0;
    this.add(namespace, name, { type: DELETED, rv: NaN, lo, hi: Infinity });
  }
}

/** Counters of one recorder (what its reflector went through). */
export interface RecorderStats {
  lists: number;
  watches: number;
  gone: number;
  watchFailures: number;
  events: number;
}

/** Records what a reflector on `client` received; `client` is what the reflector should use. */
export class WatchRecorder {
  readonly client: ApiClient;
  readonly stats: RecorderStats = { lists: 0, watches: 0, gone: 0, watchFailures: 0, events: 0 };
  /** The highest resourceVersion received (list, event or bookmark). */
  maxSeen = 0;
  private readonly kinds = u8();
  private readonly keyIds = i32();
  private readonly rvs = f64();

  constructor(inner: ApiClient, readonly keys: KeyTable, readonly namespace: string | undefined) {
    let listedAt = NaN;
    const rec = (type: number, key: number, rv: number) => {
      this.kinds.push(type);
      this.keyIds.push(key);
      this.rvs.push(rv);
      if (rv > this.maxSeen) this.maxSeen = rv;
    };
    this.client = {
      ...inner,
      list: async (ref, o) => {
        const page = await inner.list(ref, o);
        // Every chunk is the first chunk's snapshot; the list counts once its last chunk is in
        // (the reflector replaces its store then; a list that broke in between never counted).
        if (!o?.continue) listedAt = Number(page.metadata.resourceVersion);
        if (!page.metadata.continue) {
          this.stats.lists++;
          rec(LIST, -1, listedAt);
        }
        return page;
      },
      watch: <T extends SvcObject>(ref: ResourceRef<T>, o?: WatchOptions) =>
        new Observable<ClientWatchEvent<T>>((sub) => {
          this.stats.watches++;
          const s = inner.watch<T>(ref, o).subscribe({
            next: (ev) => {
              const m = ev.object.metadata;
              const rv = Number(m.resourceVersion);
              this.stats.events++;
              rec(TYPE_CODE[ev.type]!, ev.type === 'BOOKMARK' ? -1 : keys.id(m.namespace ?? '', m.name ?? ''), rv);
              sub.next(ev);
            },
            error: (err: unknown) => {
              if (isGone(err)) this.stats.gone++;
              else this.stats.watchFailures++;
              sub.error(err);
            },
            complete: () => sub.complete(),
          });
          return () => s.unsubscribe();
        }),
    };
  }

  get length(): number {
    return this.kinds.length;
  }
  type(i: number): number {
    return this.kinds.at(i);
  }
  key(i: number): number {
    return this.keyIds.at(i);
  }
  rv(i: number): number {
    return this.rvs.at(i);
  }
}

export interface AuditResult {
  gaps: number;
  duplicates: number;
  /** DELETED events whose version disagrees between watchers or lies outside the delete's interval. */
  misplacedDeletes: number;
  /** Deletes no watcher saw (not an error by itself). */
  unplacedDeletes: number;
  /** The first few problems, for the assertion message. */
  problems: string[];
}

/** Compares every recorder's history with the log (see the file comment). */
export function auditWatchers(log: ChangeLog, recorders: readonly WatchRecorder[]): AuditResult {
  const out: AuditResult = { gaps: 0, duplicates: 0, misplacedDeletes: 0, unplacedDeletes: 0, problems: [] };
  const problem = (msg: string) => {
    if (out.problems.length < 20) out.problems.push(msg);
  };
  const names = log.keys.names;
  // 1. Place the deletes by the watchers' DELETED events.
  for (const [wi, r] of recorders.entries()) {
    for (let i = 0; i < r.length; i++) {
      if (r.type(i) !== DELETED) continue;
      const d = r.rv(i);
      const changes = log.perKey.get(r.key(i)) ?? [];
      const del = changes.find((c) => c.type === DELETED && c.lo < d && d < c.hi);
      if (!del) continue; // an event the log does not have: a duplicate, counted below
      if (Number.isNaN(del.rv)) del.rv = d;
      else if (del.rv !== d) {
        out.misplacedDeletes++;
        problem(`watcher ${wi}: DELETED ${names[r.key(i)]} at ${d}, another watcher saw it at ${del.rv}`);
      }
    }
  }
  // 2. Every placed change in resourceVersion order.
  const all: { rv: number; key: number; type: number }[] = [];
  const unplaced: { key: number; lo: number; hi: number }[] = [];
  for (const [key, changes] of log.perKey) {
    for (const c of changes) {
      if (Number.isNaN(c.rv)) unplaced.push({ key, lo: c.lo, hi: c.hi });
      else all.push({ rv: c.rv, key, type: c.type });
    }
  }
  out.unplacedDeletes = unplaced.length;
  all.sort((a, b) => a.rv - b.rv);
  const firstAfter = (rv: number) => {
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (all[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // 3. Walk each watcher's segments against the log.
  for (const [wi, r] of recorders.entries()) {
    const mine = (key: number) => r.namespace === undefined || log.keys.namespaces[key] === r.namespace;
    let p = -1;
    let listedAt = NaN;
    let seen = NaN;
    const closeSegment = () => {
      if (Number.isNaN(listedAt)) return;
      for (const u of unplaced) {
        if (mine(u.key) && u.lo > listedAt && u.hi <= seen) {
          out.gaps++;
          problem(`watcher ${wi}: never saw the delete of ${names[u.key]} between ${u.lo} and ${u.hi} (segment ${listedAt}..${seen})`);
        }
      }
    };
    /** Counts the changes of this watcher's selection up to `rv` it skipped. */
    const skipTo = (rv: number, inclusive: boolean) => {
      while (p < all.length && (inclusive ? all[p]!.rv <= rv : all[p]!.rv < rv)) {
        const c = all[p]!;
        if (mine(c.key)) {
          out.gaps++;
          problem(`watcher ${wi}: missed ${TYPE_NAME[c.type]} ${names[c.key]} at ${c.rv} (segment from ${listedAt})`);
        }
        p++;
      }
    };
    for (let i = 0; i < r.length; i++) {
      const type = r.type(i);
      const rv = r.rv(i);
      if (type === LIST) {
        closeSegment();
        listedAt = rv;
        seen = rv;
        p = firstAfter(rv);
        continue;
      }
      if (p < 0) {
        out.duplicates++;
        problem(`watcher ${wi}: ${TYPE_NAME[type]} at ${rv} before any list`);
        continue;
      }
      if (type === BOOKMARK) {
        skipTo(rv, true);
        if (rv > seen) seen = rv;
        continue;
      }
      skipTo(rv, false);
      const c = all[p];
      if (c && c.rv === rv && c.key === r.key(i) && c.type === type) {
        p++;
      } else {
        out.duplicates++;
        problem(`watcher ${wi}: ${TYPE_NAME[type]} ${names[r.key(i)]} at ${rv} is not the next change (${c ? `${TYPE_NAME[c.type]} ${names[c.key]} at ${c.rv}` : 'none left'})`);
      }
      if (rv > seen) seen = rv;
    }
    closeSegment();
  }
  return out;
}

/** The label every ConfigMap the churn writer makes carries (watchers select on it). */
export const CHURN_LABEL = 'reliability.svc.io/churn';

export interface ChurnOptions {
  log: ChangeLog;
  /** One writer per entry, working at once; each owns its own names. */
  lanes: readonly ApiClient[];
  namespaces: readonly string[];
  namesPerLane: number;
  /** Changes to make in all (shared by the lanes). */
  changes: number;
  /** Distinguishes the names of one call from another's (a lane's names start absent). */
  prefix: string;
  /** Checked before each change: true stops that lane. */
  stopLane?: (lane: number) => boolean;
  /** Called every 500 changes. */
  onProgress?: (done: number) => void;
}

/**
 * Creates, updates (70%) and deletes (30%) ConfigMaps at random, each lane one change at a time
 * on names of its own, and records every change in the log. A failed write fails the run (its
 * outcome, stored or not, would be unknown).
 */
export async function churnConfigMaps(o: ChurnOptions): Promise<number> {
  let done = 0;
  const cm = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
  const lane = async (l: number, client: ApiClient) => {
    const exists = new Map<string, number>();
    while (done < o.changes && !o.stopLane?.(l)) {
      done++;
      if (done % 500 === 0) o.onProgress?.(done);
      const j = Math.floor(Math.random() * o.namesPerLane);
      const ns = o.namespaces[j % o.namespaces.length]!;
      const name = `cm-${o.prefix}${l}-${j}`;
      const gen = (exists.get(name) ?? 0) + 1;
      const body: SvcObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { [CHURN_LABEL]: 'yes' } }, data: { gen: String(gen) } };
      if (!exists.has(name)) {
        const out = await client.create(cm, ns, body);
        o.log.created(ns, name, out.metadata.resourceVersion!);
        exists.set(name, gen);
      } else if (Math.random() < 0.7) {
        const out = await client.update(cm, ns, body);
        o.log.updated(ns, name, out.metadata.resourceVersion!);
        exists.set(name, gen);
      } else {
        await client.delete(cm, ns, name);
        o.log.deleted(ns, name);
        exists.delete(name);
      }
    }
  };
  await Promise.all(o.lanes.map((c, l) => lane(l, c)));
  return done;
}
