/**
 * `svc up [flags]`: the all-in-one mode. One process runs the API server (every `apiserver` flag,
 * `--data-dir` included) and the controller manager (its built-in controllers, `--controllers`
 * and their flags as the `controller-manager` daemon takes them) reaching that server in-process,
 * with leader election on by default (lock `svc-system/svc-controller-manager`, so a second
 * `svc up` sharing one etcd waits as a follower). `--controller-module` (repeatable, this project's
 * addition) adds user controller modules, the same files `svc run` takes. The API server's port
 * also serves `/debug/machines` and `/debug/machines/ui`, and its /metrics carries the
 * controllers' work-queue and leader-election metrics.
 *
 * The scheduler runs here too (`--scheduler=false` leaves it out; `--scheduler-config` is its
 * `--config` file), in-process as `system:svc-scheduler`, behind its own lock `svc-system/svc-scheduler`,
 * with `/debug/scheduler/...` on the API server port.
 *
 * Simulated nodes run here too (`--nodes N`, default 3, or `--node-profile FILE`; `--nodes=0` runs
 * none), in-process as `system:svc-nodes`, so pods created here get bound and really run
 * (simulated); see docs/simulated-nodes.md and `svc nodes`.
 *
 * Secure by default (./svc-up-security.ts): loopback only unless --bind-address, certificates in
 * `<data-dir>/certs`, a cluster CA and an admin client certificate (system:masters) in the written
 * admin.svcconfig, the authorization modes of UP_AUTHORIZATION_MODES; `--insecure-allow-all` is the
 * old allow-everything mode for demos.
 *
 * Losing a lease exits 1 at once (as `svc run`); SIGTERM stops the scheduler and the controllers
 * (draining their work, releasing the locks), then the API server, and exits 0.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { localServerUrl, writeAdminConfig } from './admin-config.js';
import { Registry } from 'prom-client';
import { buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from './apiserver-options.js';
import { leaderElectionFlags, resolveLeaderElectionOptions, resolveMinResyncPeriod, resyncFlags } from './controller-host-options.js';
import { loadControllerModules } from './controller-modules.js';
import { controllerAccounts, startBuiltinControllers } from './builtin-controllers.js';
import { controllerSettingFlags, DEFAULT_CONTROLLER_MANAGER_LOCK, resolveControllerSettings } from './controller-manager-options.js';
import { OptionsError, readFlagFile } from './common-options.js';
import { CLOUD_CONTROLLERS } from '../../controllers/cloud-registry.js';
import { Cloudy } from '../cloud/cloudy/index.js';
import { EXTERNAL_CLOUD_PROVIDER } from '../cloud/registry.js';
import { requestViewer } from './component-server.js';
import { applyFeatureGates, schedulerFeatures } from './scheduler-options.js';
import { defaultConfiguration, parseConfigurationFile, SchedulerConfigError, type SchedulerConfiguration } from '../scheduler/config/index.js';
import { createLogger } from './logging.js';
import { nodeFleetFlags, resolveNodeFleetFlags, startFleetWithEndpoint } from './svc-nodes.js';
import { addFlags, explicitlySetFlags, FlagValues, longFlag } from './option-table.js';
import { versionLine } from './version.js';
import { superviseDaemon, type DaemonStartContext, type RunningDaemon } from './program.js';
import { DEFAULT_AUTHENTICATION } from '../apiserver/auth/config.js';
import { applyUpDefaults, INSECURE_ALLOW_ALL_FLAG, INSECURE_WARNING, prepareUpCredentials, withClusterClientCA } from './svc-up-security.js';
import type { ApiClient, InformerFactory } from '../client/index.js';
import { resources } from '../client/typed.js';

/** The lock of the all-in-one controller host: the controller manager's (spec default). */
export const SVC_UP_LOCK_NAME = DEFAULT_CONTROLLER_MANAGER_LOCK;

