#!/usr/bin/env node
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
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { HealthCheck } from '../apiserver/health.js';
import { startBuiltinControllers } from './builtin-controllers.js';
import { OptionsError } from './common-options.js';
import { componentServingCertificates, shownHost, startComponentServer } from './component-server.js';
import { createControllerManagerProgram, resolveControllerManagerOptions } from './controller-manager-options.js';
import { createLogger } from './logging.js';
import { createProfilingHandler } from './profiling.js';
import { runDaemon, warnUnhonouredFlags } from './program.js';

await runDaemon({
  program: createControllerManagerProgram(),
  async start(program, ctx) {
    const options = resolveControllerManagerOptions(program.opts());
    const { common, client: clientOptions, leaderElection } = options;
    const logger = createLogger('controller-manager', common.logging);
    ctx.setLogger(logger);
    warnUnhonouredFlags(program, logger);

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
        userAgent: 'controller-manager',
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
    const tls = await componentServingCertificates(common, 'controller-manager');
    // Bind the port before electing, so a port in use fails the start without touching the lock.
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
    if (server.port) logger.info({ url: `https://${shownHost(common.bindAddress)}:${server.port}` }, 'serving securely');

    const lockName = leaderElection.enabled ? `${leaderElection.lockType}/${leaderElection.resourceNamespace}/${leaderElection.resourceName}` : '';
    const hosted = startBuiltinControllers({
      settings: options,
      client,
      informers,
      logger,
      registry,
      leaderElection,
      minResyncPeriodMs: options.minResyncPeriodMs,
      inspect: inspector.inspect,
      onLost: () => ctx.fail(1, `leader election lost: could not renew lock ${lockName} within the renew deadline`),
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
        await connection.close();
      },
    };
  },
});
