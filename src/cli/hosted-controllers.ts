/**
 * Runs a set of controller definitions the way a daemon does: gated by leader election (the
 * controllers wait in `waitingForLeader` until this process leads), with the work-queue metrics and
 * a `leader_election_master_status` gauge in the daemon's registry.
 *
 * Losing the lease (no renewal within the renew deadline) steps down: the controllers are told to
 * stop and drain their in-flight reconciles, `onLost` is told, fresh controllers (same definitions,
 * same informers and metrics) wait for leadership again, and the election rejoins as a follower.
 * The established daemons exit there instead; a process that nobody killed stays a candidate, so
 * the cluster is not left without a leader until a supervisor restarts it. The lock has a client
 * of its own (`electionClient`, see connectForLeaderElection). `shutdown()` (SIGTERM) stops the
 * controllers first, waits for in-flight reconciles, and only then releases the lock, so the next
 * leader never overlaps with work still running here.
 */
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { toPromise, type InspectionEvent } from 'xstate';
import type { HealthCheck } from '../apiserver/health.js';
import type { ApiClient, InformerFactory } from '../client/index.js';
import type { Clock } from '../client/clock.js';
import type { ControllerDefinition, RunningController } from '../runtime/define-controller.js';
import { startLeaderElection, type LeaderElection } from '../runtime/leader-election/start.js';
import type { LeaderElectionOptions } from './controller-host-options.js';

export interface HostedControllersOptions {
  definitions: readonly ControllerDefinition[];
  client: ApiClient;
  /** A controller's own client (--use-service-account-credentials); undefined for a name: `client`. Informers stay on `client`. */
  clientFor?: (controllerName: string) => ApiClient | undefined;
  informers: InformerFactory;
  /**
   * A controller's own informers, made with its own client (the test cluster runs a user's
   * controller with exactly the permissions it declares, its watches included); default `informers`.
   */
  informersFor?: (controllerName: string) => InformerFactory | undefined;
  logger: Logger;
  registry: Registry;
  leaderElection: LeaderElectionOptions;
  /** The lock's client (see connectForLeaderElection); default `client`. */
  electionClient?: ApiClient;
  minResyncPeriodMs: number;
  /** Leadership lost (the controllers are already told to stop; they are restarted to wait for the next term). */
  onLost?(): void;
  /** xstate's inspection callback for every controller and the election (a MachineInspector's `inspect`). */
  inspect?: (event: InspectionEvent) => void;
  /** The controllers' clock (default the system clock; tests may pass a simulated one). */
  clock?: Clock;
  /** `--controller-start-interval`: controller i starts i x this after leading begins (default 0). */
  startIntervalMs?: number;
}

export interface HostedControllers {
  /** The current controllers (new ones after each step-down), in the definitions' order. */
  readonly controllers: readonly RunningController[];
  /** Undefined with --leader-elect=false. */
  readonly election: LeaderElection | undefined;
  /** The lock's holder identity of this process (with leader election). */
  readonly identity: string | undefined;
  isLeader(): boolean;
  /** `/healthz` checks: `leaderElection` fails once the election machine ended without a stop. */
  readonly healthChecks: HealthCheck[];
  /** Stops the controllers (draining in-flight reconciles), then releases the lock. */
  shutdown(): Promise<void>;
}

/** How long shutdown waits for the lock release before giving up on it (the lease then lapses). */
const RELEASE_TIMEOUT_MS = 5_000;

export function startHostedControllers(o: HostedControllersOptions): HostedControllers {
  const le = o.leaderElection;
  const interval = o.startIntervalMs ?? 0;
  const startControllers = () => o.definitions.map((d) =>
    d.start({
      client: o.clientFor?.(d.name) ?? o.client,
      informers: o.informersFor?.(d.name) ?? o.informers,
      logger: o.logger,
      registry: o.registry,
      // With a start interval the controllers wait to be told, one after the other.
      leaderElection: le.enabled || interval > 0,
      minResyncPeriodMs: o.minResyncPeriodMs,
      ...(o.inspect ? { inspect: o.inspect } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
    }),
  );
  let controllers = startControllers();
  const startTimers = new Set<ReturnType<typeof setTimeout>>();
  const startAll = () => {
    controllers.forEach((c, i) => {
      if (interval <= 0 || i === 0) return c.leaderElected();
      const t = setTimeout(() => {
        startTimers.delete(t);
        c.leaderElected();
      }, i * interval);
      startTimers.add(t);
    });
  };
  const cancelStarts = () => {
    for (const t of startTimers) clearTimeout(t);
    startTimers.clear();
  };
  if (!le.enabled && interval > 0) startAll();

  let election: LeaderElection | undefined;
  let stopping = false;
  if (le.enabled) {
    const status = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers: [o.registry],
    });
    status.set({ name: le.resourceName }, 0);
    election = startLeaderElection({
      client: o.electionClient ?? o.client,
      logger: o.logger,
      ...(o.inspect ? { inspect: o.inspect } : {}),
      config: {
        lockType: le.lockType,
        resourceName: le.resourceName,
        resourceNamespace: le.resourceNamespace,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        releaseOnStop: true,
      },
      onStartedLeading: () => {
        status.set({ name: le.resourceName }, 1);
        o.logger.info({ identity: election?.config.identity, lock: le.resourceName }, 'started leading');
        startAll();
      },
      onStoppedLeading: (reason) => {
        status.set({ name: le.resourceName }, 0);
        o.logger.info({ identity: election?.config.identity, lock: le.resourceName, reason }, 'stopped leading');
        cancelStarts();
        for (const c of controllers) c.leaderLost();
        if (reason === 'lost' && !stopping) o.onLost?.();
      },
      // Drain the in-flight reconciles of this term, then fresh controllers wait for the next.
      stepDown: async () => {
        // stop(): a controller still waiting for its start interval has no LEADER_LOST to act on.
        await Promise.all(controllers.map((c) => c.stop()));
        if (!stopping) controllers = startControllers();
      },
    });
  }

  const healthChecks: HealthCheck[] = [{ name: 'ping', check: () => undefined }];
  if (election) {
    const actor = election.actor;
    healthChecks.push({
      name: 'leaderElection',
      check: () => (actor.getSnapshot().status === 'done' && !stopping ? `leader election ended (${String(actor.getSnapshot().value)})` : undefined),
    });
  }

  let done: Promise<void> | undefined;
  return {
    get controllers() {
      return controllers;
    },
    election,
    identity: election?.config.identity,
    isLeader: () => (election ? election.isLeader() : true),
    healthChecks,
    shutdown() {
      done ??= (async () => {
        stopping = true;
        cancelStarts();
        await Promise.all(controllers.map((c) => c.stop()));
        if (election && election.actor.getSnapshot().status === 'active') {
          const ended = toPromise(election.actor).then(() => undefined, () => undefined);
          election.stop();
          await Promise.race([ended, new Promise<void>((r) => setTimeout(r, RELEASE_TIMEOUT_MS).unref())]);
        }
        o.informers.stop();
      })();
      return done;
    },
  };
}
