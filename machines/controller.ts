/**
 * The controller machine: one controller's life, from waiting for leadership to a drained stop.
 *
 *   waitingForLeader --LEADER_ELECTED (or no leader election)--> syncingCaches
 *   syncingCaches --CACHES_SYNCED--> running          syncingCaches --cacheSyncTimeout--> cacheSyncFailed
 *   running --resyncPeriod (delayed, repeats)--> running (re-delivers every cached key; no API call)
 *   syncingCaches | running --STOP | LEADER_LOST | SOURCE_FAILED--> stopping --queue drained--> stopped
 *
 * Guarantees:
 * - Informer events reach the work queue from the moment caches start syncing (child actor `feed`);
 *   once every cache has synced, every cached object's key is queued once (late subscribers to a
 *   shared informer see existing objects too).
 * - `concurrency` workers (machines/worker.ts) run as spawned child actors while running; with the
 *   queue's exclusivity, one key is never reconciled by two workers at once.
 * - Resync fires after a random delay in [minResyncPeriod, 2 × minResyncPeriod) (default 12 h;
 *   0 turns it off) and queues the keys of every cached object without calling the API server.
 * - Back-off is the queue's delayed re-enqueue, timed by the same clock as the actor.
 * - `stopping` stops the feed, shuts the queue down (no new keys are handed out) and waits until
 *   every in-flight reconcile has finished.
 */
import type { Logger } from 'pino';
import { enqueueActions, fromCallback, fromPromise, setup, spawnChild, stopChild, type ActorRefFrom } from 'xstate';
import type { SvcObject } from '../src/api/types.js';
import type { IndexedCache, InformerEvent } from '../src/client/informer-types.js';
import type { Observable } from 'rxjs';
import { ControllerActivity, type SourceRole } from '../src/runtime/controller-activity.js';
import type { WorkQueue } from '../src/runtime/work-queue.js';
import { workerMachine, type ReconcileFunction } from './worker.js';

/** Default wait for caches to sync before the controller gives up (controller-runtime: 2 min). */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;
/** Default `--min-resync-period`: 12 h. */
export const DEFAULT_MIN_RESYNC_PERIOD_MS = 12 * 60 * 60 * 1000;
/** Node timers cannot wait longer than 2^31-1 ms; longer delays would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where a controller's keys come from: an informer's events and cache, mapped to keys. */
export interface ControllerSource {
  readonly events$: Observable<InformerEvent>;
  readonly cache: IndexedCache;
  hasSynced(): boolean;
  /** The keys to reconcile when `obj` changes (its own key, or its controlling owner's). */
  keysFor(obj: SvcObject): string[];
  /** Names the source in the live view (`configmaps`, `apps/replicasets`); default `source <i>`. */
  readonly resource?: string;
  /** Default `source`. */
  readonly role?: SourceRole;
}

export interface ControllerMachineInput {
  name: string;
  queue: WorkQueue;
  sources: ControllerSource[];
  concurrency: number;
  reconcile: ReconcileFunction;
  logger: Logger;
  /** When true the controller waits for LEADER_ELECTED before it syncs caches. */
  needsLeader: boolean;
  /** Default DEFAULT_CACHE_SYNC_TIMEOUT_MS. */
  cacheSyncTimeoutMs?: number;
  /** Default DEFAULT_MIN_RESYNC_PERIOD_MS; 0 turns resync off. */
  minResyncPeriodMs?: number;
  /** Source of randomness for the resync jitter, in [0, 1); default Math.random. */
  random?: () => number;
  /** Where the live view's facts are kept (give it the actor's clock); default one on the system clock. */
  activity?: ControllerActivity;
}

export type ControllerEvent =
  | { type: 'LEADER_ELECTED' }
  | { type: 'LEADER_LOST' }
  | { type: 'STOP' }
  | { type: 'CACHES_SYNCED' }
  | { type: 'SOURCE_FAILED'; error: unknown };

/** The input with every default filled in, plus what the machine counts. */
interface ControllerContext extends Required<ControllerMachineInput> {
  /** Resyncs done so far. */
  resyncs: number;
}

/** Queues the keys of every object in every source's cache. */
function enqueueCached(sources: ControllerSource[], queue: WorkQueue): number {
  let n = 0;
  for (const s of sources) {
    for (const obj of s.cache.list()) {
      for (const key of s.keysFor(obj)) {
        queue.add(key);
        n++;
      }
    }
  }
  return n;
}

/** Subscribes to every source, queues the keys of changed objects, reports when all caches synced. */
const feed = fromCallback<ControllerEvent, { sources: ControllerSource[]; queue: WorkQueue; activity: ControllerActivity }>(({ input, sendBack }) => {
  let synced = false;
  const checkSynced = () => {
    if (!synced && input.sources.every((s) => s.hasSynced())) {
      synced = true;
      sendBack({ type: 'CACHES_SYNCED' });
    }
  };
  const subs = input.sources.map((s, i) =>
    s.events$.subscribe({
      next: (ev) => {
        if (ev.type === 'SYNCED') return checkSynced();
        input.activity.sourceEvent(i);
        for (const key of s.keysFor(ev.object)) input.queue.add(key);
        // A change of owner queues the old owner too, so it sees its child leave.
        if (ev.type === 'MODIFIED') for (const key of s.keysFor(ev.oldObject)) input.queue.add(key);
      },
      // An informer only fails for good (its own retries are over): stop rather than run blind.
      error: (error: unknown) => sendBack({ type: 'SOURCE_FAILED', error }),
    }),
  );
  checkSynced();
  return () => subs.forEach((s) => s.unsubscribe());
});

