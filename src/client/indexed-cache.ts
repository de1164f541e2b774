/**
 * The informer's local store: objects by key (`namespace/name`), with indexes kept up to date on
 * every change, read synchronously.
 *
 * Built-in indexes: `namespace` (the object's namespace) and `owner` (the uid of each of its
 * `ownerReferences`). `addIndex` adds more at any time (existing objects are indexed at once).
 * Objects are deep-frozen on the way in: readers share them and must clone before changing.
 * Only the informer that owns a store writes to it (`upsert`, `remove`, `replace`).
 */
import { deepFreeze } from '../api/json-walk.js';
import type { SvcObject } from '../api/types.js';
import { type IndexFunction, type IndexedCache, type InformerEvent, objectKey } from './informer-types.js';

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_INDEX = 'owner';

export const namespaceIndex: IndexFunction = (obj) => (obj.metadata.namespace ? [obj.metadata.namespace] : []);
export const ownerIndex: IndexFunction = (obj) => (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter((uid) => !!uid);

/** A change a `replace` found: what a subscriber would have seen had it watched all along. */
export type CacheDelta<T extends SvcObject> = Exclude<InformerEvent<T>, { type: 'SYNCED' }>;

export class IndexedStore<T extends SvcObject = SvcObject> implements IndexedCache<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunction<T>>();
  /** index name -> index value -> keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.addIndex(NAMESPACE_INDEX, namespaceIndex as IndexFunction<T>);
    this.addIndex(OWNER_INDEX, ownerIndex as IndexFunction<T>);
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  /** Every object, or those of one namespace (through the namespace index). */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.items.values()];
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index named ${JSON.stringify(name)}; known: ${[...this.indices.keys()].join(', ')}`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!);
  }

  /** Adds an index; a name already in use is an error (indexes are shared by every reader). */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexers.has(name)) throw new Error(`index ${JSON.stringify(name)} already exists`);
    this.indexers.set(name, fn);
    this.indices.set(name, new Map());
    for (const [key, obj] of this.items) this.indexOne(name, fn, key, obj);
  }

  /** Stores `obj` (frozen) under its key; returns the object it replaced. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    const frozen = deepFreeze(obj);
    this.items.set(key, frozen);
    for (const [name, fn] of this.indexers) this.indexOne(name, fn, key, frozen);
    return old;
  }

  /** Removes the object under `key`; returns it. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /**
   * Makes the store hold exactly `objs` and returns the differences: ADDED for new keys, MODIFIED
   * for a changed resourceVersion, DELETED (with the last known object) for keys gone. Objects
   * whose resourceVersion did not change keep their stored copy and yield nothing.
   */
  replace(objs: readonly T[]): CacheDelta<T>[] {
    const out: CacheDelta<T>[] = [];
    const seen = new Set<string>();
    for (const obj of objs) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.upsert(obj);
      out.push(old ? { type: 'MODIFIED', object: obj, oldObject: old } : { type: 'ADDED', object: obj });
    }
    for (const key of this.keys()) {
      if (seen.has(key)) continue;
      out.push({ type: 'DELETED', object: this.remove(key)! });
    }
    return out;
  }

  private indexOne(name: string, fn: IndexFunction<T>, key: string, obj: T): void {
    const index = this.indices.get(name)!;
    for (const value of fn(obj)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}
