/**
 * The reflector: keeps an `IndexedStore` in step with the server by list + watch, and emits what
 * changed as `InformerEvent`s. `watch$` is a reflector with a store of its own per subscription.
 *
 * The cycle, as the established informers run it:
 * 1. List in chunks (`pageSize`, default 500). The chunks are one snapshot; the store is replaced
 *    only once the last chunk arrived, and the differences are emitted (ADDED / MODIFIED / DELETED).
 *    The first complete list is followed by `SYNCED`.
 * 2. Watch from the list's resourceVersion with bookmarks. Every event and bookmark advances the
 *    resume version.
 * 3. When the server ends the watch (its timeout), watch again from the resume version at once.
 *    When the connection breaks or the watch fails, back off, then watch again from the resume
 *    version. When the server answers 410 Gone (the resume version was compacted), list again and
 *    emit only the differences to the store: subscribers see neither a gap nor a stale object.
 *
 * Back-off between failed attempts: `initialMs` (800 ms) doubling to `maxMs` (30 s), reset by a
 * successful list or a watch that delivered something. A watch that ends cleanly within a second
 * without any event counts as failed (a server ending watches at once must not be hammered).
 * Timers run on the injectable clock. Unsubscribing stops everything (open watch, pending back-off).
 */
import { defer, Observable, type Subscription } from 'rxjs';
import type { SvcObject } from '../api/types.js';
import { isGone } from './api-errors.js';
import { type Clock, sleep, systemClock } from './clock.js';
import { deepFreeze } from '../api/json-walk.js';
import { IndexedStore } from './indexed-cache.js';
import { type InformerEvent, type InformerSelector, objectKey } from './informer-types.js';
import type { ApiClient, ClientWatchEvent, ResourceRef } from './types.js';

/** What the reflector reports about its cycle (a pino logger fits). */
export interface ReflectorLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ReflectorOptions {
  /** Items per list chunk. Default 500. */
  pageSize?: number;
  /** Back-off between failed list/watch attempts. Default 800 ms doubling to 30 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** `timeoutSeconds` of each watch. Default none: the server's `--min-request-timeout` decides. */
  watchTimeoutSeconds?: number;
  /** Time for back-off and the short-watch rule. Default the system clock. */
  clock?: Clock;
  logger?: ReflectorLogger;
}

export const DEFAULT_PAGE_SIZE = 500;
export const DEFAULT_BACKOFF = { initialMs: 800, maxMs: 30_000 } as const;
/** A watch ending cleanly sooner than this without events counts as a failure. */
const SHORT_WATCH_MS = 1000;

/** How one watch ended. */
type WatchOutcome =
  | { outcome: 'endedByServer'; delivered: boolean }
  | { outcome: 'endedTooSoon' }
  | { outcome: 'gone' }
  | { outcome: 'failed'; error: unknown }
  | { outcome: 'stopped' };

const NOOP_LOGGER: ReflectorLogger = { debug() {}, warn() {} };

/**
 * A cold Observable of one resource's changes (for `selector`), from its own list + watch. Each
 * subscription runs its own reflector with its own store. Never errors; completes never.
 */
export function watch$<T extends SvcObject = SvcObject>(
  client: ApiClient,
  ref: ResourceRef,
  selector: InformerSelector = {},
  opts: ReflectorOptions = {},
): Observable<InformerEvent<T>> {
  return defer(() => reflect(client, ref, selector, new IndexedStore<T>(), opts));
}

/**
 * Runs the list + watch cycle into `store` while subscribed, emitting each change after the store
 * holds it. `store` must have no other writer.
 */