/** The input's activity (or a new one) with every source registered, in source order. */
function activityFor(input: ControllerMachineInput): ControllerActivity {
  const activity = input.activity ?? new ControllerActivity({ name: input.name, queue: input.queue });
  input.sources.forEach((s, i) => activity.addSource(s.resource ?? `source ${i}`, s.role ?? 'source', () => s.hasSynced()));
  return activity;
}

export const controllerMachine = setup({
  types: {
    input: {} as ControllerMachineInput,
    context: {} as ControllerContext,
    events: {} as ControllerEvent,
  },
  actors: {
    feed,
    worker: workerMachine,
    drain: fromPromise<void, { queue: WorkQueue }>(({ input }) => input.queue.drained()),
  },
  delays: {
    cacheSyncTimeout: ({ context }) => Math.min(context.cacheSyncTimeoutMs, MAX_TIMER_MS),
    resyncPeriod: ({ context }) => Math.min(context.minResyncPeriodMs * (1 + context.random()), MAX_TIMER_MS),
  },
  guards: {
    leaderNotNeeded: ({ context }) => !context.needsLeader,
    resyncEnabled: ({ context }) => context.minResyncPeriodMs > 0,
  },
  actions: {
    logSyncing: ({ context }) => context.logger.info('syncing caches'),
    enqueueCached: ({ context }) => {
      const n = enqueueCached(context.sources, context.queue);
      context.logger.info({ keys: n }, 'caches synced; running');
    },
    resync: enqueueActions(({ context, enqueue }) => {
      enqueue(() => enqueueCached(context.sources, context.queue));
      enqueue.assign({ resyncs: context.resyncs + 1 });
    }),
    shutDownQueue: ({ context }) => context.queue.shutDown(),
    logSourceFailed: ({ context, event }) =>
      context.logger.error({ err: event.type === 'SOURCE_FAILED' ? event.error : undefined }, 'an informer failed; stopping the controller'),
    stopFeed: stopChild('feed'),
    spawnWorkers: enqueueActions(({ context, enqueue }) => {
      for (let i = 0; i < context.concurrency; i++) {
        enqueue.spawnChild('worker', {
          id: `worker-${i}`,
          input: { queue: context.queue, reconcile: context.reconcile, logger: context.logger.child({ worker: i }), recorder: context.activity.recorder() },
        });
      }
    }),
  },
}).createMachine({
  id: 'controller',
  context: ({ input }) => ({
    name: input.name,
    queue: input.queue,
    sources: input.sources,
    concurrency: Math.max(1, Math.floor(input.concurrency)),
    reconcile: input.reconcile,
    logger: input.logger,
    needsLeader: input.needsLeader,
    cacheSyncTimeoutMs: input.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS,
    minResyncPeriodMs: input.minResyncPeriodMs ?? DEFAULT_MIN_RESYNC_PERIOD_MS,
    random: input.random ?? Math.random,
    activity: activityFor(input),
    resyncs: 0,
  }),
  initial: 'waitingForLeader',
  states: {
    waitingForLeader: {
      always: { guard: 'leaderNotNeeded', target: 'syncingCaches' },
      on: { LEADER_ELECTED: 'syncingCaches', STOP: { target: 'stopped', actions: 'shutDownQueue' } },
    },
    syncingCaches: {
      // The feed lives on through running; stopping and cacheSyncFailed stop it.
      entry: ['logSyncing', spawnChild('feed', { id: 'feed', input: ({ context }) => ({ sources: context.sources, queue: context.queue, activity: context.activity }) })],
      on: {
        CACHES_SYNCED: { target: 'running', actions: 'enqueueCached' },
        STOP: 'stopping',
        LEADER_LOST: 'stopping',
        SOURCE_FAILED: { target: 'stopping', actions: 'logSourceFailed' },
      },
      after: { cacheSyncTimeout: 'cacheSyncFailed' },
    },
    running: {
      entry: 'spawnWorkers',
      on: { STOP: 'stopping', LEADER_LOST: 'stopping', SOURCE_FAILED: { target: 'stopping', actions: 'logSourceFailed' } },
      initial: 'waitingForResync',
      states: {
        waitingForResync: {
          after: { resyncPeriod: { guard: 'resyncEnabled', target: 'waitingForResync', reenter: true, actions: 'resync' } },
        },
      },
    },
    cacheSyncFailed: {
      entry: ['stopFeed', 'shutDownQueue', ({ context }) => context.logger.error({ timeoutMs: context.cacheSyncTimeoutMs }, 'timed out waiting for caches to sync')],
      type: 'final',
    },
    stopping: {
      entry: ['stopFeed', 'shutDownQueue', ({ context }) => context.logger.info({ inFlight: context.queue.inFlight }, 'stopping; draining in-flight reconciles')],
      invoke: { src: 'drain', input: ({ context }) => ({ queue: context.queue }), onDone: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});

export type ControllerActor = ActorRefFrom<typeof controllerMachine>;
