#!/usr/bin/env -S LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The `scheduler` executable: `scheduler [flags]` (docs/scheduler.md).
 *
 * Resolves the flags and `--config` into the effective configuration (`--write-config-to` writes it
 * and exits 0), binds the secure port (10259: /healthz, /metrics, /debug/machines,
 * /debug/scheduler, /debug/pprof/) and the deprecated plain port (10251), then runs the scheduler
 * machine behind leader election. Losing the lease exits 1 at once, as established; SIGTERM stops
 * scheduling, waits for bindings in flight, releases the lock and exits 0.
 */
import { writeFileSync } from 'node:fs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parseDurationMs } from '../api/duration.js';
import type { HealthCheck } from '../apiserver/health.js';
import { OptionsError } from './common-options.js';
import { componentAuth, componentServingCertificates, requestViewer, shownHost, startComponentServer } from './component-server.js';
import { createLogger } from './logging.js';
import { explicitlySetFlags } from './option-table.js';
import { createProfilingHandler } from './profiling.js';
import { runDaemon } from './program.js';
import { applyFeatureGates, createSchedulerProgram, resolveSchedulerOptions } from './scheduler-options.js';
import type { ConfigMap } from '../api/generated/kinds.js';

await runDaemon({
  program: createSchedulerProgram(),
  async start(program, ctx) {
    const options = resolveSchedulerOptions(program.opts(), explicitlySetFlags(program));
    const { common, configuration: cfg } = options;
    const logger = createLogger('scheduler', common.logging);
    ctx.setLogger(logger);
    for (const w of options.warnings) logger.warn(w);

    // Loaded only now, so --help and flag errors answer without loading the scheduler.
    const { DEFAULT_SCHEDULER_NAME, serializeConfiguration, parseLegacyPolicy, profileFromPolicy } = await import('../scheduler/config/index.js');
    if (options.writeConfigTo) {
      writeFileSync(options.writeConfigTo, serializeConfiguration(cfg));
      logger.info({ path: options.writeConfigTo }, 'wrote the effective configuration');
      ctx.finish();
      return { shutdown: async () => {} };
    }

    const { connect, connectForLeaderElection, createInformerFactory, resources } = await import('../client/index.js');
    const { debugMachinesHandler, MachineInspector } = await import('../runtime/inspection/index.js');
    const { debugSchedulerHandler, PENDING_PODS_PANEL, startScheduler } = await import('../scheduler/index.js');
    let connection: ReturnType<typeof connect>;
    let electionConnection: ReturnType<typeof connect>;
    let accessConnection: ReturnType<typeof connect>;
    try {
      const connectOptions = {
        ...(options.master ? { master: options.master } : {}),
        ...(cfg.clientConnection.svcconfig ? { svcconfig: cfg.clientConnection.svcconfig } : {}),
        qps: cfg.clientConnection.qps,
        burst: cfg.clientConnection.burst,
        contentType: cfg.clientConnection.contentType,
        userAgent: 'scheduler',
      };
      connection = connect(connectOptions);
      // The lease's own connection, not throttled by clientConnection.qps: renewals never wait behind bindings.
      electionConnection = connectForLeaderElection(connectOptions, parseDurationMs(cfg.leaderElection.renewDeadline) ?? 10_000);
      // The machines page's access panel reviews on a connection of its own: a matrix of hundreds
      // of SubjectAccessReviews never spends the scheduler's clientConnection.qps or waits before bindings.
      accessConnection = connect({ ...connectOptions, qps: 0, userAgent: 'scheduler/access-panel' });
    } catch (e) {
      throw new OptionsError((e as Error).message);
    }
    const { client } = connection;
    const closeConnections = () => Promise.all([connection.close(), electionConnection.close(), accessConnection.close()]).then(() => undefined);

    if (options.policyConfigMap) {
      const { namespace, name } = options.policyConfigMap;
      const source = `ConfigMap ${namespace}/${name}`;
      const cm = await client.get<ConfigMap>(resources.configmaps, namespace, name).catch((e: unknown) => {
        throw new OptionsError(`--policy-configmap: cannot read ${source}: ${(e as Error).message}`);
      });
      const text = cm.data?.['policy.cfg'];
      if (text === undefined) throw new OptionsError(`--policy-configmap: ${source} has no data key policy.cfg`);
      try {
        const profile = profileFromPolicy(parseLegacyPolicy(text, source), cfg.profiles[0]?.schedulerName ?? DEFAULT_SCHEDULER_NAME, source);
        cfg.profiles = applyFeatureGates({ ...cfg, profiles: [profile] }, options.features).profiles;
      } catch (e) {
        throw new OptionsError(`invalid configuration: ${(e as Error).message}`);
      }
      logger.warn({ source }, 'the legacy policy is deprecated: it was translated onto plugins; write a --config file instead');
    }

    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const inspector = new MachineInspector();
    const debugMachines = debugMachinesHandler(inspector, { panels: [PENDING_PODS_PANEL], access: { client: () => accessConnection.client, identity: 'the scheduler', viewer: requestViewer } });
    let running: ReturnType<typeof startScheduler> | undefined;
    const debugScheduler = debugSchedulerHandler(() => running?.scheduler);
    const healthChecks: HealthCheck[] = [{ name: 'ping', check: () => undefined }];
    const tls = await componentServingCertificates(common, 'scheduler');
    const profiling = cfg.enableProfiling ? createProfilingHandler() : undefined;
    const auth = await componentAuth(common, options.delegatedAuth, logger, 'scheduler').catch(async (e: unknown) => {
      await closeConnections();
      throw e;
    });
    // Bind the ports before electing, so a port in use fails the start without touching the lock.
    const server = await startComponentServer({
      securePort: common.securePort,
      bindAddress: common.bindAddress,
      tls,
      http2MaxStreamsPerConnection: common.http2MaxStreamsPerConnection,
      healthChecks,
      registry,
      plain: options.insecure,
      ...(auth ? { auth } : {}),
      extraHandlers: [
        async (req, res) => debugMachines(req, res),
        async (req, res) => debugScheduler(req, res),
        ...(profiling ? [profiling] : []),
      ],
    }).catch(async (e: unknown) => {
      await closeConnections();
      throw e;
    });
    const host = shownHost(common.bindAddress);
    if (server.port) logger.info({ url: `https://${host}:${server.port}` }, 'serving securely');
    if (server.plainPort) logger.warn({ url: `http://${options.insecure.address}:${server.plainPort}` }, 'serving insecurely on the deprecated --port (no authentication); pass --port=0 to turn it off');

    const le = cfg.leaderElection;
    const informers = createInformerFactory(client, { logger: logger.child({ module: 'informer' }) });
    running = startScheduler({
      client,
      informers,
      configuration: cfg,
      features: options.features,
      logger,
      registry,
      inspect: inspector.inspect,
      leaderElection: le.leaderElect
        ? {
            lockType: le.resourceLock as 'leases',
            resourceName: le.resourceName,
            resourceNamespace: le.resourceNamespace,
            leaseDurationMs: parseDurationMs(le.leaseDuration)!,
            renewDeadlineMs: parseDurationMs(le.renewDeadline)!,
            retryPeriodMs: parseDurationMs(le.retryPeriod)!,
            releaseOnStop: true,
          }
        : false,
      electionClient: electionConnection.client,
      onLost: () =>
        logger.warn(
          { lock: `${le.resourceLock}/${le.resourceNamespace}/${le.resourceName}` },
          'leader election lost: could not renew the lock within the renew deadline; stepped down, rejoining the election',
        ),
    });
    const current = running;
    healthChecks.push({
      name: 'scheduler',
      // Read per check: a step-down replaces the machine (it is `stopped` only in between).
      check: () => {
        const snap = current.actor.getSnapshot();
        return snap.status === 'active' || (snap.value === 'stopped' && current.election?.actor.getSnapshot().matches('steppingDown'))
          ? undefined
          : `the scheduler machine ended (${JSON.stringify(snap.value)})`;
      },
    });
    logger.info(
      {
        profiles: cfg.profiles.map((p) => p.schedulerName),
        leaderElection: le.leaderElect ? { lock: `${le.resourceLock}/${le.resourceNamespace}/${le.resourceName}`, identity: running.election?.config.identity } : false,
      },
      'scheduler started',
    );
    // Timers are unref'd and --secure-port=0 --port=0 leaves no listener: hold the process open.
    const keepAlive = setInterval(() => {}, 1 << 30);
    return {
      async shutdown() {
        clearInterval(keepAlive);
        await running?.stop();
        informers.stop();
        await server.close();
        await closeConnections();
      },
    };
  },
});
