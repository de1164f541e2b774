/**
 * The scheduler machine: one scheduler's life, from waiting for leadership to a drained stop.
 *
 *   waitingForLeader --LEADER_ELECTED (or no leader election)--> syncingCaches
 *   syncingCaches --CACHES_SYNCED--> scheduling            syncingCaches --cacheSyncTimeout--> cacheSyncFailed
 *   scheduling:   idle --pods active (QUEUE_ACTIVE or on entry)--> cycle --CYCLE_DONE--> idle
 *                 (cycle asks the `cycleRunner` child for one scheduling cycle; a chosen node starts a
 *                 `binding` actor),
 *                 with the `flushTimers` child machine running beside it (parallel regions):
 *     backoff:    waiting --podBackoffFlushInterval (1 s)--> waiting (moves expired back-offs to active)
 *     leftovers:  waiting --unschedulableFlushInterval (30 s)--> waiting (moves pods parked > 60 s)
 *   syncingCaches | scheduling --STOP | LEADER_LOST | SOURCE_FAILED--> stopping --bindings done--> stopped
 *
 * Guarantees:
 * - One scheduling cycle at a time (the cache's assumptions are made in order); bindings run
 *   concurrently as `binding` actors, each ends by itself (success or forget + back-off). They are
 *   not children of the machine: hundreds are in flight at once, and xstate copies a machine's
 *   children map on every spawn and stop (quadratic in flight). `context.bindings` counts them
 *   (its live facts on /debug/machines: in flight, started, done) and `stopping` waits for them.
 * - No actor per node or per queued pod: the per-pod cost is two transitions (into and out of
 *   `cycle`) and one binding actor.
 * - The flush timers are delayed transitions on the actor's clock, so tests drive them with a
 *   simulated clock. They live in a child machine so the per-pod transitions of `scheduling` run
 *   on a plain compound state (a parallel state costs every transition a walk of all regions).
 */