export function reflect<T extends SvcObject>(
  client: ApiClient,
  ref: ResourceRef,
  selector: InformerSelector,
  store: IndexedStore<T>,
  opts: ReflectorOptions = {},
): Observable<InformerEvent<T>> {
  const clock = opts.clock ?? systemClock;
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  const initialMs = opts.backoff?.initialMs ?? DEFAULT_BACKOFF.initialMs;
  const maxMs = opts.backoff?.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const log = opts.logger ?? NOOP_LOGGER;
  const what = { resource: ref.group ? `${ref.resource}.${ref.group}` : ref.resource, ...selector };
  const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;

  return new Observable<InformerEvent<T>>((sub) => {
    const stop = new AbortController();
    let watchSub: Subscription | undefined;
    let endWatch: ((o: WatchOutcome) => void) | undefined;
    let synced = false;
    /** Where the next watch starts; undefined: list first. */
    let resumeFrom: string | undefined;
    let failures = 0;

    const backoff = async (error: unknown, phase: string) => {
      failures++;
      const ms = Math.min(initialMs * 2 ** (failures - 1), maxMs);
      log.warn({ ...what, phase, err: (error as Error)?.message ?? String(error), retryInMs: ms }, 'informer list/watch failed; backing off');
      await sleep(clock, ms, stop.signal);
    };

    /** Lists every chunk of one snapshot; list items get the kind and apiVersion watch events carry. */
    const listAll = async (): Promise<{ items: T[]; resourceVersion: string }> => {
      const items: T[] = [];
      let cont: string | undefined;
      let resourceVersion = '';
      do {
        const page = await client.list<T>(ref, { ...selector, limit: pageSize, ...(cont ? { continue: cont } : {}) });
        if (!cont) resourceVersion = page.metadata.resourceVersion ?? '';
        for (const item of page.items) items.push({ ...item, apiVersion: item.apiVersion ?? apiVersion, kind: item.kind ?? ref.kind });
        cont = page.metadata.continue || undefined;
      } while (cont && !stop.signal.aborted);
      return { items, resourceVersion };
    };

    const apply = (ev: ClientWatchEvent<T>) => {
      const rv = ev.object.metadata?.resourceVersion;
      if (rv) resumeFrom = rv;
      if (ev.type === 'BOOKMARK') return;
      if (ev.type === 'DELETED') {
        if (store.remove(objectKey(ev.object))) sub.next({ type: 'DELETED', object: deepFreeze(ev.object) });
        return;
      }
      const old = store.upsert(ev.object);
      sub.next(old ? { type: 'MODIFIED', object: ev.object, oldObject: old } : { type: 'ADDED', object: ev.object });
    };

    const watchOnce = (from: string) =>
      new Promise<WatchOutcome>((resolve) => {
        const started = clock.now();
        let delivered = false;
        endWatch = resolve;
        watchSub = client
          .watch<T>(ref, {
            ...selector,
            resourceVersion: from,
            allowWatchBookmarks: true,
            ...(opts.watchTimeoutSeconds !== undefined ? { timeoutSeconds: opts.watchTimeoutSeconds } : {}),
          })
          .subscribe({
            next: (ev) => {
              delivered = true;
              apply(ev);
            },
            error: (error: unknown) => resolve(isGone(error) ? { outcome: 'gone' } : { outcome: 'failed', error }),
            complete: () =>
              resolve(!delivered && clock.now() - started < SHORT_WATCH_MS ? { outcome: 'endedTooSoon' } : { outcome: 'endedByServer', delivered }),
          });
      });

    const run = async () => {
      while (!stop.signal.aborted) {
        if (resumeFrom === undefined) {
          let listed: { items: T[]; resourceVersion: string };
          try {
            listed = await listAll();
          } catch (error) {
            await backoff(error, 'list');
            continue;
          }
          if (stop.signal.aborted) return;
          failures = 0;
          const deltas = store.replace(listed.items);
          log.debug({ ...what, resourceVersion: listed.resourceVersion, items: listed.items.length, changes: deltas.length }, 'informer listed');
          for (const d of deltas) {
            if (stop.signal.aborted) return;
            sub.next(d);
          }
          resumeFrom = listed.resourceVersion;
          if (!synced) {
            synced = true;
            sub.next({ type: 'SYNCED' });
          }
        }
        const from = resumeFrom;
        const end = await watchOnce(from);
        watchSub = undefined;
        endWatch = undefined;
        switch (end.outcome) {
          case 'stopped':
            return;
          case 'endedByServer':
            if (end.delivered) failures = 0;
            log.debug({ ...what, resumeFrom }, 'informer watch ended; resuming');
            break;
          case 'gone':
            log.debug({ ...what, resumeFrom: from }, 'informer watch too old (410); re-listing');
            resumeFrom = undefined;
            break;
          case 'endedTooSoon':
            await backoff(new Error('the watch ended at once without events'), 'watch');
            break;
          case 'failed':
            await backoff(end.error, 'watch');
            break;
        }
      }
    };

    run().catch((err: unknown) => {
      // Only an aborted back-off lands here while stopping; anything else is a bug worth surfacing.
      if (!stop.signal.aborted) sub.error(err);
    });
    return () => {
      stop.abort();
      watchSub?.unsubscribe();
      endWatch?.({ outcome: 'stopped' });
    };
  });
}
