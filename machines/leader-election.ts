/**
 * Leader election as a machine, with client-go's timing:
 *
 *   acquiring --acquired--> leader            acquiring --held by other / failed--> follower
 *   follower --retryPeriod × (1 + random × 1.2)--> acquiring
 *   leader.holding --retryPeriod--> leader.renewing (attempt now, then every retryPeriod)
 *   leader.renewing --renewed--> leader.holding
 *   leader.renewing --renewDeadline without a renewal--> lost (final)
 *   any --STOP--> stopped (final; a leader first releases the lock when `releaseOnStop`)
 *
 * Guarantees: a follower takes over only after the holder's lease duration has passed since it
 * last SAW the record change (see src/runtime/leader-election/lock-keeper.ts); a leader stops
 * leading (`lost`) once it has failed to renew for `renewDeadline` (<= lease duration), so it has
 * stopped before anyone else may take over. What happens after `lost` is the embedder's choice
 * (`onStoppedLeading`): the daemons exit, as the established implementation does.
 */
import type { Logger } from 'pino';
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import { systemClock, type Clock } from '../src/runtime/clock.js';
import { JITTER_FACTOR, type LeaderElectionConfig } from '../src/runtime/leader-election/config.js';
import { LockKeeper, type AttemptOutcome } from '../src/runtime/leader-election/lock-keeper.js';
import type { ResourceLock } from '../src/runtime/leader-election/record.js';

/** Why leading ended: `lost` (could not renew in time) or `stopped` (asked to stop). */
export type StoppedLeadingReason = 'lost' | 'stopped';

export interface LeaderElectionCallbacks {
  onStartedLeading?(): void;
  /** Called once when a leader stops leading; the daemons exit here on `lost`. */
  onStoppedLeading?(reason: StoppedLeadingReason): void;
  /** Called when the observed holder changes (including to us). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionInput extends LeaderElectionCallbacks {
  lock: ResourceLock;
  config: Pick<LeaderElectionConfig, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnStop'>;
  logger: Logger;
  /** For local observation times; give the same clock as the actor's. Default systemClock. */
  clock?: Pick<Clock, 'now'>;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
}

interface LeaderElectionContext {
  input: LeaderElectionInput;
  keeper: LockKeeper;
  /** The holder last observed ('' when none). */
  leader: string;
  /** Attempts that failed with an error (API unreachable, conflict, ...). */
  failures: number;
}

export type LeaderElectionEvent = { type: 'STOP' };

const attempt = fromPromise<AttemptOutcome, LockKeeper>(({ input }) => input.tryAcquireOrRenew());

function noteAttempt(context: LeaderElectionContext, out: AttemptOutcome): Partial<LeaderElectionContext> {
  if (out.kind === 'failed') {
    context.input.logger.warn({ lock: context.input.lock.describe(), err: out.error }, 'leader election: failed to acquire or renew the lock');
    return { failures: context.failures + 1 };
  }
  if (out.holder !== context.leader) {
    context.input.logger.info({ lock: context.input.lock.describe(), leader: out.holder }, 'leader election: new leader');
    context.input.onNewLeader?.(out.holder);
  }
  return { leader: out.holder };
}

const isHeld = (out: AttemptOutcome) => out.kind === 'acquired' || out.kind === 'renewed';

export const leaderElectionMachine = setup({
  types: {
    input: {} as LeaderElectionInput,
    context: {} as LeaderElectionContext,
    events: {} as LeaderElectionEvent,
  },
  actors: {
    attempt,
    release: fromPromise<boolean, LockKeeper>(({ input }) => input.release()),
  },
  delays: {
    retryPeriod: ({ context }) => context.input.config.retryPeriodMs,
    retryPeriodJittered: ({ context }) => context.input.config.retryPeriodMs * (1 + (context.input.random ?? Math.random)() * JITTER_FACTOR),
    renewDeadline: ({ context }) => context.input.config.renewDeadlineMs,
  },
  actions: {
    startedLeading: ({ context }) => {
      context.input.logger.info({ lock: context.input.lock.describe(), identity: context.input.lock.identity }, 'leader election: became leader');
      context.input.onStartedLeading?.();
    },
    lostLeading: ({ context }) => {
      context.input.logger.error(
        { lock: context.input.lock.describe(), renewDeadlineMs: context.input.config.renewDeadlineMs },
        'leader election: failed to renew within the renew deadline; stopped leading',
      );
      context.input.onStoppedLeading?.('lost');
    },
    stoppedLeading: ({ context }) => context.input.onStoppedLeading?.('stopped'),
  },
  guards: {
    releaseOnStop: ({ context }) => context.input.config.releaseOnStop,
  },
}).createMachine({
  id: 'leaderElection',
  context: ({ input }) => ({
    input,
    keeper: new LockKeeper(input.lock, input.config.leaseDurationMs, input.clock ?? systemClock),
    leader: '',
    failures: 0,
  }),
  initial: 'acquiring',
  on: { STOP: '.stopped' },
  states: {
    acquiring: {
      invoke: {
        src: 'attempt',
        input: ({ context }) => context.keeper,
        onDone: [
          { guard: ({ event }) => isHeld(event.output), target: 'leader', actions: assign(({ context, event }) => noteAttempt(context, event.output)) },
          { target: 'follower', actions: assign(({ context, event }) => noteAttempt(context, event.output)) },
        ],
      },
    },
    follower: {
      after: { retryPeriodJittered: 'acquiring' },
    },
    leader: {
      entry: 'startedLeading',
      on: {
        STOP: [
          { guard: 'releaseOnStop', target: 'releasing' },
          { target: 'stopped', actions: 'stoppedLeading' },
        ],
      },
      initial: 'holding',
      states: {
        holding: {
          after: { retryPeriod: 'renewing' },
        },
        renewing: {
          after: { renewDeadline: { target: '#leaderElection.lost' } },
          initial: 'attempt',
          states: {
            attempt: {
              invoke: {
                src: 'attempt',
                input: ({ context }) => context.keeper,
                onDone: [
                  {
                    guard: ({ event }) => isHeld(event.output),
                    target: '#leaderElection.leader.holding',
                    actions: assign(({ context, event }) => noteAttempt(context, event.output)),
                  },
                  { target: 'waiting', actions: assign(({ context, event }) => noteAttempt(context, event.output)) },
                ],
              },
            },
            waiting: {
              after: { retryPeriod: 'attempt' },
            },
          },
        },
      },
    },
    lost: {
      entry: 'lostLeading',
      type: 'final',
    },
    releasing: {
      // Already on the way out: a second STOP must not skip the callback.
      on: { STOP: {} },
      invoke: {
        src: 'release',
        input: ({ context }) => context.keeper,
        onDone: { target: 'stopped', actions: 'stoppedLeading' },
        onError: { target: 'stopped', actions: 'stoppedLeading' },
      },
    },
    stopped: {
      type: 'final',
    },
  },
});

export type LeaderElectionActor = ActorRefFrom<typeof leaderElectionMachine>;
