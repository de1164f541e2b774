#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The `controller-manager` executable: `controller-manager [flags]` (docs/controller-manager.md).
 *
 * Resolves the flags (an unknown controller in --controllers, or one not built yet named
 * explicitly, is an error before anything starts), binds the secure port (10257: /healthz with a
 * check per controller, /metrics, /debug/machines with every controller's machine and workers,
 * /debug/pprof/), then runs the selected built-in controllers behind one leader-election lock
 * (`svc-controller-manager`). Losing the lease exits 1 at once, as established; SIGTERM drains the
 * reconciles in flight, releases the lock and exits 0.
 */
import { controllerAccounts, startBuiltinControllers } from './builtin-controllers.js';
import { connectWithToken, startControllerHostProcess } from './controller-host-process.js';
import { createControllerManagerProgram, resolveControllerManagerOptions } from './controller-manager-options.js';
import { createLogger } from './logging.js';
import { runDaemon } from './program.js';

await runDaemon({
  program: createControllerManagerProgram(),
  async start(program, ctx) {
    const options = resolveControllerManagerOptions(program.opts());
    const { common, client: clientOptions, leaderElection } = options;
    const logger = createLogger('controller-manager', common.logging);
    ctx.setLogger(logger);

    const host = await startControllerHostProcess({ common, client: clientOptions, component: 'controller-manager', userAgent: 'controller-manager', logger, renewDeadlineMs: leaderElection.enabled ? leaderElection.renewDeadlineMs : 10_000, delegatedAuth: options.delegatedAuth });
    const { connection, electionConnection, informers, registry, inspector, healthChecks, server } = host;
    const { client } = connection;

    // --use-service-account-credentials: each controller's own account and token (before any controller starts).
    const credentials = options.useServiceAccountCredentials
      ? await (await import('./service-account-credentials.js'))
          .tokenCredentials({
            root: client,
            accounts: controllerAccounts(options),
            connect: (tokenSource) => connectWithToken(clientOptions, 'controller-manager', tokenSource),
            logger,
          })
          .catch(async (e: unknown) => {
            await server.close();
            await host.closeConnections();
            throw e;
          })
      : undefined;

    // No --root-ca-file: the CA of the manager's own client configuration, as established.
    if (options.config.rootCA === undefined && clientOptions.svcconfig) {
      const { loadClientConfig } = await import('../client/svcconfig.js');
      const ca = loadClientConfig({ svcconfig: clientOptions.svcconfig }).tls.ca;
      if (ca) options.config = { ...options.config, rootCA: ca };
    }
    const lockName = leaderElection.enabled ? `${leaderElection.lockType}/${leaderElection.resourceNamespace}/${leaderElection.resourceName}` : '';
    const hosted = startBuiltinControllers({
      settings: options,
      client,
      ...(credentials ? { clientFor: credentials.clientFor } : {}),
      informers,
      logger,
      registry,
      leaderElection,
      minResyncPeriodMs: options.minResyncPeriodMs,
      inspect: inspector.inspect,
      electionClient: electionConnection.client,
      onLost: () => logger.warn({ lock: lockName }, 'leader election lost: could not renew the lock within the renew deadline; stepped down, rejoining the election'),
    });
    healthChecks.push(...hosted.healthChecks);
    logger.info({ controllers: hosted.running, leaderElection: leaderElection.enabled ? { lock: lockName, identity: hosted.identity } : false }, 'controller manager started');

    // Timers are unref'd and --secure-port=0 leaves no listener: hold the process open.
    const keepAlive = setInterval(() => {}, 1 << 30);
    return {
      async shutdown() {
        clearInterval(keepAlive);
        await hosted.shutdown();
        await server.close();
        await credentials?.close();
        await host.closeConnections();
      },
    };
  },
});