export function upCommand(): Command {
  const cmd = createApiServerProgram({
    name: 'up',
    displayName: 'svc up',
    description:
      'Runs the whole control plane in one process: the API server (all apiserver flags apply) and a controller host talking to it in-process, with leader election, /debug/machines and /debug/machines/ui on the API server port.',
    // The cloud is the controllers' here (with cloudy, svc up is also the cloud controller manager).
    omit: ['--cloud-provider', '--cloud-config'],
  });
  addFlags(cmd, [
    ...leaderElectionFlags(SVC_UP_LOCK_NAME),
    ...resyncFlags(),
    {
      flags: '--controller-module',
      type: 'stringArray',
      help: 'A controller module (JavaScript file exporting defineController definitions) to host as well. Repeatable. This project\'s addition.',
    },
    { flags: '--scheduler', type: 'bool', default: true, help: 'Run the scheduler in this process as well. This project\'s addition.' },
    { flags: '--scheduler-config', type: 'string', help: 'The scheduler\'s configuration file (as the scheduler\'s --config). This project\'s addition.' },
    {
      flags: '--insecure-allow-all',
      type: 'bool',
      help: 'Demos only: allow every request (AlwaysAllow) and authenticate no client, as svc up did before it was secure by default. Anyone who can reach the port can do anything. This project\'s addition.',
    },
    { flags: '--reset', type: 'bool', help: 'Start clean: delete the stored objects in --data-dir first (certificates are kept). Embedded store only. This project\'s addition.' },
    ...nodeFleetFlags(3, '--nodes'),
    // The controller manager's own flags (those the API server has too, e.g. --service-cluster-ip-range, are shared).
    ...controllerSettingFlags().filter((row) => !cmd.options.some((o) => o.long === longFlag(row))),
    { flags: '--node-profile', type: 'string', help: 'A YAML file of simulated node groups (see docs/simulated-nodes.md); wins over --nodes and the node shape flags.' },
  ]);
  return cmd.action(async (_opts: unknown, self: Command) => {
    await superviseDaemon({ program: self, start: startUp });
  });
}

