/**
 * `startScheduler`: builds the `Scheduler` from an effective configuration, runs the scheduler
 * machine, and (when asked) leader election in front of it. Used by the `scheduler` daemon and
 * by `svc up`; tests and benchmarks call it with an in-process client.
 *
 * Losing the lease (no renewal within the renew deadline) steps down: the scheduler machine stops
 * (the bindings in flight finish), `onLost` is told, a fresh scheduler waits for leadership again
 * and the election rejoins as a follower. `stop()` stops electing, stops scheduling, waits for
 * bindings in flight and resolves.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createActor, toPromise, type InspectionEvent } from 'xstate';
import { schedulerMachine, type SchedulerActor } from '../../machines/scheduler.js';
import type { InformerFactory } from '../client/informer-types.js';
import type { ApiClient } from '../client/types.js';
import { systemClock, type Clock } from '../client/clock.js';
import { startLeaderElection, type LeaderElection } from '../runtime/leader-election/start.js';
import type { LeaderElectionConfig } from '../runtime/leader-election/config.js';
import type { SchedulerConfiguration, SchedulerFeatures } from './config/types.js';
import { schedulerMetrics } from './metrics.js';
import { Scheduler } from './scheduler.js';

export interface StartSchedulerOptions {
  client: ApiClient;
  informers: InformerFactory;
  configuration: SchedulerConfiguration;
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  /** Feature gates that change scheduling (default: the gates' defaults). */
  features?: SchedulerFeatures;
  /** Metrics are registered here when given. */
  registry?: Registry;
  /** xstate inspection for /debug/machines. */
  inspect?: (event: InspectionEvent) => void;
  /** Leader election in front of the machine; false runs at once. */
  leaderElection: (Partial<LeaderElectionConfig> & { resourceName: string }) | false;
  /** The lock's client (see connectForLeaderElection); default `client`. */
  electionClient?: ApiClient;
  /** Called each time the lease is lost (the scheduler then steps down and rejoins). */
  onLost?: () => void;
}

export interface RunningScheduler {
  /** The current scheduler (a new one after each step-down). */
  readonly scheduler: Scheduler;
  readonly actor: SchedulerActor;
  readonly election: LeaderElection | undefined;
  isLeader(): boolean;
  stop(): Promise<void>;
}

export function startScheduler(opts: StartSchedulerOptions): RunningScheduler {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger;
  // Registered once: a scheduler made after a step-down reports into the same metrics.
  const metrics = opts.registry ? schedulerMetrics(opts.registry) : undefined;
  const run = () => {
    const scheduler = new Scheduler({
      client: opts.client,
      informers: opts.informers,
      configuration: opts.configuration,
      logger,
      clock,
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.features ? { features: opts.features } : {}),
      ...(metrics ? { metrics } : {}),
    });
    const actor = createActor(schedulerMachine, {
      id: 'scheduler',
      clock,
      ...(opts.inspect ? { inspect: opts.inspect } : {}),
      input: { scheduler, needsLeader: opts.leaderElection !== false },
    });
    actor.start();
    return { scheduler, actor };
  };
  let current = run();
  let stopping = false;
  let election: LeaderElection | undefined;
  if (opts.leaderElection !== false) {
    election = startLeaderElection({
      client: opts.electionClient ?? opts.client,
      config: opts.leaderElection,
      logger,
      clock,
      ...(opts.inspect ? { inspect: opts.inspect } : {}),
      onStartedLeading: () => current.actor.send({ type: 'LEADER_ELECTED' }),
      onStoppedLeading: (reason) => {
        current.actor.send({ type: 'LEADER_LOST' });
        if (reason === 'lost') opts.onLost?.();
      },
      // Wait for the bindings in flight, then a fresh scheduler (its queue rebuilt from the
      // informers' caches) waits for leadership while the election rejoins.
      stepDown: async () => {
        // STOP as well: a machine still waiting for leadership has no LEADER_LOST to act on.
        current.actor.send({ type: 'STOP' });
        await toPromise(current.actor).catch(() => undefined);
        if (!stopping) current = run();
      },
    });
  }
  return {
    get scheduler() {
      return current.scheduler;
    },
    get actor() {
      return current.actor;
    },
    election,
    isLeader: () => election?.isLeader() ?? true,
    async stop() {
      stopping = true;
      election?.stop();
      current.actor.send({ type: 'STOP' });
      await toPromise(current.actor).catch(() => undefined);
    },
  };
}
