/**
 * Expectations: what a controller has created or deleted and not yet seen in its cache. While any
 * is outstanding for a key, the controller must not act on that key's counts again (its cache is
 * behind its own writes; acting would create or delete twice). Unlike counters lowered by watch
 * events, each write is remembered by the pod's uid and checked against the cache itself when the
 * key is reconciled: a creation is seen once the uid is cached, a deletion once the uid is gone
 * or being deleted. An expectation older than the TTL (5 min, as established) counts as seen, so a
 * lost event cannot stall a key for ever.
 */
import type { Clock } from '../../src/runtime/clock.js';

export const EXPECTATIONS_TTL_MS = 5 * 60_000;

interface Pending {
  creates: Set<string>;
  deletes: Set<string>;
  since: number;
}

/** What the cache says about one uid now. */
export interface CacheView {
  /** The object with this uid is cached, and whether it is being deleted. */
  state(uid: string): 'absent' | 'present' | 'deleting';
}

export class Expectations {
  private readonly byKey = new Map<string, Pending>();

  constructor(private readonly clock: Pick<Clock, 'now'>, private readonly ttlMs = EXPECTATIONS_TTL_MS) {}

  private entry(key: string): Pending {
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = { creates: new Set(), deletes: new Set(), since: this.clock.now() }));
    return e;
  }

  /** A create succeeded: its object (uid) must be seen before the key's counts are trusted. */
  created(key: string, uid: string): void {
    if (uid) this.entry(key).creates.add(uid);
  }

  /** A delete succeeded (or the object was already gone). */
  deleted(key: string, uid: string): void {
    if (uid) this.entry(key).deletes.add(uid);
  }

  /** True when every write for `key` shows in `cache` (seen ones are forgotten) or the TTL passed. */
  satisfied(key: string, cache: CacheView): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if (this.clock.now() - e.since >= this.ttlMs) {
      this.byKey.delete(key);
      return true;
    }
    for (const uid of e.creates) if (cache.state(uid) !== 'absent') e.creates.delete(uid);
    for (const uid of e.deletes) if (cache.state(uid) !== 'present') e.deletes.delete(uid);
    if (e.creates.size === 0 && e.deletes.size === 0) {
      this.byKey.delete(key);
      return true;
    }
    return false;
  }

  /** Writes still unseen for `key` (for logs and the live view). */
  outstanding(key: string): { creates: number; deletes: number } {
    const e = this.byKey.get(key);
    return { creates: e?.creates.size ?? 0, deletes: e?.deletes.size ?? 0 };
  }

  /** The key's object is gone: nothing more is expected for it. */
  forget(key: string): void {
    this.byKey.delete(key);
  }
}