async function startUp(program: Command, ctx: DaemonStartContext): Promise<RunningDaemon> {
  const opts = program.opts();
  const explicit = explicitlySetFlags(program);
  const insecure = new FlagValues(opts).bool(INSECURE_ALLOW_ALL_FLAG);
  const options = applyUpDefaults(resolveApiServerOptions(opts, explicit), explicit, insecure);
  const leaderElection = resolveLeaderElectionOptions(opts);
  const minResyncPeriodMs = resolveMinResyncPeriod(opts);
  const flags = new FlagValues(opts);
  const modules = flags.list('--controller-module');
  const logger = createLogger('svc-up', options.common.logging);
  ctx.setLogger(logger);
  const definitions = await loadControllerModules(modules);
  // Under RBAC the controllers run as their own service accounts unless told otherwise: the manager's
  // own role only lists and watches, as established (kubeadm turns this flag on).
  const controllerSettings = resolveControllerSettings(opts, { sharedServiceRange: true });
  if (flags.string('--cloud-provider') === EXTERNAL_CLOUD_PROVIDER) {
    throw new OptionsError(`--cloud-provider=${EXTERNAL_CLOUD_PROVIDER}: svc up runs the cloud controllers itself; use --cloud-provider=cloudy --cloud-config=<file>`);
  }
  // On a cloud, the all-in-one is also the cloud controller manager: cloud-node joins the cloud
  // controllers (its account and role as the others'), and the simulated nodes run on instances.
  if (controllerSettings.config.cloud) controllerSettings.selection.enabled.push(...CLOUD_CONTROLLERS.filter((c) => c.name === 'cloud-node'));
  const cloud = controllerSettings.config.cloud instanceof Cloudy ? controllerSettings.config.cloud : undefined;
  if (!explicit.has('--use-service-account-credentials') && options.authorization.modes.includes('RBAC')) controllerSettings.useServiceAccountCredentials = true;
  const schedulerConfigPath = flags.optionalString('--scheduler-config');
  const nodeFleet = await resolveNodeFleetFlags(opts, '--nodes', '--node-profile');
  // The scheduler here takes the same feature gates as the API server (one --feature-gates).
  const schedulerGates = schedulerFeatures(options.common.featureGates);
  let schedulerConfig: SchedulerConfiguration | undefined;
  if (flags.bool('--scheduler')) {
    try {
      const base = schedulerConfigPath ? parseConfigurationFile(readFlagFile('--scheduler-config', schedulerConfigPath), schedulerConfigPath) : defaultConfiguration();
      schedulerConfig = applyFeatureGates(base, schedulerGates);
    } catch (e) {
      if (e instanceof SchedulerConfigError) throw new OptionsError(`--scheduler-config: invalid configuration: ${e.message}`);
      throw e;
    }
  }

  if (flags.bool('--reset')) {
    if (options.storage.servers.length > 0) throw new OptionsError('--reset clears the embedded store only; with --kvstore-servers, clear etcd yourself (etcdctl del --prefix)');
    for (const f of ['svc.db', 'svc.db-wal', 'svc.db-shm']) rmSync(join(options.dataDir, f), { force: true });
    logger.info({ dataDir: options.dataDir }, 'reset: stored objects deleted');
  }
  const config = await buildApiServerConfig(options, logger);
  const security = await prepareUpCredentials(options.common.tls.certDir, insecure);
  config.authentication = withClusterClientCA(config.authentication ?? DEFAULT_AUTHENTICATION, security);
  // csrsigning signs with the cluster CA the server trusts for client certificates (as kubeadm sets
  // --cluster-signing-*-file), unless those flags name other files.
  if (security.ca && !controllerSettings.config.clusterSigning && !explicit.has('--cluster-signing-cert-file') && !explicit.has('--cluster-signing-key-file')) {
    controllerSettings.config.clusterSigning = { certPem: security.ca.certPem, keyPem: security.ca.keyPem };
  }
  if (insecure) logger.warn(INSECURE_WARNING);
  const registry = new Registry();
  config.extraMetrics = registry;
  // Loaded only now, so --version, --help and flag errors answer without loading the server.
  const { startApiServer } = await import('../apiserver/index.js');
  const { createInformerFactory } = await import('../client/index.js');
  const { connectInProcess, CONTROLLER_USER, inProcessNodeClients, NODES_USER, SCHEDULER_USER } = await import('./in-process-client.js');
  const { debugMachinesHandler, MachineInspector } = await import('../runtime/inspection/index.js');
  const { debugControllersHandler } = await import('../runtime/debug-controllers-handler.js');
  const inspector = new MachineInspector();
  const debugControllers = debugControllersHandler(inspector);
  const { debugSchedulerHandler, PENDING_PODS_PANEL, startScheduler } = await import('../scheduler/index.js');
  // The access panel asks with the server's own loopback identity, once the server runs.
  let accessClient: ApiClient | undefined;
  const access = { client: () => accessClient, identity: 'the API server', viewer: requestViewer };
  // With a cloud, its panel under a cloud controller's card and /debug/cloud (src/cloud/debug-handler.ts).
  const cloudDebugging = controllerSettings.config.cloud
    ? (await import('../cloud/debug-handler.js')).cloudDebug(controllerSettings.config.cloud, controllerSettings.selection.enabled.map((c) => c.name))
    : { panels: [], handlers: [] };
  const debugMachines = debugMachinesHandler(inspector, { panels: [...(schedulerConfig ? [PENDING_PODS_PANEL] : []), ...cloudDebugging.panels], access });
  let scheduler: ReturnType<typeof startScheduler> | undefined;
  const debugScheduler = debugSchedulerHandler(() => scheduler?.scheduler);
  config.extraHandlers = [
    async (req, res) => debugMachines(req, res),
    async (req, res) => debugControllers(req, res),
    ...(schedulerConfig ? [async (req: Parameters<typeof debugScheduler>[0], res: Parameters<typeof debugScheduler>[1]) => debugScheduler(req, res)] : []),
    ...cloudDebugging.handlers,
    ...(config.extraHandlers ?? []),
  ];
  // The root CA pods get (root-ca-cert-publisher, token Secrets): the one the written client configuration trusts.
  if (controllerSettings.config.rootCA === undefined) controllerSettings.config = { ...controllerSettings.config, rootCA: config.tls.cert };
  const api = await startApiServer(config);
  const accessConnection = connectInProcess(api);
  accessClient = accessConnection.client;
  (await import('../apiserver/memory-reclaimer.js')).startMemoryReclaimer({ logger });

  // The default StorageClass (./svc-up-storage.ts), made by the server's own loopback user.
  {
    const setup = connectInProcess(api);
    try {
      const made = await (await import('./svc-up-storage.js')).ensureDefaultStorageClass(setup.client);
      if (made === 'created') logger.info('default StorageClass "standard" (svc.io/simulated) created');
    } finally {
      await setup.close();
    }
  }

  // The controllers call the server's request pipeline directly (no socket, no TLS, values not
  // bytes); authorization, admission and validation still run, as the controller manager's user.
  const connection = connectInProcess(api, { user: CONTROLLER_USER });
  const client = connection.client;
  const informers = createInformerFactory(client, { logger: logger.child({ module: 'informer' }) });
  // --use-service-account-credentials: each built-in controller as its own service account's user.
  const credentials = controllerSettings.useServiceAccountCredentials
    ? await (await import('./service-account-credentials.js')).inProcessCredentials({
        root: client,
        accounts: controllerAccounts(controllerSettings),
        connect: (user) => connectInProcess(api, { user }),
      })
    : undefined;
  // Under RBAC each --controller-module controller runs as svc-system/<its name>, bound to exactly
  // what its definition declares (made by the server's own loopback user: the role may grant more
  // than the controller manager holds), with informers of its own: watches are checked too.
  const modulesAs = new Map<string, { client: ApiClient; informers: InformerFactory; close(): Promise<void> }>();
  if (definitions.length > 0 && options.authorization.modes.includes('RBAC')) {
    const { bindDeclaredPermissions } = await import('./service-account-credentials.js');
    const setup = connectInProcess(api);
    try {
      for (const def of definitions) {
        const own = connectInProcess(api, { user: await bindDeclaredPermissions(setup.client, def, 'svc-system') });
        modulesAs.set(def.name, { client: own.client, informers: createInformerFactory(own.client, { logger: logger.child({ module: 'informer', controller: def.name }) }), close: () => own.close() });
      }
    } finally {
      await setup.close();
    }
  }
  const hosted = startBuiltinControllers({
    settings: controllerSettings,
    extra: definitions,
    client,
    clientFor: (name) => modulesAs.get(name)?.client ?? credentials?.clientFor(name),
    informersFor: (name) => modulesAs.get(name)?.informers,
    informers,
    logger,
    registry,
    leaderElection,
    minResyncPeriodMs,
    inspect: inspector.inspect,
    onLost: () => logger.warn('leader election lost: could not renew the controller lock within the renew deadline; stepped down, rejoining the election'),
  });
  let schedulerConnection: ReturnType<typeof connectInProcess> | undefined;
  let schedulerInformers: ReturnType<typeof createInformerFactory> | undefined;
  if (schedulerConfig) {
    schedulerConnection = connectInProcess(api, { user: SCHEDULER_USER });
    const sle = schedulerConfig.leaderElection;
    schedulerInformers = createInformerFactory(schedulerConnection.client, { logger: logger.child({ module: 'scheduler-informer' }) });
    scheduler = startScheduler({
      client: schedulerConnection.client,
      informers: schedulerInformers,
      configuration: schedulerConfig,
      features: schedulerGates,
      logger: logger.child({ module: 'scheduler' }),
      registry,
      inspect: inspector.inspect,
      leaderElection: leaderElection.enabled
        ? {
            lockType: leaderElection.lockType,
            resourceName: sle.resourceName,
            resourceNamespace: sle.resourceNamespace,
            leaseDurationMs: leaderElection.leaseDurationMs,
            renewDeadlineMs: leaderElection.renewDeadlineMs,
            retryPeriodMs: leaderElection.retryPeriodMs,
            releaseOnStop: true,
          }
        : false,
      onLost: () => logger.warn('leader election lost: could not renew the scheduler lock within the renew deadline; stepped down, rejoining the election'),
    });
  }
  let nodesConnection: ReturnType<typeof connectInProcess> | undefined;
  let nodesInformers: ReturnType<typeof createInformerFactory> | undefined;
  let fleet: import('../nodes/index.js').NodeFleet | undefined;
  let closeFleet: (() => Promise<void>) | undefined;
  let machines: { stop(): void } | undefined;
  if (nodeFleet.shapes.length > 0) {
    if (cloud) nodeFleet.shapes = await (await import('../nodes/cloud-machines.js')).onCloud(nodeFleet.shapes, cloud, nodeFleet.agent.hostname);
    nodesConnection = connectInProcess(api, { user: NODES_USER });
    nodesInformers = createInformerFactory(nodesConnection.client, { logger: logger.child({ module: 'nodes-informer' }) });
    const started = await startFleetWithEndpoint(nodeFleet, {
      client: nodesConnection.client,
      // Each node writes as itself (system:node:<name>), as the Node mode and NodeRestriction expect.
      clientFor: inProcessNodeClients(api),
      informers: nodesInformers,
      logger: logger.child({ module: 'nodes' }),
      inspect: inspector.inspect,
      version: versionLine().split(' ')[1] ?? 'v0.0.0',
    });
    fleet = started.fleet;
    closeFleet = () => started.close();
    if (cloud) machines = (await import('../nodes/cloud-machines.js')).followMachines({ fleet: started.fleet, cloud, periodMs: 1000, logger: logger.child({ module: 'nodes' }) });
  }
  logger.info(
    {
      nodes: nodeFleet.shapes.length,
      scheduler: schedulerConfig ? schedulerConfig.profiles.map((p) => p.schedulerName) : false,
      controllers: [...hosted.running, ...definitions.map((d) => d.name)],
      leaderElection: leaderElection.enabled
        ? { lock: `${leaderElection.lockType}/${leaderElection.resourceNamespace}/${leaderElection.resourceName}`, identity: hosted.identity }
        : false,
    },
    'hosting controllers',
  );

  const serverUrl = localServerUrl(api.url);
  const adminConfig = writeAdminConfig(options.dataDir, serverUrl, config.tls.cert, { clientCertificate: security.admin });
  const registered = fleet ? await fleet.registered(10_000) : 0;
  // The ServiceAccount admission plugin refuses pods until the account they run as exists: "ready"
  // waits (up to 10 s) for the serviceaccount controller's `default` account in `default`, so a pod
  // made right after it is not refused (the established all-in-one tools wait for it too).
  if (hosted.running.includes('serviceaccount') && (config.admissionPlugins ?? []).includes('ServiceAccount')) {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(await client.get(resources.serviceaccounts, 'default', 'default').then(() => true, () => false))) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  // For the person at the terminal: what to copy, once everything is up (logs go to stderr).
  process.stdout.write(
    [
      '',
      `svc is up: the API server, ${schedulerConfig ? 'the scheduler, ' : ''}${hosted.running.length} built-in controller${hosted.running.length === 1 ? '' : 's'}, ${registered} simulated node${registered === 1 ? '' : 's'}${definitions.length ? `, ${definitions.length} controller module${definitions.length === 1 ? '' : 's'}` : ''}`,
      `  API        ${serverUrl}`,
      `  kubectl    export KUBECONFIG=${adminConfig}`,
      `  machines   ${serverUrl}/debug/machines/ui`,
      ...(insecure ? [`  WARNING    ${INSECURE_WARNING}`] : []),
      'ready',
      '',
    ].join('\n'),
  );
  logger.info({ url: serverUrl, adminConfig, nodes: registered, authorizationMode: config.authorization?.modes, insecure }, 'ready');

  return {
    async shutdown() {
      machines?.stop();
      await closeFleet?.();
      nodesInformers?.stop();
      await nodesConnection?.close();
      await scheduler?.stop();
      schedulerInformers?.stop();
      await schedulerConnection?.close();
      await hosted.shutdown();
      await credentials?.close();
      for (const m of modulesAs.values()) {
        m.informers.stop();
        await m.close();
      }
      await connection.close();
      await accessConnection.close();
      await api.shutdown();
    },
  };
}
