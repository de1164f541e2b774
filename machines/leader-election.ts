/**
 * Leader election as a machine, with client-go's timing:
 *
 *   acquiring --acquired--> leader            acquiring --held by other / failed--> follower
 *   follower --retryPeriod × (0.5 + random × 0.25), and never past the observed lease's end--> acquiring
 *   leader.holding --retryPeriod--> leader.renewing (attempt now, then every retryPeriod)
 *   leader.renewing --renewed--> leader.holding
 *   leader.renewing --renewDeadline without a renewal--> steppingDown
 *   steppingDown --the embedder's stepDown() settled--> follower (rejoins the election)
 *   any --STOP--> stopped (final; a leader first releases the lock when `releaseOnStop`)
 *
 * Guarantees: a follower takes over only after the holder's lease duration has passed since it
 * last SAW the record change (see src/runtime/leader-election/lock-keeper.ts); a leader stops
 * leading (`onStoppedLeading('lost')`) once it has failed to renew for `renewDeadline` (<= lease
 * duration), so it has stopped before anyone else may take over. A follower polls every half to
 * one retry period and wakes when the lease it observed runs out, so it notices the holder's last
 * renewal within a retry period and takes over within lease duration + retry period of a holder's
 * death (client-go polls every 1 to 2.2 retry periods, which let takeovers take up to lease
 * duration + 4.4 retry periods: 13-18.7 s on the default 15 s lease). The established daemons exit
 * there and leave the restart to a supervisor; here a process that lost its lease without being
 * killed steps down instead — `stepDown()` stops its controllers or scheduling and waits for the
 * work in flight — and then contends again like any follower, so the cluster is never left
 * without a candidate. The renewal timer is an xstate delay (a Node timer, served at the start of
 * each event-loop turn, before I/O callbacks); how late it fires and how long each attempt takes
 * are kept in `timing` (live facts) and logged with the event-loop delay when a renewal is late.
 */
import type { Logger } from 'pino';
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import { systemClock, type Clock } from '../src/runtime/clock.js';
import { FOLLOWER_POLL, type LeaderElectionConfig } from '../src/runtime/leader-election/config.js';
import { LockKeeper, type AttemptOutcome } from '../src/runtime/leader-election/lock-keeper.js';
import type { ResourceLock } from '../src/runtime/leader-election/record.js';
import { eventLoopLag, RenewalTiming } from '../src/runtime/leader-election/renewal-timing.js';

/** Why leading ended: `lost` (could not renew in time) or `stopped` (asked to stop). */
export type StoppedLeadingReason = 'lost' | 'stopped';

export interface LeaderElectionCallbacks {
  onStartedLeading?(): void;
  /** Called once when a leader stops leading; the daemons exit here on `lost`. */
  onStoppedLeading?(reason: StoppedLeadingReason): void;
  /** Called when the observed holder changes (including to us). */
  onNewLeader?(identity: string): void;
  /**
   * After `onStoppedLeading('lost')`: stop the work leadership allowed (controllers, scheduling)
   * and resolve once it has stopped; the election then rejoins as a follower. Default: resolved.
   */
  stepDown?(): Promise<void>;
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
  /** Renewal timeliness and event-loop delay: the actor's live facts. */
  timing: RenewalTiming;
  /** When the current renewal fell due (holding entered + retry period). */
  renewDueAt: number;
}

export type LeaderElectionEvent = { type: 'STOP' };

/** One attempt and how long it took (on the election's clock). */
interface TimedAttempt {
  out: AttemptOutcome;
  tookMs: number;
}

const attempt = fromPromise<TimedAttempt, LeaderElectionContext>(async ({ input }) => {
  const clock = input.input.clock ?? systemClock;
  const t0 = clock.now();
  const out = await input.keeper.tryAcquireOrRenew();
  return { out, tookMs: clock.now() - t0 };
});

