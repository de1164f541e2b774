/**
 * What a process that hosts controllers needs before its controllers start (`svc run`,
 * `controller-manager`; `svc nodes` uses the connection part): a client from the API client
 * flags (a bad svcconfig or master is an OptionsError), a second one for the leader-election
 * lock, its informer factory, a metrics registry,
 * a machine inspector, and the secure port serving /healthz, /metrics, /debug/machines(+ui) and,
 * with --profiling, /debug/pprof/. The port is bound before any election, so a port in use fails
 * the start without touching a lock; `healthChecks` is read per request, so the host's checks can
 * be added once the controllers exist.
 */
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { HealthCheck } from '../apiserver/health.js';
import type { Connection } from '../client/connect.js';
import type { TokenSource } from '../client/file-token-source.js';
import type { InformerFactory } from '../client/informer-types.js';
import type { DetailPanel, MachineInspector } from '../runtime/inspection/index.js';
import { OptionsError, type CommonOptions } from './common-options.js';
import { componentAuth, componentServingCertificates, requestViewer, shownHost, startComponentServer, type ComponentServer, type ExtraHandler } from './component-server.js';
import type { DelegatedAuthOptions } from './delegated-auth-flags.js';
import type { ApiClientOptions } from './controller-host-options.js';
import { createProfilingHandler } from './profiling.js';

/**
 * A client for the API client flags (with `leaderElectionTimeoutMs`: the lock's own, unthrottled
 * connection, each request bounded by that, see connectForLeaderElection). Loaded lazily, so --help and flag errors answer fast.
 */
export async function connectFromFlags(o: ApiClientOptions, userAgent: string, leaderElectionTimeoutMs?: number): Promise<Connection> {
  const { connect, connectForLeaderElection } = await import('../client/index.js');
  try {
    const opts = {
      ...(o.master ? { master: o.master } : {}),
      ...(o.svcconfig ? { svcconfig: o.svcconfig } : {}),
      qps: o.qps,
      burst: o.burst,
      contentType: o.contentType,
      userAgent,
    };
    return leaderElectionTimeoutMs === undefined ? connect(opts) : connectForLeaderElection(opts, leaderElectionTimeoutMs);
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }
}

/**
 * A client for the API client flags' server and CA with no credential but `tokenSource`'s bearer
 * token (a controller's own service account; the established AnonymousClientConfig plus a token).
 */
export async function connectWithToken(o: ApiClientOptions, userAgent: string, tokenSource: TokenSource): Promise<Connection> {
  const { createClient, HttpTransport, loadClientConfig } = await import('../client/index.js');
  try {
    const cfg = loadClientConfig({ ...(o.master ? { master: o.master } : {}), ...(o.svcconfig ? { svcconfig: o.svcconfig } : {}) });
    const { cert: _cert, key: _key, ...tls } = cfg.tls;
    const { token: _token, tokenFile: _file, ...rest } = cfg;
    const transport = new HttpTransport({ ...rest, tls }, { qps: o.qps, burst: o.burst, contentType: o.contentType, userAgent, tokenSource });
    return { client: createClient(transport, {}), transport, close: () => transport.close() };
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }
}

export interface ControllerHostProcess {
  connection: Connection;
  /** The leader-election lock's own connection (no rate limit, not pooled with the work). */
  electionConnection: Connection;
  /** Closes both connections. */
  closeConnections(): Promise<void>;
  informers: InformerFactory;
  registry: Registry;
  inspector: MachineInspector;
  healthChecks: HealthCheck[];
  server: ComponentServer;
}

export async function startControllerHostProcess(o: {
  common: CommonOptions;
  client: ApiClientOptions;
  component: string;
  userAgent: string;
  logger: Logger;
  /** The renew deadline: bounds each request of the leader-election client. */
  renewDeadlineMs: number;
  /** The secure port's delegated authentication and authorization (the controller manager); absent: none (svc run). */
  delegatedAuth?: DelegatedAuthOptions;
  /** More of /debug on the secure port (the cloud's, with a cloud provider): detail panels on the machines page and their handlers. */
  debug?: { panels: readonly DetailPanel[]; handlers: readonly ExtraHandler[] };
}): Promise<ControllerHostProcess> {
  const tls = await componentServingCertificates(o.common, o.component);
  const auth = o.delegatedAuth ? await componentAuth(o.common, o.delegatedAuth, o.logger, o.userAgent) : undefined;
  const connection = await connectFromFlags(o.client, o.userAgent);
  const electionConnection = await connectFromFlags(o.client, o.userAgent, o.renewDeadlineMs);
  // The machines page's access panel reviews on a connection of its own, not spending the controllers' QPS.
  const accessConnection = await connectFromFlags({ ...o.client, qps: 0 }, `${o.userAgent}/access-panel`);
  const closeConnections = () => Promise.all([connection.close(), electionConnection.close(), accessConnection.close()]).then(() => undefined);
  const { createInformerFactory } = await import('../client/index.js');
  const { debugMachinesHandler, MachineInspector } = await import('../runtime/inspection/index.js');
  const { debugControllersHandler } = await import('../runtime/debug-controllers-handler.js');
  const informers = createInformerFactory(connection.client, { logger: o.logger.child({ module: 'informer' }) });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const inspector = new MachineInspector();
  const debugMachines = debugMachinesHandler(inspector, { panels: o.debug?.panels ?? [], access: { client: () => accessConnection.client, identity: `the ${o.component}`, viewer: requestViewer } });
  const debugControllers = debugControllersHandler(inspector);
  const healthChecks: HealthCheck[] = [];
  const server = await startComponentServer({
    securePort: o.common.securePort,
    bindAddress: o.common.bindAddress,
    tls,
    http2MaxStreamsPerConnection: o.common.http2MaxStreamsPerConnection,
    healthChecks,
    registry,
    ...(auth ? { auth } : {}),
    extraHandlers: [async (req, res) => debugMachines(req, res), async (req, res) => debugControllers(req, res), ...(o.debug?.handlers ?? []), ...(o.common.profiling ? [createProfilingHandler()] : [])],
  }).catch(async (e: unknown) => {
    await closeConnections();
    throw e;
  });
  if (server.port) o.logger.info({ url: `https://${shownHost(o.common.bindAddress)}:${server.port}` }, 'serving securely');
  return { connection, electionConnection, closeConnections, informers, registry, inspector, healthChecks, server };
}
