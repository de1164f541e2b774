/**
 * A shared informer: one reflector (list + watch) for one (resource, selector), one indexed cache,
 * and any number of subscribers to `events$`.
 *
 * - The reflector starts on the first subscription to `events$` (or `start()`), and runs until
 *   `stop()`; subscribers coming and going do not restart it.
 * - A subscriber arriving after the first list first gets the cache's objects as ADDED and then
 *   `SYNCED`, then the live changes (JavaScript runs this without a gap); one arriving earlier
 *   sees the list's events and `SYNCED` as they happen.
 * - `cache` reads never call the API server; its objects are frozen.
 */
import { filter, firstValueFrom, Observable, Subject, type Subscription, take } from 'rxjs';
import type { SvcObject } from '../api/types.js';
import { IndexedStore } from './indexed-cache.js';
import type { InformerEvent, InformerSelector, SharedInformer } from './informer-types.js';
import { reflect, type ReflectorOptions } from './reflector.js';
import type { ApiClient, ResourceRef } from './types.js';

export class SharedIndexInformer<T extends SvcObject = SvcObject> implements SharedInformer<T> {
  readonly cache = new IndexedStore<T>();
  readonly events$: Observable<InformerEvent<T>>;
  private readonly live = new Subject<InformerEvent<T>>();
  private running: Subscription | undefined;
  private synced = false;
  private stopped = false;

  constructor(
    private readonly client: ApiClient,
    readonly ref: ResourceRef,
    readonly selector: InformerSelector = {},
    private readonly opts: ReflectorOptions = {},
  ) {
    this.events$ = new Observable<InformerEvent<T>>((sub) => {
      if (this.stopped) return sub.complete();
      if (this.synced) {
        for (const object of this.cache.list()) sub.next({ type: 'ADDED', object });
        sub.next({ type: 'SYNCED' });
      }
      const s = this.live.subscribe(sub);
      this.start();
      return s;
    });
  }

  /** Starts the list + watch without a subscriber (for readers of `cache` only). Idempotent. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = reflect(this.client, this.ref, this.selector, this.cache, this.opts).subscribe({
      next: (ev) => {
        if (ev.type === 'SYNCED') this.synced = true;
        this.live.next(ev);
      },
      error: (err: unknown) => this.live.error(err),
    });
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Ends the watch and completes every subscriber; the cache keeps its last contents. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.running?.unsubscribe();
    this.live.complete();
  }
}

/** Resolves once `informer` has synced (starting it if needed); rejects if it stops first. */
export async function waitForSync<T extends SvcObject>(informer: SharedInformer<T>): Promise<void> {
  if (informer.hasSynced()) return;
  await firstValueFrom(informer.events$.pipe(filter((e) => e.type === 'SYNCED'), take(1)));
}
