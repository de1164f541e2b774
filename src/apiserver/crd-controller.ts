/**
 * The API server's own CustomResourceDefinition controller: it follows the CRD resource in storage
 * and, for each CRD, serves its resource (a ResourceStore and WatchCache per served version,
 * registered with the ResourceRegistry so discovery and routing see it) and writes the CRD's
 * `NamesAccepted` / `Established` conditions. A CRD being deleted has its custom objects removed
 * from storage, stops being served, and loses its cleanup finalizer (which lets it go).
 *
 * This is API server machinery (it uses the internal store directly), not a controller-manager
 * controller. CRDs are reconciled one at a time, in the order their changes arrive.
 */
import type { Logger } from 'pino';
import { memoryReleased } from './memory-reclaimer.js';
import { CRD_CLEANUP_FINALIZER, crdSpecOf, customResourceDefinitions, groupVersion, storageVersionOf } from '../api/index.js';
import type { NameConflict, ResourceRegistry } from '../api/registry.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';
import type { StorageProvider } from '../storage/open.js';
import { ConflictError, KeyNotFoundError, type KVRecord, type KVStore, type WatchHandle } from '../storage/types.js';
import { WatchCache } from '../storage/watch-cache.js';
import type { ApiServerConfig } from './config.js';
import { timestamp } from './object-rules.js';
import { ResourceStore } from './resource-store.js';
import { decodeFromStorage, encodeForStorage, StorageKeys } from './stored-object.js';
import type { WatchRegistry } from './watch-registry.js';

export interface CrdControllerOptions {
  /** The store of customresourcedefinitions. */
  crdStore: ResourceStore;
  registry: ResourceRegistry;
  storage: StorageProvider;
  config: ApiServerConfig;
  watches: WatchRegistry;
  /** Watch cache size for a custom resource (0: no cache). */
  cacheSize(def: ResourceDefinition): number;
  now(): number;
  logger: Logger;
}

interface ServedVersion {
  def: ResourceDefinition;
  store: ResourceStore;
  cache?: WatchCache;
}

interface ServedResource {
  uid: string;
  /** The CRD spec served, to skip rebuilding when only status or metadata changed. */
  fingerprint: string;
  group: string;
  plural: string;
  kv: KVStore;
  versions: Map<string, ServedVersion>;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

const RELIST_DELAY_MS = 1000;
const DELETE_WORKERS = 16;

export class CrdController {
  private readonly served = new Map<string, ServedResource>();
  private readonly stores = new Map<ResourceDefinition, ResourceStore>();
  private readonly queue = new Set<string>();
  /** CRDs being deleted: their resources refuse new objects. */
  private readonly terminating = new Set<string>();
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  private draining: Promise<void> | undefined;
  private watch: WatchHandle | undefined;
  private relistTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly opts: CrdControllerOptions) {
    this.log = opts.logger.child({ controller: 'crd' });
  }

  /** The store of a served custom resource version (undefined for other definitions). */
  storeFor(def: ResourceDefinition): ResourceStore | undefined {
    return this.stores.get(def);
  }

  /** Serves every CRD already stored (so a restarted server serves them before it is ready), then follows changes. */
  async start(): Promise<void> {
    await this.relist();
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    const { crdStore } = this.opts;
    try {
      const listed = await crdStore.kv.list(crdStore.keys.resourcePrefix);
      const names = new Set(listed.items.map((r) => r.key.slice(crdStore.keys.resourcePrefix.length)));
      for (const name of this.served.keys()) names.add(name);
      for (const name of names) this.queue.add(name);
      await this.drain();
      this.watch?.close();
      this.watch = crdStore.kv.watch(crdStore.keys.resourcePrefix, listed.revision, {
        onEvents: (events) => {
          for (const e of events) this.queue.add(e.key.slice(crdStore.keys.resourcePrefix.length));
          void this.drain();
        },
        onError: (err) => {
          this.log.warn({ err }, 'CRD watch failed; listing again');
          this.scheduleRelist();
        },
      });
    } catch (err) {
      this.log.warn({ err }, 'listing CRDs failed; retrying');
      this.scheduleRelist();
    }
  }

  private scheduleRelist(): void {
    if (this.stopped) return;
    clearTimeout(this.relistTimer);
    this.relistTimer = setTimeout(() => void this.relist(), RELIST_DELAY_MS);
  }

