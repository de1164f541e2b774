/**
 * The scheduler machine: one scheduler's life, from waiting for leadership to a drained stop.
 *
 *   waitingForLeader --LEADER_ELECTED (or no leader election)--> syncingCaches
 *   syncingCaches --CACHES_SYNCED--> scheduling            syncingCaches --cacheSyncTimeout--> cacheSyncFailed
 *   scheduling (parallel):
 *     loop:       idle --pods active (QUEUE_ACTIVE or on entry)--> cycle --done--> idle
 *                 (cycle invokes one scheduling cycle; a chosen node spawns a `binding` actor)
 *     backoff:    waiting --podBackoffFlushInterval (1 s)--> waiting (moves expired back-offs to active)
 *     leftovers:  waiting --unschedulableFlushInterval (30 s)--> waiting (moves pods parked > 60 s)
 *   syncingCaches | scheduling --STOP | LEADER_LOST | SOURCE_FAILED--> stopping --bindings done--> stopped
 *
 * Guarantees:
 * - One scheduling cycle at a time (the cache's assumptions are made in order); bindings run
 *   concurrently as spawned `binding` actors, each ends by itself (success or forget + back-off).
 * - No actor per node or per queued pod: the per-pod cost is one cycle actor and one binding actor.
 * - The flush timers are delayed transitions on the actor's clock, so tests drive them with a
 *   simulated clock.
 */
import { assign, enqueueActions, fromCallback, fromPromise, setup, spawnChild, stopChild, type ActorRefFrom } from 'xstate';
import type { Logger } from 'pino';
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS } from './controller.js';
/** How often back-off pods whose time is up move to the active queue (established: 1 s). */
export const POD_BACKOFF_FLUSH_INTERVAL_MS = 1_000;
/** How often pods parked as unschedulable for too long are retried (established: 30 s). */
export const UNSCHEDULABLE_FLUSH_INTERVAL_MS = 30_000;

/** What one scheduling cycle did; `scheduled` carries the binding to run. */
export type CycleResult =
  | { kind: 'idle' }
  | { kind: 'scheduled'; binding: BindingWork }
  | { kind: 'unschedulable'; pod: string; nominatedNode?: string }
  | { kind: 'error'; pod: string; message: string }
  | { kind: 'skipped'; pod: string };

/** A binding the cycle decided on, opaque to the machine. */
export interface BindingWork {
  /** Names the binding actor (`binding-<podUid>`). */
  readonly podUid: string;
}

/**
 * The scheduling steps the machine sequences (src/scheduler's `Scheduler` implements them); the
 * machine owns the order and the timers, the scheduler the state.
 */
export interface Scheduler {
  readonly logger: Logger;
  /** Subscribes to the informers; calls back once all synced, when the active queue fills, or an informer fails for good. */
  startFeeding(callbacks: { onSynced(): void; onActive(): void; onFailed(err: unknown): void }): void;
  stopFeeding(): void;
  hasActivePods(): boolean;
  nodeCount(): number;
  scheduleOne(): Promise<CycleResult>;
  bind(work: BindingWork): Promise<boolean>;
  flushBackoff(): number;
  flushUnschedulable(): number;
}

export interface SchedulerMachineInput {
  scheduler: Scheduler;
  needsLeader: boolean;
  cacheSyncTimeoutMs?: number;
}

export type SchedulerEvent =
  | { type: 'LEADER_ELECTED' }
  | { type: 'LEADER_LOST' }
  | { type: 'STOP' }
  | { type: 'CACHES_SYNCED' }
  | { type: 'QUEUE_ACTIVE' }
  | { type: 'SOURCE_FAILED'; error: unknown };

interface SchedulerContext {
  scheduler: Scheduler;
  needsLeader: boolean;
  cacheSyncTimeoutMs: number;
  /** Cycles run and bindings started, for the machines page. */
  cycles: number;
  bindingsStarted: number;
  bindingsDone: number;
  lastResult: CycleResult['kind'] | undefined;
}

/** Feeds informer events into the cache and queue; reports sync, active pods and failures. */
const feed = fromCallback<SchedulerEvent, { scheduler: Scheduler }>(({ input, sendBack }) => {
  input.scheduler.startFeeding({
    onSynced: () => sendBack({ type: 'CACHES_SYNCED' }),
    onActive: () => sendBack({ type: 'QUEUE_ACTIVE' }),
    onFailed: (error) => sendBack({ type: 'SOURCE_FAILED', error }),
  });
  return () => input.scheduler.stopFeeding();
});

/** `binding-<uid>` from `xstate.done.actor.binding-<uid>` / `xstate.error.actor.binding-<uid>`, else ''. */
function bindingIdOf(event: { type: string }): string {
  const m = /^xstate\.(?:done|error)\.actor\.(binding-.+)$/.exec(event.type);
  return m?.[1] ?? '';
}

