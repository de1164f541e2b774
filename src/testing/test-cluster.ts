/**
 * A whole cluster inside a test's process, for testing controllers (the project's own and users'):
 * the real API server on an embedded store in a temporary folder, the built-in controllers named,
 * the scheduler and N simulated nodes, each talking to the server in process, and a client for the
 * test. `stop()` ends it all and removes the folder.
 *
 *   const cluster = await startTestCluster({ controllers: ['replicaset'], nodes: 3 });
 *   await cluster.client.create(resources.replicasets, 'default', rs);
 *   ...
 *   await cluster.stop();
 *
 * Authorization is as a deployed cluster's (`--authorization-mode=Node,RBAC` unless
 * `apiServerArgs` names a mode): each built-in controller calls as its own service account (as
 * --use-service-account-credentials does), and each of `extraControllers` as the service account
 * `default/<controller name>` bound to exactly the ClusterRole its definition declares
 * (src/runtime/controller-permissions.ts: what it watches, owns and is triggered by, its Events,
 * its `permissions`), for its writes and its watches alike. A permission the controller forgot to
 * declare fails its test with the server's 403, as it would in a cluster; `client` is the
 * loopback user (system:masters), for the test's own setup and checks.
 *
 * Unlike a bare API server, namespaces, ReplicaSets and pods here behave as in a cluster (pods run,
 * finish and are removed) as far as the named controllers and the nodes make them. With `clock`,
 * the controllers and the nodes run on that clock (e.g. xstate's SimulatedClock); the API
 * server's own timestamps stay on real time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { concatMap, map, of, timer } from 'rxjs';
import { DEFAULT_CONTROLLER_MANAGER_CONFIG, type ControllerManagerConfig } from '../../controllers/config.js';
import { selectControllers } from '../../controllers/registry.js';
import { startApiServer, type RunningApiServer } from '../apiserver/index.js';
import type { SvcObject } from '../api/types.js';
import type { Clock } from '../client/clock.js';
import { createInformerFactory } from '../client/informer-factory.js';
import type { ApiClient, ResourceRef, WatchOptions } from '../client/types.js';
import { buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from '../cli/apiserver-options.js';
import { controllerAccounts, startBuiltinControllers, type BuiltinControllers } from '../cli/builtin-controllers.js';
import { bindDeclaredPermissions, inProcessCredentials } from '../cli/service-account-credentials.js';
import type { InformerFactory } from '../client/informer-types.js';
import { connectInProcess, CONTROLLER_USER, inProcessNodeClients, NODES_USER, SCHEDULER_USER, type InProcessConnection } from '../cli/in-process-client.js';
import { explicitlySetFlags } from '../cli/option-table.js';
import { groupFromFlags, NodeFleet, nodeShapes, type FleetTimings, type NodeGroup } from '../nodes/index.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { defaultConfiguration } from '../scheduler/config/defaults.js';
import { startScheduler, type RunningScheduler } from '../scheduler/start.js';

export interface TestClusterOptions {
  /** Built-in controllers, as `--controllers` takes them (`['*']` for all built ones); default none. */
  controllers?: readonly string[];
  /** Controllers of your own to run with them (e.g. the one under test). */
  extraControllers?: readonly ControllerDefinition<SvcObject>[];
  /** Settings of the built-in controllers (worker counts, periods). */
  controllerConfig?: Partial<ControllerManagerConfig>;
  /** Run the scheduler (default true). */
  scheduler?: boolean;
  /** Simulated nodes (default 0), all of one shape. */
  nodes?: number;
  nodeShape?: Partial<NodeGroup>;
  /** Node agent timings; default: fast ones suited to tests (50 ms pull, 20 ms start, 1 s lease). */
  nodeTimings?: Partial<FleetTimings>;
  clock?: Clock;
  /** Extra API server flags, e.g. `['--watch-cache=false']`; `--authorization-mode=AlwaysAllow` lifts the RBAC checks. */
  apiServerArgs?: readonly string[];
  /** Logs (default: silent, or the level in SVC_TEST_LOG). */
  logger?: Logger;
}

