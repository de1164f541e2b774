/**
 * `startScheduler`: builds the `Scheduler` from an effective configuration, runs the scheduler
 * machine, and (when asked) leader election in front of it. Used by the `scheduler` daemon and
 * by `svc up`; tests and benchmarks call it with an in-process client.
 *
 * Losing the lease calls `onLost` (the daemon exits 1, as established); `stop()` stops electing,
 * stops scheduling, waits for bindings in flight and resolves.
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
  /** Called once when the lease is lost. */
  onLost?: () => void;
}

export interface RunningScheduler {
  readonly scheduler: Scheduler;
  readonly actor: SchedulerActor;
  readonly election: LeaderElection | undefined;
  isLeader(): boolean;
  stop(): Promise<void>;
}

export function startScheduler(opts: StartSchedulerOptions): RunningScheduler {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger;
  const scheduler = new Scheduler({
    client: opts.client,
    informers: opts.informers,
    configuration: opts.configuration,
    logger,
    clock,
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.features ? { features: opts.features } : {}),
    ...(opts.registry ? { metrics: schedulerMetrics(opts.registry) } : {}),
  });
  const actor = createActor(schedulerMachine, {
    id: 'scheduler',
    clock,
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
    input: { scheduler, needsLeader: opts.leaderElection !== false },
  });
  actor.start();
  let election: LeaderElection | undefined;
  if (opts.leaderElection !== false) {
    election = startLeaderElection({
      client: opts.client,
      config: opts.leaderElection,
      logger,
      clock,
      ...(opts.inspect ? { inspect: opts.inspect } : {}),
      onStartedLeading: () => actor.send({ type: 'LEADER_ELECTED' }),
      onStoppedLeading: (reason) => {
        actor.send({ type: 'LEADER_LOST' });
        if (reason === 'lost') opts.onLost?.();
      },
    });
  }
  return {
    scheduler,
    actor,
    election,
    isLeader: () => election?.isLeader() ?? true,
    async stop() {
      election?.stop();
      actor.send({ type: 'STOP' });
      await toPromise(actor).catch(() => undefined);
    },
  };
}
