/**
 * `startLeaderElection`: builds the configured lock and runs the leader-election machine. Losing
 * the lease calls `onStoppedLeading('lost')`, then `stepDown()` (the embedder stops its work), and
 * the election goes on as a follower.
 */
import type { Logger } from 'pino';
import { createActor, type InspectionEvent } from 'xstate';
import { leaderElectionMachine, type LeaderElectionActor, type LeaderElectionCallbacks } from '../../../machines/leader-election.js';
import type { ApiClient } from '../../client/types.js';
import { systemClock, type Clock } from '../clock.js';
import { leaderElectionConfig, type LeaderElectionConfig } from './config.js';
import { newResourceLock } from './new-lock.js';

export interface StartLeaderElectionOptions extends LeaderElectionCallbacks {
  /**
   * The lock's own client: the daemons give it a connection of its own with no rate limit
   * (`connectForLeaderElection`), so renewals never queue behind the work they guard.
   */
  client: ApiClient;
  /** Validated here (throws LeaderElectionConfigError); defaults as `leaderElectionConfig`. */
  config: Partial<LeaderElectionConfig> & { resourceName: string };
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  /** xstate's inspection callback for the election's actors (e.g. a MachineInspector's `inspect`). */
  inspect?: (event: InspectionEvent) => void;
}

export interface LeaderElection {
  readonly actor: LeaderElectionActor;
  readonly config: LeaderElectionConfig;
  isLeader(): boolean;
  /** Stops electing; a leader releases the lock first when `releaseOnStop`. */
  stop(): void;
}

/**
 * The election's logger: `module: leader-election` unless the host already set a module (pino would
 * repeat the key in every record), and always the lock it contends for.
 */
function electionLogger(logger: Logger, config: LeaderElectionConfig): Logger {
  const lock = `${config.resourceNamespace}/${config.resourceName}`;
  return logger.child(logger.bindings()['module'] === undefined ? { module: 'leader-election', election: lock } : { election: lock });
}

export function startLeaderElection(opts: StartLeaderElectionOptions): LeaderElection {
  const config = leaderElectionConfig(opts.config);
  const clock = opts.clock ?? systemClock;
  const lock = newResourceLock(config.lockType, opts.client, { namespace: config.resourceNamespace, name: config.resourceName, identity: config.identity });
  // Named after its lock, so /debug/machines shows which election this is.
  const actor = createActor(leaderElectionMachine, {
    id: `leader-election/${config.resourceNamespace}/${config.resourceName}`,
    clock,
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
    input: {
      lock,
      config,
      logger: electionLogger(opts.logger, config),
      clock,
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.onStartedLeading ? { onStartedLeading: opts.onStartedLeading } : {}),
      ...(opts.onStoppedLeading ? { onStoppedLeading: opts.onStoppedLeading } : {}),
      ...(opts.onNewLeader ? { onNewLeader: opts.onNewLeader } : {}),
      ...(opts.stepDown ? { stepDown: opts.stepDown } : {}),
    },
  });
  actor.start();
  return {
    actor,
    config,
    isLeader: () => actor.getSnapshot().status === 'active' && actor.getSnapshot().matches('leader'),
    stop: () => actor.send({ type: 'STOP' }),
  };
}
