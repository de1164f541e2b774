/**
 * `followStore(store, handler)`: an in-server informer over one resource's store, for server parts
 * that keep an index of objects current (the Node authorizer's graph, the RBAC policy index). It lists the store (from
 * its watch cache when it has one: no storage read per object), hands every object to `reset`,
 * then hands each change to `upsert`/`remove` in revision order, from the watch cache's event
 * stream (or, for a resource without a cache, a store watch decoded by the store's own codec).
 *
 * Guarantees: `start()` resolves once the first list has been handed over (callers are in sync
 * before they serve); a watch that ends (compaction, cache relist, storage outage) lists again
 * after a short delay and calls `reset` with the whole new state, so the index never keeps a
 * change it missed; after `stop()` no handler runs.
 */
import type { Logger } from 'pino';
import type { SvcObject } from '../api/types.js';
import type { ResourceStore } from './resource-store.js';

export interface StoreHandler {
  /** The whole current state (first list and every relist): replace what was known. */
  reset(objects: SvcObject[]): void;
  /** An object added or changed (`previous` when the store knows it). */
  upsert(object: SvcObject, previous: SvcObject | undefined): void;
  /** An object deleted (its last state). */
  remove(object: SvcObject): void;
}

const RELIST_DELAY_MS = 1_000;

export class StoreFollower {
  private handle: { close(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly store: ResourceStore,
    private readonly handler: StoreHandler,
    private readonly logger: Logger,
  ) {}

  /** Lists and starts following; a failed first list is retried in the background (and rethrown). */
  async start(): Promise<void> {
    await this.listAndWatch(true);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.handle?.close();
    this.handle = undefined;
  }

  private async listAndWatch(first: boolean): Promise<void> {
    if (this.stopped) return;
    this.handle?.close();
    this.handle = undefined;
    const { store, handler } = this;
    try {
      const listed = await store.list({ namespace: '', filtered: false });
      if (this.stopped) return;
      handler.reset(listed.items.map((v) => v.object));
      const onError = (err: Error) => {
        this.logger.info({ err, resource: store.def.plural }, 'following the store ended; listing again');
        this.relistLater();
      };
      if (store.cache) {
        this.handle = store.cache.watch(
          listed.revision,
          (events) => {
            if (this.stopped) return;
            for (const e of events) {
              if (e.type === 'DELETED') handler.remove(e.object);
              else handler.upsert(e.object, e.prevObject);
            }
          },
          onError,
        );
      } else {
        this.handle = store.kv.watch(store.keys.resourcePrefix, listed.revision, {
          onEvents: (events) => {
            if (this.stopped) return;
            for (const e of events) {
              const object = store.decodeStored(e.value, e.modRevision);
              if (e.type === 'delete') handler.remove(object);
              else handler.upsert(object, e.prevValue ? store.decodeStored(e.prevValue, e.prevModRevision) : undefined);
            }
          },
          onError,
        });
      }
    } catch (err) {
      this.logger.warn({ err, resource: store.def.plural }, 'listing the store failed; retrying');
      this.relistLater();
      if (first) throw err;
    }
  }

  private relistLater(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.listAndWatch(false), RELIST_DELAY_MS);
    this.timer.unref();
  }
}
