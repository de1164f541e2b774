/**
 * The storage side of one resource: reads honouring the resource-version rules, and the write
 * primitives (create, guaranteed update, delete) the verb handlers build on.
 *
 * Reads go to the watch cache when it is on (after waiting until it has caught up with the
 * version the rules require), and to the key-value store for exact-revision reads (chunks of a
 * consistent list). Every object handed out is frozen: callers clone before changing anything.
 */
import type { Logger } from 'pino';
import {
  alreadyExists,
  badRequest,
  conflict,
  gone,
  internalError,
  notFound,
  type ObjectRef,
  requestEntityTooLarge,
  serviceUnavailable,
  StatusError,
  timeout,
  timeoutTooLargeResourceVersion,
} from '../api/status.js';
import { cloneJson } from '../api/json-walk.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';
import { storageDefinition } from '../api/versions.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  type KVRecord,
  type KVStore,
  StorageUnavailableError,
  ValueTooLargeError,
} from '../storage/types.js';
import type { WatchCache } from '../storage/watch-cache.js';
import { ObjectView } from '../storage/object-view.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { decodeFromStorage, encodeForStorage, StorageKeys } from './stored-object.js';

export { ObjectView };

export interface ListRequest {
  namespace: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continueToken?: string;
  filter?: (obj: SvcObject) => boolean;
  /** True when a selector narrows the list (then remainingItemCount is not known). */
  filtered: boolean;
}

export interface ListResult {
  /** Shared with the watch cache when read from it: never modified. */
  items: readonly ObjectView[];
  revision: number;
  continueToken: string;
  remainingItemCount?: number;
  /**
   * Set when `items` are every object under `scope` (no filter, no limit reached, no continue), read
   * from the watch cache: `stamp` changes whenever anything under the scope does (./list-bodies.ts).
   */
  whole?: { scope: string; stamp: number };
}

export interface ResourceStoreOptions {
  def: ResourceDefinition;
  kv: KVStore;
  cache?: WatchCache;
  storagePrefix: string;
  continueTokenTtlMs: number;
  /** How long a read waits for a too-new resourceVersion before 504 (default 3s). */
  freshnessWaitMs?: number;
  now?: () => number;
  logger: Logger;
  /**
   * Decodes a stored value (default decodeFromStorage); custom resources set their served
   * apiVersion, built-in kinds served in several versions convert (src/api/versions.ts).
   */
  decode?: (value: Uint8Array, modRevision: number) => SvcObject;
  /** Encodes an object of this store's version for the store (default encodeForStorage); the converse of `decode`. */
  encode?: (obj: SvcObject) => Uint8Array;
}

/** Parses a resourceVersion query value: '' (unset), 0, or a positive revision. */
export function parseResourceVersion(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw)) {
    throw badRequest(`invalid resource version "${raw}": expected a resourceVersion returned by this server`);
  }
  return Number(raw);
}

