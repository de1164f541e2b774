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
import { collectDefaultMetrics, Registry } from 'prom-client';
import { OptionsError, resolveCommonOptions } from './common-options.js';
import type { HealthCheck } from '../apiserver/health.js';
import { componentServingCertificates, shownHost, startComponentServer } from './component-server.js';
import {
  apiClientFlags, leaderElectionFlags, resolveApiClientOptions, resolveLeaderElectionOptions, resolveMinResyncPeriod, resyncFlags,
} from './controller-host-options.js';
import { defaultLockName, loadControllerModules } from './controller-modules.js';
import { startHostedControllers } from './hosted-controllers.js';
import { createLogger } from './logging.js';
import { addFlags } from './option-table.js';
import { createProfilingHandler } from './profiling.js';
import { createDaemonProgram, superviseDaemon, warnUnhonouredFlags, type DaemonStartContext, type RunningDaemon } from './program.js';

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
  warnUnhonouredFlags(program, logger);

  const definitions = await loadControllerModules(modules);
  if (leaderElection.enabled && !leaderElection.resourceName) leaderElection.resourceName = defaultLockName(definitions);

  const tls = await componentServingCertificates(common, 'svc-run');

  // Loaded only now, so --help and flag errors answer without loading the client.
  const { connect, createInformerFactory } = await import('../client/index.js');
  const { debugMachinesHandler, MachineInspector } = await import('../runtime/inspection/index.js');
  let connection: ReturnType<typeof connect>;
  try {
    connection = connect({
      ...(clientOptions.master ? { master: clientOptions.master } : {}),
      ...(clientOptions.svcconfig ? { svcconfig: clientOptions.svcconfig } : {}),
      qps: clientOptions.qps,
      burst: clientOptions.burst,
      contentType: clientOptions.contentType,
      userAgent: `svc-run/${definitions.map((d) => d.name).join(',')}`,
    });
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }
  const { client } = connection;
  const informers = createInformerFactory(client, { logger: logger.child({ module: 'informer' }) });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const inspector = new MachineInspector();
  const debugMachines = debugMachinesHandler(inspector);
  // Bind the port before electing, so a port in use fails the start without touching the lock.
  // The /healthz checks come from the host started next (the endpoint reads the list per request).
  const healthChecks: HealthCheck[] = [];
  const server = await startComponentServer({
    securePort: common.securePort,
    bindAddress: common.bindAddress,
    tls,
    http2MaxStreamsPerConnection: common.http2MaxStreamsPerConnection,
    healthChecks,
    registry,
    extraHandlers: [async (req, res) => debugMachines(req, res), ...(common.profiling ? [createProfilingHandler()] : [])],
  }).catch(async (e: unknown) => {
    await connection.close();
    throw e;
  });
  if (server.port) logger.info({ url: `https://${shownHost(common.bindAddress)}:${server.port}` }, 'serving');

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
    onLost: () => ctx.fail(1, `leader election lost: could not renew lock ${lockName} within the renew deadline`),
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
      await connection.close();
    },
  };
}