export const schedulerMachine = setup({
  types: {
    input: {} as SchedulerMachineInput,
    context: {} as SchedulerContext,
    events: {} as SchedulerEvent,
  },
  actors: {
    feed,
    schedulingCycle: fromPromise<CycleResult, { scheduler: Scheduler }>(({ input }) => input.scheduler.scheduleOne()),
    binding: fromPromise<boolean, { scheduler: Scheduler; work: BindingWork }>(({ input }) => input.scheduler.bind(input.work)),
    drainBindings: fromPromise<void, { isDrained: () => boolean }>(async ({ input }) => {
      while (!input.isDrained()) await new Promise((r) => setTimeout(r, 10));
    }),
  },
  delays: {
    cacheSyncTimeout: ({ context }) => context.cacheSyncTimeoutMs,
    podBackoffFlushInterval: POD_BACKOFF_FLUSH_INTERVAL_MS,
    unschedulableFlushInterval: UNSCHEDULABLE_FLUSH_INTERVAL_MS,
  },
  actions: {
    logSourceFailed: ({ context, event }) =>
      context.scheduler.logger.error({ err: event.type === 'SOURCE_FAILED' ? event.error : undefined }, 'an informer failed; stopping the scheduler'),
  },
  guards: {
    leaderNotNeeded: ({ context }) => !context.needsLeader,
    podsActive: ({ context }) => context.scheduler.hasActivePods(),
  },
}).createMachine({
  id: 'scheduler',
  context: ({ input }) => ({
    scheduler: input.scheduler,
    needsLeader: input.needsLeader,
    cacheSyncTimeoutMs: input.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS,
    cycles: 0,
    bindingsStarted: 0,
    bindingsDone: 0,
    lastResult: undefined,
  }),
  initial: 'waitingForLeader',
  states: {
    waitingForLeader: {
      always: { guard: 'leaderNotNeeded', target: 'syncingCaches' },
      on: { LEADER_ELECTED: 'syncingCaches', STOP: 'stopped' },
    },
    syncingCaches: {
      // The feed lives on through scheduling; stopping stops it.
      entry: [({ context }) => context.scheduler.logger.info('syncing caches'), spawnChild('feed', { id: 'feed', input: ({ context }) => ({ scheduler: context.scheduler }) })],
      on: {
        CACHES_SYNCED: 'scheduling',
        STOP: 'stopping',
        LEADER_LOST: 'stopping',
        SOURCE_FAILED: { target: 'stopping', actions: 'logSourceFailed' },
      },
      after: { cacheSyncTimeout: 'cacheSyncFailed' },
    },
    scheduling: {
      entry: ({ context }) => context.scheduler.logger.info({ nodes: context.scheduler.nodeCount() }, 'caches synced; scheduling'),
      on: {
        STOP: 'stopping',
        LEADER_LOST: 'stopping',
        SOURCE_FAILED: { target: 'stopping', actions: 'logSourceFailed' },
        // A binding actor ended (it handled its own success or failure): count it and stop it, so
        // finished bindings never pile up as children (stopping waits only for the running ones).
        'xstate.done.actor.*': { actions: [assign({ bindingsDone: ({ context, event }) => context.bindingsDone + (bindingIdOf(event) ? 1 : 0) }), stopChild(({ event }) => bindingIdOf(event))] },
      },
      type: 'parallel',
      states: {
        loop: {
          initial: 'idle',
          states: {
            idle: {
              always: { guard: 'podsActive', target: 'cycle' },
              on: { QUEUE_ACTIVE: 'cycle' },
            },
            cycle: {
              invoke: {
                src: 'schedulingCycle',
                input: ({ context }) => ({ scheduler: context.scheduler }),
                onDone: {
                  target: 'idle',
                  actions: [
                    assign({
                      cycles: ({ context, event }) => context.cycles + (event.output.kind === 'idle' ? 0 : 1),
                      lastResult: ({ event }) => event.output.kind,
                    }),
                    enqueueActions(({ event, enqueue, context }) => {
                      if (event.output.kind !== 'scheduled') return;
                      const work = event.output.binding;
                      enqueue.assign({ bindingsStarted: context.bindingsStarted + 1 });
                      // The binding cycle runs on as its own actor while the next cycles go on.
                      enqueue.spawnChild('binding', { id: `binding-${work.podUid}`, input: { scheduler: context.scheduler, work } });
                    }),
                  ],
                },
                onError: {
                  target: 'idle',
                  actions: ({ context, event }) => context.scheduler.logger.error({ err: event.error }, 'scheduling cycle failed'),
                },
              },
            },
          },
        },
        backoff: {
          initial: 'waiting',
          states: {
            waiting: {
              after: { podBackoffFlushInterval: { target: 'waiting', reenter: true, actions: ({ context }) => context.scheduler.flushBackoff() } },
            },
          },
        },
        leftovers: {
          initial: 'waiting',
          states: {
            waiting: {
              after: { unschedulableFlushInterval: { target: 'waiting', reenter: true, actions: ({ context }) => context.scheduler.flushUnschedulable() } },
            },
          },
        },
      },
    },
    cacheSyncFailed: {
      entry: [stopChild('feed'), ({ context }) => context.scheduler.logger.error({ timeoutMs: context.cacheSyncTimeoutMs }, 'timed out waiting for caches to sync')],
      type: 'final',
    },
    stopping: {
      entry: [stopChild('feed'), ({ context }) => context.scheduler.logger.info({ inFlight: context.bindingsStarted - context.bindingsDone }, 'stopping; waiting for bindings in flight')],
      // Bindings that end now are not stopped by a transition: count only the ones still running.
      invoke: {
        src: 'drainBindings',
        input: ({ self }) => ({
          isDrained: () => !Object.entries(self.getSnapshot().children).some(([id, child]) => id.startsWith('binding-') && child?.getSnapshot().status === 'active'),
        }),
        onDone: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
});

export type SchedulerActor = ActorRefFrom<typeof schedulerMachine>;