  /** Reconciles queued CRDs one at a time; resolves when the queue is empty. */
  private drain(): Promise<void> {
    this.draining ??= (async () => {
      await Promise.resolve(); // so `draining` is set before the loop can finish and clear it
      while (!this.stopped && this.queue.size > 0) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.reconcile(name);
        } catch (err) {
          this.log.error({ err, crd: name }, 'reconciling CRD failed; retrying');
          setTimeout(() => {
            this.queue.add(name);
            void this.drain();
          }, RELIST_DELAY_MS).unref();
        }
      }
      this.draining = undefined;
    })();
    return this.draining;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.relistTimer);
    for (const t of this.rechecks.values()) clearTimeout(t);
    this.watch?.close();
    for (const r of this.served.values()) for (const v of r.versions.values()) v.cache?.stop();
  }

  private async reconcile(name: string): Promise<void> {
    const current = await this.opts.crdStore.getForUpdate('', name);
    if (!current) return this.unserve(name);
    const crd = current.object;
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);
    const served = this.served.get(name);
    if (served && served.uid !== crd.metadata.uid) this.unserve(name);
    const defs = customResourceDefinitions(crd);
    const spec = crdSpecOf(crd);
    const names = spec.names;
    const conflict: NameConflict | undefined = this.opts.registry.nameConflict(name, {
      group: spec.group,
      plural: names.plural,
      kind: names.kind,
      listKind: names.listKind || `${names.kind}List`,
      shortNames: names.shortNames ?? [],
    });
    if (conflict) {
      await this.writeStatus(name, (status) => {
        setCondition(status, { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }, this.opts.now());
        if (!this.served.has(name)) setCondition(status, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, this.opts.now());
      });
      return;
    }
    await this.serve(name, crd, defs);
    const storage = storageVersionOf(crd);
    await this.writeStatus(name, (status) => {
      const now = this.opts.now();
      setCondition(status, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
      setCondition(status, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
      status['acceptedNames'] = {
        plural: names.plural,
        singular: names.singular || names.kind.toLowerCase(),
        kind: names.kind,
        listKind: names.listKind || `${names.kind}List`,
        ...(names.shortNames?.length ? { shortNames: [...names.shortNames] } : {}),
        ...(names.categories?.length ? { categories: [...names.categories] } : {}),
      };
      const stored = Array.isArray(status['storedVersions']) ? (status['storedVersions'] as string[]) : [];
      if (storage && !stored.includes(storage)) status['storedVersions'] = [...stored, storage];
    });
  }

  /** Registers the served versions, reusing the watch cache of versions that stay. */
  private async serve(name: string, crd: SvcObject, defs: ResourceDefinition[]): Promise<void> {
    const fingerprint = JSON.stringify(crd['spec']);
    const before = this.served.get(name);
    if (before?.fingerprint === fingerprint) return;
    const spec = crdSpecOf(crd);
    const { config, storage } = this.opts;
    const kv = before?.kv ?? storage.forResource(spec.group, spec.names.plural);
    const versions = new Map<string, ServedVersion>();
    for (const def of defs) {
      const old = before?.versions.get(def.version);
      let cache = old && old.def.namespaced === def.namespaced ? old.cache : undefined;
      const apiVersion = groupVersion(def);
      // Every version reads the same stored objects; conversion `None` only rewrites apiVersion.
      const decode = (value: Uint8Array, rev: number): SvcObject => {
        const o = decodeFromStorage(value, rev);
        o.apiVersion = apiVersion;
        return o;
      };
      const size = this.opts.cacheSize(def);
      if (!cache && size > 0) {
        const prefix = new StorageKeys(config.storage.prefix, def).resourcePrefix;
        cache = new WatchCache({ store: kv, prefix, capacity: size, decode, onHistoryReleased: memoryReleased, logger: this.log.child({ cache: `${def.plural}.${def.group}/${def.version}` }) });
        await cache.start();
      }
      const store = new ResourceStore({ def, kv, cache, decode, storagePrefix: config.storage.prefix, continueTokenTtlMs: config.continueTokenTtlMs, logger: this.log });
      versions.set(def.version, cache ? { def, store, cache } : { def, store });
    }
    for (const [version, old] of before?.versions ?? []) {
      this.stores.delete(old.def);
      if (versions.get(version)?.cache !== old.cache) {
        old.cache?.stop();
        this.opts.watches.endWhere((d) => d.group === spec.group && d.plural === spec.names.plural && d.version === version);
      }
    }
    for (const v of versions.values()) this.stores.set(v.def, v.store);
    this.served.set(name, { uid: crd.metadata.uid ?? '', fingerprint, group: spec.group, plural: spec.names.plural, kv, versions });
    this.opts.registry.setDynamic(name, defs);
    this.log.info({ crd: name, versions: defs.map((d) => d.version) }, 'serving custom resource');
  }

  private unserve(name: string): void {
    const r = this.served.get(name);
    if (!r) return;
    this.served.delete(name);
    this.terminating.delete(name);
    this.opts.registry.removeDynamic(name);
    for (const v of r.versions.values()) {
      this.stores.delete(v.def);
      v.cache?.stop();
    }
    this.opts.watches.endWhere((d) => d.group === r.group && d.plural === r.plural);
    this.log.info({ crd: name }, 'stopped serving custom resource');
  }

  /** Whether `def` is a version of a CRD being deleted: new objects of it are refused meanwhile. */
  isTerminating(def: ResourceDefinition): boolean {
    for (const [name, r] of this.served) if (this.terminating.has(name) && [...r.versions.values()].some((v) => v.def === def)) return true;
    return false;
  }

  /**
   * A CRD being deleted, as the established `customresourcecleanup` finalizer does it: new objects
   * are refused, every object is deleted the ordinary way (one with finalizers only gets its
   * deletionTimestamp and stays until they are cleared), and the CRD waits with a `Terminating`
   * condition, checking again every second, until none is left. Then it stops being served and
   * drops its finalizer, which lets it go.
   */
  private async finalize(crd: SvcObject): Promise<void> {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      this.unserve(name);
      return;
    }
    this.terminating.add(name);
    // Once (a later pass keeps the InstanceDeletionCheck it may have written).
    await this.writeStatus(name, (status) => {
      const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as Condition[]) : [];
      if (conditions.some((c) => c.type === 'Terminating' && c.status === 'True')) return;
      setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, this.opts.now());
    });
    const spec = crdSpecOf(crd);
    const kv = this.served.get(name)?.kv ?? this.opts.storage.forResource(spec.group, spec.names.plural);
    const prefix = new StorageKeys(this.opts.config.storage.prefix, { group: spec.group, plural: spec.names.plural, namespaced: false }).resourcePrefix;
    // Delete while still served, so watchers see DELETED and finalizer owners can still clear theirs.
    const outcome = await this.deleteInstances(kv, prefix);
    if (outcome.remaining > 0) {
      await this.writeStatus(name, (status) =>
        setCondition(
          status,
          {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionCheck',
            message: `could not confirm zero CustomResources remaining: ${outcome.remaining} left, waiting for their finalizers to be removed`,
          },
          this.opts.now(),
        ),
      );
      this.requeueLater(name);
      return;
    }
    const caches = [...(this.served.get(name)?.versions.values() ?? [])].flatMap((v) => (v.cache ? [v.cache] : []));
    await Promise.all(caches.map((c) => c.waitForRevision(outcome.revision, 2000)));
    await new Promise((r) => setImmediate(r));
    this.unserve(name);
    // A create that passed its check just before the CRD turned terminating: nothing serves it any more.
    const stragglers = await this.deleteAll(kv, prefix);
    this.log.info({ crd: name, objects: outcome.deleted + stragglers.count }, 'deleted custom objects');
    await this.updateCrd(name, (o) => {
      setCondition((o['status'] ??= {}) as Record<string, unknown>, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, this.opts.now());
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return true;
    });
  }

  /** Checks a CRD again in a second (one timer per CRD, however many passes asked for it). */
  private requeueLater(name: string): void {
    if (this.rechecks.has(name)) return;
    const timer = setTimeout(() => {
      this.rechecks.delete(name);
      this.queue.add(name);
      void this.drain();
    }, RELIST_DELAY_MS);
    timer.unref();
    this.rechecks.set(name, timer);
  }

  /**
   * One pass of deletes over the objects under `prefix`: an object without finalizers is removed, one
   * with finalizers gets its deletionTimestamp (as a DELETE would set it) and stays. Gives how many
   * were removed, how many are left, and the revision of the last write.
   */
  private async deleteInstances(kv: KVStore, prefix: string): Promise<{ deleted: number; remaining: number; revision: number }> {
    let deleted = 0;
    let remaining = 0;
    let revision = 0;
    let from: string | undefined;
    for (;;) {
      const page = await kv.list(prefix, { limit: 500, ...(from !== undefined ? { startKey: from } : {}) });
      const queue = [...page.items];
      await Promise.all(
        Array.from({ length: Math.min(DELETE_WORKERS, queue.length) }, async () => {
          for (let rec = queue.shift(); rec; rec = queue.shift()) {
            const out = await this.deleteInstance(kv, rec);
            if (out.outcome === 'removed') deleted++;
            else remaining++;
            revision = Math.max(revision, out.revision);
          }
        }),
      );
      if (page.remaining === 0 || page.items.length === 0) return { deleted, remaining, revision };
      from = `${page.items[page.items.length - 1]!.key}\u0000`;
    }
  }

  private async deleteInstance(kv: KVStore, first: KVRecord): Promise<{ outcome: 'removed' | 'finalizing'; revision: number }> {
    let rec: KVRecord | undefined = first;
    for (let attempt = 0; rec && attempt < 20; attempt++) {
      const obj = decodeFromStorage(rec.value, rec.modRevision);
      try {
        if ((obj.metadata.finalizers ?? []).length === 0) {
          const out = await kv.delete(rec.key, rec.modRevision);
          return { outcome: 'removed', revision: out.revision };
        }
        if (obj.metadata.deletionTimestamp) return { outcome: 'finalizing', revision: rec.modRevision };
        obj.metadata.deletionTimestamp = timestamp(this.opts.now());
        obj.metadata.deletionGracePeriodSeconds = 0;
        delete obj.metadata.resourceVersion;
        const out = await kv.update(rec.key, encodeForStorage(obj), rec.modRevision);
        return { outcome: 'finalizing', revision: out.modRevision };
      } catch (err) {
        if (err instanceof KeyNotFoundError) return { outcome: 'removed', revision: 0 };
        if (!(err instanceof ConflictError)) throw err;
        rec = await kv.get(rec.key);
      }
    }
    return rec ? { outcome: 'finalizing', revision: 0 } : { outcome: 'removed', revision: 0 };
  }

  /** Deletes every key under `prefix`; gives the count and the revision of the last delete. */
  private async deleteAll(kv: KVStore, prefix: string): Promise<{ count: number; revision: number }> {
    let count = 0;
    let revision = 0;
    for (;;) {
      const { items } = await kv.list(prefix, { limit: 500 });
      if (items.length === 0) return { count, revision };
      const queue = [...items];
      await Promise.all(
        Array.from({ length: Math.min(DELETE_WORKERS, queue.length) }, async () => {
          for (let rec = queue.shift(); rec; rec = queue.shift()) {
            try {
              const out = await kv.delete(rec.key);
              revision = Math.max(revision, out.revision);
              count++;
            } catch (err) {
              if (!(err instanceof KeyNotFoundError)) throw err;
            }
          }
        }),
      );
    }
  }

  private writeStatus(name: string, change: (status: Record<string, unknown>) => void): Promise<void> {
    return this.updateCrd(name, (o) => {
      const status = structuredClone((o['status'] as Record<string, unknown> | undefined) ?? {});
      change(status);
      if (JSON.stringify(status) === JSON.stringify(o['status'] ?? {})) return false;
      o['status'] = status;
      return true;
    });
  }

  /**
   * Read-modify-write of a CRD with a precondition on its version, retried on a concurrent change.
   * `change` returns false when nothing needs writing. A deleting CRD with no finalizer left goes.
   */
  private async updateCrd(name: string, change: (o: SvcObject) => boolean): Promise<void> {
    const { crdStore } = this.opts;
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = await crdStore.getForUpdate('', name);
      if (!current) return;
      const next = crdStore.draft(current);
      if (!change(next)) return;
      try {
        if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) await crdStore.kv.delete(current.key, current.revision);
        else await crdStore.replace(next, crdStore.encode(next, current).value, current.revision, false);
        return;
      } catch (err) {
        if (err instanceof ConflictError || err instanceof KeyNotFoundError) continue;
        throw err;
      }
    }
    throw new Error(`CRD ${name}: too many concurrent changes`);
  }
}

/** Sets a condition, keeping its lastTransitionTime when the status did not change. */
function setCondition(status: Record<string, unknown>, c: Condition, now: number): void {
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as Condition[]) : [];
  const old = list.find((x) => x.type === c.type);
  const next: Condition = { ...c, lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : timestamp(now) };
  status['conditions'] = old ? list.map((x) => (x === old ? next : x)) : [...list, next];
}