import { assign, createActor, fromCallback, fromPromise, sendTo, setup, spawnChild, stopChild, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { Logger } from 'pino';
import { LIVE_FACTS, type LiveFactsSource, type LiveFactsValue } from '../src/runtime/inspection/live-facts.js';
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
  | { type: 'CYCLE_DONE'; output: CycleResult }
  | { type: 'CYCLE_FAILED'; error: unknown }
  | { type: 'SOURCE_FAILED'; error: unknown };

/** The binding cycle of one pod, as an actor (see BindingsInFlight). */
export const bindingLogic = fromPromise<boolean, { scheduler: Scheduler; work: BindingWork }>(({ input }) => input.scheduler.bind(input.work));

/** The `binding` actors running now, and how many started and ended (live facts for /debug/machines). */
export class BindingsInFlight implements LiveFactsSource {
  private readonly running = new Set<AnyActorRef>();
  private drainWaiters: Array<() => void> = [];
  started = 0;
  done = 0;

  get size(): number {
    return this.running.size;
  }

  start(scheduler: Scheduler, work: BindingWork): void {
    const actor = createActor(bindingLogic, { id: `binding-${work.podUid}`, input: { scheduler, work } });
    this.running.add(actor);
    this.started++;
    const end = () => {
      if (!this.running.delete(actor)) return;
      this.done++;
      if (this.running.size === 0) for (const w of this.drainWaiters.splice(0)) w();
    };
    actor.subscribe({
      complete: end,
      // bind() settles its own failures; should it throw, the pod is left to its assumed-pod expiry.
      error: (err: unknown) => {
        scheduler.logger.error({ err, pod: work.podUid }, 'binding failed unexpectedly');
        end();
      },
    });
    actor.start();
  }

  /** Resolves once no binding is running. */
  drained(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  [LIVE_FACTS](): { [key: string]: LiveFactsValue } {
    return { bindings: { inFlight: this.running.size, started: this.started, done: this.done } };
  }
}

interface SchedulerContext {
  scheduler: Scheduler;
  bindings: BindingsInFlight;
  needsLeader: boolean;
  cacheSyncTimeoutMs: number;
  /** Cycles run, for the machines page. */
  cycles: number;
  lastResult: CycleResult['kind'] | undefined;
}

/**
 * Runs the scheduling cycle the machine asks for (RUN_CYCLE) and reports how it went (CYCLE_DONE,
 * CYCLE_FAILED): one actor for all cycles of a `scheduling` stay, not one per pod (creating an
 * actor per cycle cost more than the cycle's own bookkeeping).
 */
const cycleRunner = fromCallback<SchedulerEvent, { scheduler: Scheduler }, { type: 'RUN_CYCLE' }>(({ input, sendBack, receive }) => {
  let stopped = false;
  receive(() => {
    input.scheduler.scheduleOne().then(
      (output) => !stopped && sendBack({ type: 'CYCLE_DONE', output }),
      (error: unknown) => !stopped && sendBack({ type: 'CYCLE_FAILED', error }),
    );
  });
  return () => {
    stopped = true;
  };
});

/** Feeds informer events into the cache and queue; reports sync, active pods and failures. */
const feed = fromCallback<SchedulerEvent, { scheduler: Scheduler }>(({ input, sendBack }) => {
  input.scheduler.startFeeding({
    onSynced: () => sendBack({ type: 'CACHES_SYNCED' }),
    onActive: () => sendBack({ type: 'QUEUE_ACTIVE' }),
    onFailed: (error) => sendBack({ type: 'SOURCE_FAILED', error }),
  });
  return () => input.scheduler.stopFeeding();
});

/** The back-off and leftover flushes as delayed transitions, beside the scheduling loop. */
export const flushTimersMachine = setup({
  types: { input: {} as { scheduler: Scheduler }, context: {} as { scheduler: Scheduler } },
  delays: {
    podBackoffFlushInterval: POD_BACKOFF_FLUSH_INTERVAL_MS,
    unschedulableFlushInterval: UNSCHEDULABLE_FLUSH_INTERVAL_MS,
  },
}).createMachine({
  id: 'flushTimers',
  context: ({ input }) => ({ scheduler: input.scheduler }),
  type: 'parallel',
  states: {
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
});

export const schedulerMachine = setup({
  types: {
    input: {} as SchedulerMachineInput,
    context: {} as SchedulerContext,
    events: {} as SchedulerEvent,
  },
  actors: {
    feed,
    flushTimers: flushTimersMachine,
    cycleRunner,
    drainBindings: fromPromise<void, { bindings: BindingsInFlight }>(({ input }) => input.bindings.drained()),
  },
  delays: {
    cacheSyncTimeout: ({ context }) => context.cacheSyncTimeoutMs,
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
    bindings: new BindingsInFlight(),
    needsLeader: input.needsLeader,
    cacheSyncTimeoutMs: input.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS,
    cycles: 0,
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
      },
      invoke: [
        { id: 'flushTimers', src: 'flushTimers', input: ({ context }) => ({ scheduler: context.scheduler }) },
        { id: 'cycleRunner', src: 'cycleRunner', input: ({ context }) => ({ scheduler: context.scheduler }) },
      ],
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'podsActive', target: 'cycle' },
          on: { QUEUE_ACTIVE: 'cycle' },
        },
        // One scheduling cycle: the runner takes the next pod, decides, assumes it.
        cycle: {
          entry: sendTo('cycleRunner', { type: 'RUN_CYCLE' }),
          on: {
            CYCLE_DONE: {
              target: 'idle',
              actions: [
                assign({
                  cycles: ({ context, event }) => context.cycles + (event.output.kind === 'idle' ? 0 : 1),
                  lastResult: ({ event }) => event.output.kind,
                }),
                // The binding cycle runs on as its own actor while the next cycles go on.
                ({ context, event }) => {
                  if (event.output.kind === 'scheduled') context.bindings.start(context.scheduler, event.output.binding);
                },
              ],
            },
            CYCLE_FAILED: {
              target: 'idle',
              actions: ({ context, event }) => context.scheduler.logger.error({ err: event.error }, 'scheduling cycle failed'),
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
      entry: [stopChild('feed'), ({ context }) => context.scheduler.logger.info({ inFlight: context.bindings.size }, 'stopping; waiting for bindings in flight')],
      invoke: { src: 'drainBindings', input: ({ context }) => ({ bindings: context.bindings }), onDone: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});

export type SchedulerActor = ActorRefFrom<typeof schedulerMachine>;