function noteAttempt(context: LeaderElectionContext, timed: TimedAttempt): Partial<LeaderElectionContext> {
  const out = timed.out;
  const clock = context.input.clock ?? systemClock;
  const late = context.timing.attemptEnded(timed.tookMs, isHeld(out) ? clock.now() : undefined);
  if (late !== undefined) {
    context.input.logger.warn(
      {
        lock: context.input.lock.describe(),
        timerLateMs: context.timing.lastTimerLateMs,
        attemptMs: context.timing.lastAttemptMs,
        outcome: out.kind,
        eventLoopLag: context.timing.lagSinceLastRenewal(),
        renewDeadlineMs: context.input.config.renewDeadlineMs,
      },
      'leader election: late renewal',
    );
  }
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

function isHeld(out: AttemptOutcome): boolean {
  return out.kind === 'acquired' || out.kind === 'renewed';
}

export const leaderElectionMachine = setup({
  types: {
    input: {} as LeaderElectionInput,
    context: {} as LeaderElectionContext,
    events: {} as LeaderElectionEvent,
  },
  actors: {
    attempt,
    release: fromPromise<boolean, LockKeeper>(({ input }) => input.release()),
    stepDown: fromPromise<void, LeaderElectionInput>(async ({ input }) => {
      await input.stepDown?.();
    }),
  },
  delays: {
    retryPeriod: ({ context }) => context.input.config.retryPeriodMs,
    retryPeriodJittered: ({ context }) => {
      const poll = context.input.config.retryPeriodMs * (FOLLOWER_POLL.longest - (context.input.random ?? Math.random)() * FOLLOWER_POLL.jitter);
      // Wake when the observed lease runs out, early by what the last attempt took (its read then
      // comes back about then; the keeper decides on the time it came back, so early is safe);
      // once the lease has run out (an attempt failed), poll as usual.
      const left = (context.keeper.otherHoldersLeaseEnds() ?? 0) - (context.input.clock ?? systemClock).now();
      // (At least 50 ms apart while early, so fast reads after a slow one do not spin.)
      const early = Math.min(context.timing.lastAttemptMs, context.input.config.retryPeriodMs);
      return left > 0 ? Math.min(poll, Math.max(left - early, Math.min(left, 50))) : poll;
    },
    renewDeadline: ({ context }) => context.input.config.renewDeadlineMs,
  },
  actions: {
    startedLeading: ({ context }) => {
      context.input.logger.info({ lock: context.input.lock.describe(), identity: context.input.lock.identity }, 'leader election: became leader');
      context.input.onStartedLeading?.();
    },
    lostLeading: ({ context }) => {
      context.input.logger.error(
        // With the event-loop delay since the last renewal: a starved process or a slow server.
        { lock: context.input.lock.describe(), renewDeadlineMs: context.input.config.renewDeadlineMs, eventLoopLag: eventLoopLag() },
        'leader election: failed to renew within the renew deadline; stepping down',
      );
      context.timing.steppedDown++;
      context.input.onStoppedLeading?.('lost');
    },
    rejoin: ({ context }) =>
      context.input.logger.info({ lock: context.input.lock.describe(), identity: context.input.lock.identity }, 'leader election: stepped down; rejoining the election'),
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
    timing: new RenewalTiming(),
    renewDueAt: 0,
  }),
  initial: 'acquiring',
  on: { STOP: '.stopped' },
  states: {
    acquiring: {
      entry: ({ context }) => context.timing.timerFired(0),
      invoke: {
        src: 'attempt',
        input: ({ context }) => context,
        onDone: [
          { guard: ({ event }) => isHeld(event.output.out), target: 'leader', actions: assign(({ context, event }) => noteAttempt(context, event.output)) },
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
          entry: assign({ renewDueAt: ({ context }) => (context.input.clock ?? systemClock).now() + context.input.config.retryPeriodMs }),
          after: { retryPeriod: 'renewing' },
        },
        renewing: {
          entry: ({ context }) => context.timing.timerFired((context.input.clock ?? systemClock).now() - context.renewDueAt),
          after: { renewDeadline: { target: '#leaderElection.steppingDown' } },
          initial: 'attempt',
          states: {
            attempt: {
              invoke: {
                src: 'attempt',
                input: ({ context }) => context,
                onDone: [
                  {
                    guard: ({ event }) => isHeld(event.output.out),
                    target: '#leaderElection.leader.holding',
                    actions: assign(({ context, event }) => noteAttempt(context, event.output)),
                  },
                  { target: 'waiting', actions: assign(({ context, event }) => noteAttempt(context, event.output)) },
                ],
              },
            },
            waiting: {
              // A retry within the same renewal is not late by its timer.
              entry: ({ context }) => context.timing.timerFired(0),
              after: { retryPeriod: 'attempt' },
            },
          },
        },
      },
    },
    steppingDown: {
      entry: 'lostLeading',
      invoke: {
        src: 'stepDown',
        input: ({ context }) => context.input,
        onDone: { target: 'follower', actions: 'rejoin' },
        onError: { target: 'follower', actions: 'rejoin' },
      },
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