/** Index of the first item whose key is >= key (items sorted by key). */
function firstAtOrAfter(items: readonly { key: string }[], key: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A storage outage as the API answers it: 504 when a deadline passed, else 503; both say when to retry. */
export function unavailableStatus(err: StorageUnavailableError): StatusError {
  return err.timedOut
    ? timeout(`Timeout: the storage did not answer in time: ${err.message}`, 1)
    : serviceUnavailable(`the storage is unavailable; retry shortly: ${err.message}`, 1);
}

/**
 * Any error from the storage (or an already-made Status) as the API answers it: the one mapping
 * every request path uses, so an outage is 503/504 and a value etcd refuses as too large is 413
 * everywhere, watches included. `ref` names the object for 404/409; faults are logged.
 */
export function storageErrorStatus(err: unknown, logger: Logger, ref?: ObjectRef): StatusError {
  if (err instanceof StatusError) return err;
  if (err instanceof CompactedError) return gone(`too old resource version: ${err.requested} (${err.compacted})`);
  if (err instanceof FutureRevisionError) {
    return timeoutTooLargeResourceVersion(`Timeout: Too large resource version: ${err.requested}, current: ${err.current}`, 1);
  }
  if (err instanceof StorageUnavailableError) {
    logger.warn({ err }, 'storage unavailable');
    return unavailableStatus(err);
  }
  if (err instanceof ValueTooLargeError) return requestEntityTooLarge(err.message);
  if (ref) {
    if (err instanceof KeyExistsError) return alreadyExists(ref);
    if (err instanceof KeyNotFoundError) return notFound(ref);
    if (err instanceof ConflictError) {
      return conflict(ref, 'the object has been modified; please apply your changes to the latest version and try again');
    }
  }
  logger.error({ err }, 'storage error');
  return internalError(`storage error: ${err instanceof Error ? err.message : String(err)}`);
}

export class ResourceStore {
  readonly def: ResourceDefinition;
  readonly kv: KVStore;
  readonly cache: WatchCache | undefined;
  readonly keys: StorageKeys;
  private readonly ttlMs: number;
  private readonly waitMs: number;
  private readonly now: () => number;
  readonly logger: Logger;
  private readonly decode: (value: Uint8Array, modRevision: number) => SvcObject;
  private readonly encodeValue: (obj: SvcObject) => Uint8Array;

  constructor(opts: ResourceStoreOptions) {
    this.def = opts.def;
    this.kv = opts.kv;
    this.cache = opts.cache;
    this.keys = new StorageKeys(opts.storagePrefix, storageDefinition(opts.def));
    this.ttlMs = opts.continueTokenTtlMs;
    this.waitMs = opts.freshnessWaitMs ?? 3000;
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger;
    this.decode = opts.decode ?? decodeFromStorage;
    this.encodeValue = opts.encode ?? encodeForStorage;
  }

  private ref(name?: string) {
    return { group: this.def.group, resource: this.def.plural, name };
  }

  /**
   * A stored value as this store serves it: every read path (get, list, watch with or without the
   * cache) decodes through here, so a custom resource carries the requested version's apiVersion.
   */
  decodeStored(value: Uint8Array, modRevision: number): SvcObject {
    return this.decode(value, modRevision);
  }

  view(rec: KVRecord): ObjectView {
    return new ObjectView(rec.key, this.decode(rec.value, rec.modRevision), rec.modRevision, rec.value);
  }

  /** A private, changeable copy of a view's object (parsed again from its stored bytes when known: faster than a deep clone). */
  draft(view: ObjectView): SvcObject {
    return view.stored ? this.decode(view.stored, view.revision) : cloneJson(view.object);
  }

  /**
   * The storage encoding of an object about to be written, and whether it is what `current` already
   * holds (then the write is a no-op and keeps its resourceVersion). Compared as bytes when this
   * store decodes without rewriting (a custom resource's apiVersion is rewritten per served version).
   */
  encode(next: SvcObject, current: ObjectView): { value: Uint8Array; unchanged: boolean } {
    const value = this.encodeValue(next);
    const before = (this.decode === decodeFromStorage ? current.stored : undefined) ?? this.encodeValue(current.object);
    return { value, unchanged: Buffer.compare(value, before) === 0 };
  }

  /**
   * The cache, when it has caught up with `rev` ('latest': the store's current revision). A cache
   * still behind yields undefined and the caller reads the store, which is always current (the
   * cache of one resource only learns of other resources' revisions through progress
   * notifications). A version newer than the store's waits, then 504.
   */
  private async cacheAtLeast(rev: number | 'latest'): Promise<WatchCache | undefined> {
    const cache = this.cache!;
    if (rev !== 'latest' && cache.revision >= rev) return cache;
    const current = await this.kv.currentRevision();
    const target = rev === 'latest' ? current : rev;
    if (cache.revision >= target) return cache;
    if (target > current) await this.storeAtLeast(target);
    // Behind: the store answers now (etcd 3.4 sends progress notifications only every few minutes).
    return cache.revision >= target ? cache : undefined;
  }

  private async storeAtLeast(rev: number): Promise<void> {
    const deadline = this.now() + this.waitMs;
    for (;;) {
      const current = await this.kv.currentRevision();
      if (current >= rev) return;
      if (this.now() >= deadline) {
        throw timeoutTooLargeResourceVersion(`Timeout: Too large resource version: ${rev}, current: ${current}`, 1);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  mapStorageError(err: unknown, name?: string): StatusError {
    return storageErrorStatus(err, this.logger, this.ref(name));
  }

  /** GET of one object under the get table: unset = Most Recent, 0 = Any, N = Not older than N. */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<ObjectView> {
    const rv = parseResourceVersion(resourceVersion);
    const key = this.keys.key(namespace, name);
    try {
      const cache = this.cache && (rv === undefined ? await this.cacheAtLeast('latest') : rv === 0 ? this.cache : await this.cacheAtLeast(rv));
      if (cache) {
        const hit = cache.get(key);
        if (!hit) throw notFound(this.ref(name));
        return hit;
      }
      if (rv !== undefined && rv > 0) await this.storeAtLeast(rv);
      const rec = await this.kv.get(key);
      if (!rec) throw notFound(this.ref(name));
      return this.view(rec);
    } catch (err) {
      throw this.mapStorageError(err, name);
    }
  }

  /**
   * The object as the cache has it (possibly a moment old), else as stored. For checks that may
   * lag a little, like admission's namespace lookup, as the established server's informers do.
   */
  async peek(namespace: string, name: string): Promise<SvcObject | undefined> {
    const hit = this.cache?.get(this.keys.key(namespace, name));
    if (hit) return hit.object;
    return (await this.getForUpdate(namespace, name))?.object;
  }

  /** The current stored record, bypassing the cache (for writes that need the exact modRevision). */
  async getForUpdate(namespace: string, name: string): Promise<ObjectView | undefined> {
    try {
      const rec = await this.kv.get(this.keys.key(namespace, name));
      return rec ? this.view(rec) : undefined;
    } catch (err) {
      throw this.mapStorageError(err, name);
    }
  }

  /** LIST under the list table (resourceVersion x limit x continue). */
  async list(req: ListRequest): Promise<ListResult> {
    const rv = parseResourceVersion(req.resourceVersion);
    const match = req.resourceVersionMatch ?? '';
    if (match && match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
    }
    if (match && rv === undefined) throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (match && req.continueToken) throw badRequest('resourceVersionMatch is forbidden when continue is provided');
    if (match === 'Exact' && rv === 0) throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
    const limit = req.limit && req.limit > 0 ? req.limit : 0;
    const scope = this.keys.scope(req.namespace);
    try {
      if (req.continueToken) {
        if (rv !== undefined && rv !== 0) {
          throw badRequest('specifying resource version is not allowed when using continue');
        }
        const token = decodeContinue(req.continueToken, this.now(), this.ttlMs);
        const startKey = this.keys.resourcePrefix + token.start;
        if (!startKey.startsWith(scope)) throw badRequest('continue key is not valid for this namespace');
        // Nothing changed since the first chunk: the cache holds exactly that snapshot.
        if (this.cache && this.cache.revision === token.revision) {
          return this.listFromCache(this.cache, scope, limit, req, startKey, token.issuedAt);
        }
        return await this.listFromStore(scope, token.revision, startKey, limit, req, token.issuedAt);
      }
      const exact = limit > 0 ? rv !== undefined && rv !== 0 : match === 'Exact';
      if (exact) {
        await this.storeAtLeast(rv!);
        return await this.listFromStore(scope, rv!, scope, limit, req, this.now());
      }
      const cache = this.cache && (rv === undefined ? await this.cacheAtLeast('latest') : rv === 0 ? this.cache : await this.cacheAtLeast(rv));
      if (cache) return this.listFromCache(cache, scope, limit, req);
      if (rv !== undefined && rv > 0) await this.storeAtLeast(rv);
      return await this.listFromStore(scope, 0, scope, limit, req, this.now());
    } catch (err) {
      throw this.mapStorageError(err);
    }
  }

  private listFromCache(
    cache: WatchCache,
    scope: string,
    limit: number,
    req: ListRequest,
    startKey?: string,
    issuedAt = this.now(),
  ): ListResult {
    const { items: all, revision } = cache.list(scope);
    if (!req.filter && !startKey && (!limit || all.length <= limit)) {
      // The whole scope as the cache keeps it: no copy (its body may be reused too, ./list-bodies.ts).
      return { items: all, revision, continueToken: '', whole: { scope, stamp: cache.changedUnder(scope) } };
    }
    const items: ObjectView[] = [];
    let i = startKey ? firstAtOrAfter(all, startKey) : 0;
    for (; i < all.length; i++) {
      const item = all[i]!;
      if (req.filter && !req.filter(item.object)) continue;
      items.push(item);
      if (limit && items.length === limit) {
        i++;
        break;
      }
    }
    let more = false;
    if (limit && items.length === limit) {
      if (req.filter) {
        for (let j = i; j < all.length; j++) if (req.filter(all[j]!.object)) { more = true; break; }
      } else more = i < all.length;
    }
    const result: ListResult = { items, revision, continueToken: '' };
    if (more) {
      const last = items[items.length - 1]!;
      result.continueToken = this.tokenAfter(last.key, revision, issuedAt);
      if (!req.filtered) result.remainingItemCount = all.length - i;
    }
    return result;
  }

  private tokenAfter(key: string, revision: number, issuedAt: number): string {
    return encodeContinue({ revision, start: key.slice(this.keys.resourcePrefix.length) + '\0', issuedAt });
  }

  private async listFromStore(
    scope: string,
    revision: number,
    startKey: string,
    limit: number,
    req: ListRequest,
    issuedAt: number,
  ): Promise<ListResult> {
    const items: ObjectView[] = [];
    let key = startKey;
    let atRevision = revision;
    const batch = limit ? (req.filter ? Math.max(limit * 2, 500) : limit) : 0;
    for (;;) {
      const res = await this.kv.list(scope, { revision: atRevision || undefined, startKey: key, limit: batch });
      atRevision = res.revision;
      for (let i = 0; i < res.items.length; i++) {
        const rec = res.items[i]!;
        const v = this.view(rec);
        if (req.filter && !req.filter(v.object)) continue;
        items.push(v);
        if (limit && items.length === limit) {
          const left = res.items.length - i - 1 + res.remaining;
          const out: ListResult = { items, revision: atRevision, continueToken: '' };
          if (left > 0) {
            // With a selector there may be no further match; an empty last chunk is allowed then.
            out.continueToken = this.tokenAfter(rec.key, atRevision, issuedAt);
            if (!req.filtered) out.remainingItemCount = left;
          }
          return out;
        }
      }
      if (!batch || res.remaining === 0 || res.items.length === 0) {
        return { items, revision: atRevision, continueToken: '' };
      }
      key = res.items[res.items.length - 1]!.key + '\0';
    }
  }

  // ---- writes ----

  async create(obj: SvcObject, dryRun: boolean): Promise<ObjectView> {
    const key = this.keys.key(obj.metadata.namespace ?? '', obj.metadata.name!);
    if (dryRun) {
      const existing = await this.getForUpdate(obj.metadata.namespace ?? '', obj.metadata.name!);
      if (existing) throw alreadyExists(this.ref(obj.metadata.name));
      return this.preview(key, obj, 0);
    }
    try {
      const value = this.encodeValue(obj);
      const rec = await this.kv.create(key, value);
      return this.written(key, obj, rec.modRevision, value);
    } catch (err) {
      throw this.mapStorageError(err, obj.metadata.name);
    }
  }

  /**
   * Writes `next` (`value`: its encoding from `encode`) over the record at `expected` revision;
   * ConflictError surfaces for the caller's retry loop.
   */
  async replace(next: SvcObject, value: Uint8Array, expected: number, dryRun: boolean): Promise<ObjectView> {
    const key = this.keys.key(next.metadata.namespace ?? '', next.metadata.name!);
    if (dryRun) return this.preview(key, next, expected);
    const rec = await this.kv.update(key, value, expected);
    return this.written(key, next, rec.modRevision, value);
  }

  async remove(current: ObjectView, dryRun: boolean): Promise<ObjectView> {
    if (dryRun) return current;
    await this.kv.delete(current.key, current.revision);
    return current;
  }

  private written(key: string, obj: SvcObject, revision: number, value: Uint8Array): ObjectView {
    obj.metadata.resourceVersion = String(revision);
    return new ObjectView(key, obj, revision, value);
  }

  private preview(key: string, obj: SvcObject, revision: number): ObjectView {
    if (revision) obj.metadata.resourceVersion = String(revision);
    else delete obj.metadata.resourceVersion;
    return new ObjectView(key, obj, revision);
  }
}
