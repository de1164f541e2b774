/**
 * What the `controller-manager` and `cloud-controller-manager` executables share: from resolved
 * options, host the selected controllers of their list behind their leader-election lock, with
 * the secure port (/healthz with a check per controller, /metrics, /debug/machines) bound first,
 * and each controller's own service-account credentials with --use-service-account-credentials.
 * The two differ only in their flags, their controller list and their name.
 */
import type { Logger } from 'pino';
import { cloudDebug } from '../cloud/debug-handler.js';
import { controllerAccounts, startBuiltinControllers } from './builtin-controllers.js';
import { connectWithToken, startControllerHostProcess } from './controller-host-process.js';
import type { ControllerManagerOptions } from './controller-manager-options.js';

export async function startControllerManagerDaemon(
  options: ControllerManagerOptions,
  logger: Logger,
  o: { component: 'controller-manager' | 'cloud-controller-manager'; startedMessage: string },
): Promise<{ shutdown(): Promise<void> }> {
  const { common, client: clientOptions, leaderElection } = options;
  const host = await startControllerHostProcess({
    common,
    client: clientOptions,
    component: o.component,
    userAgent: o.component,
    logger,
    renewDeadlineMs: leaderElection.enabled ? leaderElection.renewDeadlineMs : 10_000,
    delegatedAuth: options.delegatedAuth,
    ...(options.config.cloud ? { debug: cloudDebug(options.config.cloud, options.selection.enabled.map((c) => c.name)) } : {}),
  });
  const { connection, electionConnection, informers, registry, inspector, healthChecks, server } = host;
  const { client } = connection;

  // --use-service-account-credentials: each controller's own account and token (before any controller starts).
  const credentials = options.useServiceAccountCredentials
    ? await (await import('./service-account-credentials.js'))
        .tokenCredentials({
          root: client,
          accounts: controllerAccounts(options),
          connect: (tokenSource) => connectWithToken(clientOptions, o.component, tokenSource),
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
  logger.info({ controllers: hosted.running, leaderElection: leaderElection.enabled ? { lock: lockName, identity: hosted.identity } : false }, o.startedMessage);

  // Timers are unref'd and --secure-port=0 leaves no listener: hold the process open.
  const keepAlive = setInterval(() => {}, 1 << 30);
  return {
    async shutdown() {
      clearInterval(keepAlive);
      await hosted.shutdown();
      await server.close();
      await credentials?.close();
      await host.closeConnections();
      await options.config.cloud?.close();
    },
  };
}
