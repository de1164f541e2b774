/** Shared helpers for the embedded-store and watch-cache tests: a real store in a temp dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcObject } from '../../src/api/types.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../src/storage/embedded.js';
import type { KVEvent, KVStore } from '../../src/storage/types.js';
import { WatchCache, type CacheEvent, type WatchCacheOptions } from '../../src/storage/watch-cache.js';

export interface TempStore {
  store: EmbeddedStore;
  dir: string;
  /** Close the store and delete its directory. */
  cleanup(): Promise<void>;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-storage-test-'));
}

export function openTempStore(opts: { progressIntervalMs?: number } = {}): TempStore {
  const dir = tempDir();
  const store = openEmbeddedStore({ dir, ...opts });
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A small ConfigMap-like object as stored bytes. */
export function configMap(name: string, namespace = 'default', data: Record<string, string> = {}): Uint8Array {
  return enc(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }));
}

/** The decode a resource would use: parse and stamp metadata.resourceVersion. */
export function decodeObject(value: Uint8Array, modRevision: number): SvcObject {
  const obj = JSON.parse(dec(value)) as SvcObject;
  obj.metadata = { ...obj.metadata, resourceVersion: String(modRevision) };
  return obj;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond()` holds, polling; throws after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Record every event a store watch delivers. */
export function collectStoreWatch(store: KVStore, prefix: string, after: number) {
  const events: KVEvent[] = [];
  const errors: Error[] = [];
  const progress: number[] = [];
  let batches = 0;
  const handle = store.watch(prefix, after, {
    onEvents: (evs) => {
      batches++;
      events.push(...evs);
    },
    onProgress: (rev) => progress.push(rev),
    onError: (err) => errors.push(err),
  });
  return { events, errors, progress, handle, batches: () => batches };
}

/** Record everything a watch-cache watcher receives. */
export function collectCacheWatch(cache: WatchCache, after: number, scope?: string) {
  const events: CacheEvent[] = [];
  const batches: CacheEvent[][] = [];
  const errors: Error[] = [];
  const handle = cache.watch(
    after,
    (evs) => {
      batches.push(evs);
      events.push(...evs);
    },
    (err) => errors.push(err),
    scope,
  );
  return { events, batches, errors, handle };
}

/** A started watch cache over `prefix` of a real store. */
export async function startCache(store: KVStore, prefix: string, opts: Partial<WatchCacheOptions> = {}): Promise<WatchCache> {
  const cache = new WatchCache({ store, prefix, capacity: 100, decode: decodeObject, ...opts });
  await cache.start();
  return cache;
}