export interface TestCluster {
  /** A client with every right (the loopback user), in process. */
  readonly client: ApiClient;
  readonly apiServer: RunningApiServer;
  /** The server's HTTPS address on the loopback interface (its CA is apiServer's certificate). */
  readonly url: string;
  readonly controllers: BuiltinControllers;
  readonly scheduler: RunningScheduler | undefined;
  readonly nodes: NodeFleet | undefined;
  /**
   * Holds back the events of the controllers' watches (built-in and `extraControllers`) on
   * `resource` (a plural, `pods`) by `ms` from now on (0: no more): a slow watch, their caches
   * behind their own writes, which is what expectations guard against. Events keep their order.
   */
  delayControllerWatch(resource: string, ms: number): void;
  /** Stops everything (controllers, scheduler, nodes, server) and removes the data folder. */
  stop(): Promise<void>;
}

const TEST_NODE_TIMINGS: Partial<FleetTimings> = { imagePullMs: 50, containerStartMs: 20, leaseRenewMs: 1_000, statusReportMs: 10_000, backoffBaseMs: 500, backoffMaxMs: 5_000 };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startTestCluster(opts: TestClusterOptions = {}): Promise<TestCluster> {
  const logger = opts.logger ?? pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-cluster-'));
  const program = createApiServerProgram();
  program.exitOverride();
  // Everything here talks in process; the HTTPS listener (loopback, a free port) is for kubectl and the like.
  const modeGiven = (opts.apiServerArgs ?? []).some((a) => a === '--authorization-mode' || a.startsWith('--authorization-mode='));
  // As the established test environments, two admission plugins are off unless the caller names
  // them in --enable/--disable-admission-plugins: ServiceAccount (no serviceaccount controller may
  // run to make the `default` account it requires of pods) and TaintNodesByCondition (new nodes get
  // the not-ready NoSchedule taint that only the nodelifecycle controller lifts; on when it runs).
  const given = opts.apiServerArgs ?? [];
  const named = (plugin: string) => given.some((a) => /^--(enable|disable)-admission-plugins/.test(a) && a.includes(plugin));
  const lifecycle = selectControllers(opts.controllers ?? []).enabled.some((c) => c.name === 'nodelifecycle');
  const off = [...(named('ServiceAccount') ? [] : ['ServiceAccount']), ...(lifecycle || named('TaintNodesByCondition') ? [] : ['TaintNodesByCondition'])];
  const ownDisable = given.findIndex((a) => a.startsWith('--disable-admission-plugins='));
  const apiServerArgs = off.length === 0 ? given : ownDisable < 0 ? [`--disable-admission-plugins=${off.join(',')}`, ...given] : given.map((a, i) => (i === ownDisable ? `${a},${off.join(',')}` : a));
  program.parse(
    [`--secure-port=${await freePort()}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, `--cert-dir=${join(dataDir, 'certs')}`, ...(modeGiven ? [] : ['--authorization-mode=Node,RBAC']), ...apiServerArgs],
    { from: 'user' },
  );
  const apiServer = await startApiServer(await buildApiServerConfig(resolveApiServerOptions(program.opts(), explicitlySetFlags(program)), logger.child({ component: 'apiserver' })));
  const connections: InProcessConnection[] = [];
  const connect = (user?: { username: string; groups: string[] }) => {
    const c = connectInProcess(apiServer, user ? { user } : {});
    connections.push(c);
    return c.client;
  };
  const registry = new Registry();

  const watchDelays = new Map<string, number>();
  const controllerClient = delayableWatches(connect(CONTROLLER_USER), watchDelays);
  const controllerInformers = createInformerFactory(controllerClient, { logger: logger.child({ module: 'informer' }) });
  const settings = { selection: selectControllers(opts.controllers ?? []), config: { ...DEFAULT_CONTROLLER_MANAGER_CONFIG, ...opts.controllerConfig }, startIntervalMs: 0, useServiceAccountCredentials: true };
  const root = connect();
  // The built-in controllers as their own accounts (svc-system/<established name>), as svc up runs them.
  const builtinClients = await inProcessCredentials({ root, accounts: controllerAccounts(settings), connect: (user) => connectInProcess(apiServer, { user }) });
  // Each of the user's controllers as default/<name>, bound to exactly what it declares.
  const own = new Map<string, { client: ApiClient; informers: InformerFactory }>();
  for (const def of opts.extraControllers ?? []) {
    const user = await bindDeclaredPermissions(root, def, 'default');
    const client = delayableWatches(connect(user), watchDelays);
    own.set(def.name, { client, informers: createInformerFactory(client, { logger: logger.child({ module: 'informer', controller: def.name }) }) });
  }
  const controllers = startBuiltinControllers({
    settings,
    client: controllerClient,
    clientFor: (name) => own.get(name)?.client ?? builtinClients.clientFor(name),
    informersFor: (name) => own.get(name)?.informers,
    informers: controllerInformers,
    logger: logger.child({ component: 'controller-manager' }),
    registry,
    leaderElection: { enabled: false },
    minResyncPeriodMs: 0,
    onLost: () => {},
    ...(opts.extraControllers ? { extra: opts.extraControllers } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });

  let scheduler: RunningScheduler | undefined;
  let schedulerInformers: ReturnType<typeof createInformerFactory> | undefined;
  if (opts.scheduler ?? true) {
    const client = connect(SCHEDULER_USER);
    schedulerInformers = createInformerFactory(client);
    scheduler = startScheduler({
      client,
      informers: schedulerInformers,
      configuration: defaultConfiguration(),
      logger: logger.child({ component: 'scheduler' }),
      leaderElection: false,
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  }

  let nodes: NodeFleet | undefined;
  let nodeInformers: ReturnType<typeof createInformerFactory> | undefined;
  if ((opts.nodes ?? 0) > 0) {
    const client = connect(NODES_USER);
    nodeInformers = createInformerFactory(client);
    nodes = new NodeFleet({
      client,
      // Each node writes as itself (system:node:<name>), as the Node mode and NodeRestriction expect.
      clientFor: inProcessNodeClients(apiServer),
      informers: nodeInformers,
      shapes: nodeShapes([groupFromFlags({ count: opts.nodes ?? 0, namePrefix: 'node', ...opts.nodeShape })]),
      timings: { ...TEST_NODE_TIMINGS, ...opts.nodeTimings },
      logger: logger.child({ component: 'nodes' }),
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
    nodes.start();
    await nodes.registered(30_000);
  }

  let stopped: Promise<void> | undefined;
  return {
    client: connect(),
    apiServer,
    url: apiServer.url,
    controllers,
    scheduler,
    nodes,
    delayControllerWatch(resource, ms) {
      watchDelays.set(resource, ms);
    },
    stop() {
      stopped ??= (async () => {
        await nodes?.stop();
        nodeInformers?.stop();
        await scheduler?.stop();
        schedulerInformers?.stop();
        await controllers.shutdown();
        for (const o of own.values()) o.informers.stop();
        controllerInformers.stop();
        await builtinClients.close();
        for (const c of connections) await c.close();
        await apiServer.shutdown();
        rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}


/**
 * The client with its watches' events held back by the delay set for their resource at the time
 * each event arrives (read per event, so a test can turn it on and off); order is kept.
 */
function delayableWatches(client: ApiClient, delays: ReadonlyMap<string, number>): ApiClient {
  return {
    ...client,
    watch: <T extends SvcObject>(ref: ResourceRef, o?: WatchOptions) =>
      client.watch<T>(ref, o).pipe(concatMap((ev) => {
        const ms = delays.get(ref.resource) ?? 0;
        return ms > 0 ? timer(ms).pipe(map(() => ev)) : of(ev);
      })),
  };
}
