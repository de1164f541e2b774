/**
 * `svc run [flags] <module...>`: hosts controller modules against an API server, as a separate
 * process, exactly as a user runs their own controller: the API client flags say where the server
 * is, leader election (on by default) makes one replica of the same modules act at a time, and the
 * secure port serves /healthz, /metrics, /debug/pprof/ and the live machines (/debug/machines,
 * /debug/machines/ui).
 *
 * The lock's default name is derived from the hosted controllers' names (see `defaultLockName`),
 * so replicas of the same modules share it; set --leader-elect-resource-name to choose one.
 * Losing the lease exits 1 at once; SIGTERM drains the reconciles, releases the lock and exits 0.
 */
import { Command } from 'commander';
import { resolveCommonOptions } from './common-options.js';
import { startControllerHostProcess } from './controller-host-process.js';
import {
  apiClientFlags, leaderElectionFlags, resolveApiClientOptions, resolveLeaderElectionOptions, resolveMinResyncPeriod, resyncFlags,
} from './controller-host-options.js';
import { defaultLockName, loadControllerModules } from './controller-modules.js';
import { startHostedControllers } from './hosted-controllers.js';
import { createLogger } from './logging.js';
import { addFlags } from './option-table.js';
import { createDaemonProgram, superviseDaemon, type DaemonStartContext, type RunningDaemon } from './program.js';

export function runCommand(): Command {
  const cmd = createDaemonProgram({
    component: 'controller-manager',
    name: 'run',
    displayName: 'svc run',
    description:
      'Hosts controller modules (JavaScript files exporting defineController definitions) against an API server, with leader election, /healthz, /metrics and /debug/machines on the secure port.',
  })
    .usage('[flags] <module...>')
    .argument('<module...>', 'controller module files (.js/.mjs/.cjs) exporting defineController definitions');
  addFlags(cmd, [
    ...leaderElectionFlags('', 'the hosted controllers\' names, sorted and joined by "."'),
    ...apiClientFlags(),
    ...resyncFlags(),
  ]);
  return cmd.action(async (modules: string[], _opts: unknown, self: Command) => {
    await superviseDaemon({ program: self, start: (program, ctx) => startRun(program, modules, ctx) });
  });
}

async function startRun(program: Command, modules: string[], ctx: DaemonStartContext): Promise<RunningDaemon> {
  const opts = program.opts();
  const common = resolveCommonOptions(opts, 'controller-manager');
  const clientOptions = resolveApiClientOptions(opts);
  const minResyncPeriodMs = resolveMinResyncPeriod(opts);
  const leaderElection = resolveLeaderElectionOptions(opts);
  const logger = createLogger('svc-run', common.logging);
  ctx.setLogger(logger);

  const definitions = await loadControllerModules(modules);
  if (leaderElection.enabled && !leaderElection.resourceName) leaderElection.resourceName = defaultLockName(definitions);

  const host = await startControllerHostProcess({
    common,
    client: clientOptions,
    component: 'svc-run',
    userAgent: `svc-run/${definitions.map((d) => d.name).join(',')}`,
    logger,
    renewDeadlineMs: leaderElection.enabled ? leaderElection.renewDeadlineMs : 10_000,
  });
  const { connection, electionConnection, informers, registry, inspector, healthChecks, server } = host;
  const { client } = connection;

  const lockName = leaderElection.enabled ? `${leaderElection.lockType}/${leaderElection.resourceNamespace}/${leaderElection.resourceName}` : '';
  const hosted = startHostedControllers({
    definitions,
    client,
    informers,
    logger,
    registry,
    leaderElection,
    minResyncPeriodMs,
    inspect: inspector.inspect,
    electionClient: electionConnection.client,
    onLost: () => logger.warn({ lock: lockName }, 'leader election lost: could not renew the lock within the renew deadline; stepped down, rejoining the election'),
  });
  healthChecks.push(...hosted.healthChecks);
  logger.info(
    {
      controllers: definitions.map((d) => d.name),
      leaderElection: leaderElection.enabled ? { lock: lockName, identity: hosted.identity } : false,
    },
    'hosting controllers',
  );

  // The runtime's timers are unref'd and --secure-port=0 leaves no listener: hold the process
  // open until shutdown, or a follower with nothing else to do would simply exit.
  const keepAlive = setInterval(() => {}, 1 << 30);
  return {
    async shutdown() {
      clearInterval(keepAlive);
      await hosted.shutdown();
      await server.close();
      await host.closeConnections();
    },
  };
}
