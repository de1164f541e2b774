/**
 * What the binder's syncs share: the caches, the client, and the objects the binder itself wrote
 * that its caches may not show yet (the established controller keeps its own cache updated with
 * its writes for the same reason: the next claim must not be matched with a volume just bound).
 * An object written is preferred over the cached one until the cache holds that resourceVersion or
 * a later one; the API server's resourceVersions are decimal numbers.
 */
import type { Logger } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import type { ApiClient } from '../../src/client/types.js';
import type { EventRecorder } from '../../src/runtime/event-recorder.js';
import { claimClass, volumeClass } from '../../src/api/volume-matching.js';
import { keyFor } from '../../src/client/object-keys.js';
import type { BinderOptions } from './index.js';

/** Volumes by the claim their claimRef names (`namespace/name`). */
const CLAIM_REF_INDEX = 'binder.claimRef';
/** Volumes without a claimRef, by class: the only ones a claim can take besides those pre-bound to it. */
const UNBOUND_CLASS_INDEX = 'binder.unboundClass';

const rv = (o: SvcObject | undefined): bigint => {
  try {
    return BigInt(o?.metadata.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
};

const FORGET_AFTER_MS = 10_000;

export class BinderState {
  /** The claims cache, once the first reconcile has it (the StorageClass trigger reads it). */
  claims: IndexedCache<PersistentVolumeClaim> | undefined;
  /** The host's clock (set by each reconcile). */
  now: () => number = () => 0;
  private readonly writtenVolumes = new Map<string, PersistentVolume>();
  private readonly writtenClaims = new Map<string, PersistentVolumeClaim>();
  private readonly writtenAt = new Map<string, number>();

  /** Volumes a claim's sync has chosen and is binding now (volume -> claim key): no other claim may take them meanwhile. */
  private readonly reserved = new Map<string, string>();

  /** Volumes reserved by claims other than `claimKey`. */
  reservedByOthers(claimKey: string): Set<string> {
    const out = new Set<string>();
    for (const [v, c] of this.reserved) if (c !== claimKey) out.add(v);
    return out;
  }

  /** Reserve synchronously (between choosing and the first write); returns the release. */
  reserve(volume: string, claimKey: string): () => void {
    this.reserved.set(volume, claimKey);
    return () => {
      if (this.reserved.get(volume) === claimKey) this.reserved.delete(volume);
    };
  }

  /** Remember a write; `undefined` forgets (the object is gone). */
  wroteVolume(name: string, v: PersistentVolume | undefined): void {
    if (v) {
      this.writtenVolumes.set(name, v);
      this.writtenAt.set(name, this.now());
    } else this.writtenVolumes.delete(name);
  }

  wroteClaim(key: string, c: PersistentVolumeClaim | undefined): void {
    if (c) this.writtenClaims.set(key, c);
    else this.writtenClaims.delete(key);
  }

  /** The newer of the cached and the written volume. */
  volume(cache: IndexedCache<PersistentVolume>, name: string): PersistentVolume | undefined {
    return this.newer(this.writtenVolumes, name, cache.get(name));
  }

  claim(cache: IndexedCache<PersistentVolumeClaim>, key: string): PersistentVolumeClaim | undefined {
    return this.newer(this.writtenClaims, key, cache.get(key));
  }

  /**
   * The volumes a claim could be bound to, each the newer of cached and written: those whose
   * claimRef names it and the unbound ones of its class (two index lookups, not every volume),
   * plus every volume this binder wrote that the cache does not show yet (a volume just bound or
   * unbound here may sit in the other index until then; findBestMatch decides on the newer one).
   */
  candidates(cache: IndexedCache<PersistentVolume>, claim: PersistentVolumeClaim): PersistentVolume[] {
    this.indexVolumes(cache);
    const byName = new Map<string, PersistentVolume>();
    const add = (v: PersistentVolume | undefined) => {
      if (v) byName.set(v.metadata.name ?? '', v);
    };
    for (const v of cache.byIndex(CLAIM_REF_INDEX, keyFor(claim.metadata.namespace, claim.metadata.name ?? ''))) add(this.newer(this.writtenVolumes, v.metadata.name ?? '', v));
    for (const v of cache.byIndex(UNBOUND_CLASS_INDEX, claimClass(claim))) add(this.newer(this.writtenVolumes, v.metadata.name ?? '', v));
    for (const name of [...this.writtenVolumes.keys()]) if (!byName.has(name)) add(this.written(cache, name));
    return [...byName.values()];
  }

  private indexed = new WeakSet<IndexedCache<PersistentVolume>>();
  /** The volume cache's indexes, added once per cache (a new start brings new caches). */
  private indexVolumes(cache: IndexedCache<PersistentVolume>): void {
    if (this.indexed.has(cache)) return;
    cache.addIndex(CLAIM_REF_INDEX, (v) => (v.spec?.claimRef?.name ? [keyFor(v.spec.claimRef.namespace, v.spec.claimRef.name)] : []));
    cache.addIndex(UNBOUND_CLASS_INDEX, (v) => (v.spec?.claimRef ? [] : [volumeClass(v)]));
    this.indexed.add(cache);
  }

  /** A written volume, unless the cache caught up (then the cached one) or it is long gone from the cache. */
  private written(cache: IndexedCache<PersistentVolume>, name: string): PersistentVolume | undefined {
    const cached = cache.get(name);
    if (cached) return this.newer(this.writtenVolumes, name, cached);
    if (this.now() - (this.writtenAt.get(name) ?? 0) > FORGET_AFTER_MS) {
      this.writtenVolumes.delete(name);
      return undefined;
    }
    return this.writtenVolumes.get(name);
  }

  private newer<T extends SvcObject>(written: Map<string, T>, key: string, cached: T | undefined): T | undefined {
    const w = written.get(key);
    if (!w) return cached;
    if (cached && rv(cached) >= rv(w)) {
      written.delete(key);
      return cached;
    }
    return w;
  }
}

/** Everything one sync needs. */
export interface SyncParts {
  client: ApiClient;
  recorder: EventRecorder;
  logger: Logger;
  volumes: IndexedCache<PersistentVolume>;
  claims: IndexedCache<PersistentVolumeClaim>;
  classes: IndexedCache<StorageClass>;
  pods: IndexedCache<Pod>;
  state: BinderState;
  options: BinderOptions;
}
