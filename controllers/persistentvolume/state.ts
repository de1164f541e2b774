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
import type { BinderOptions } from './index.js';

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

  /** Every volume, each the newer of cached and written. */
  volumes(cache: IndexedCache<PersistentVolume>): PersistentVolume[] {
    const out = cache.list().map((v) => this.volume(cache, v.metadata.name ?? '') ?? v);
    // A volume created here and not cached yet counts; one deleted by someone else meanwhile is
    // forgotten once the cache has had time to show it (10 s).
    for (const [name, v] of this.writtenVolumes) {
      if (cache.get(name)) continue;
      if (this.now() - (this.writtenAt.get(name) ?? 0) > FORGET_AFTER_MS) this.writtenVolumes.delete(name);
      else out.push(v);
    }
    return out;
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
