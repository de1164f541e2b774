/**
 * The API server: `startApiServer(config)` opens storage, fills the watch caches, ensures the
 * system namespaces and serves HTTPS until `shutdown()`.
 */
import { builtinResources, ResourceRegistry } from '../api/index.js';
import { clusterRoleBindingDefinition, clusterRoleDefinition, roleBindingDefinition, roleDefinition } from '../api/kinds/index.js';
import type { ResourceDefinition } from '../api/types.js';
import { memoryReleased } from './memory-reclaimer.js';
import { readAs, storageDefinition, writeAs } from '../api/versions.js';
import { openStorage, startCompactor, startCountPoller } from '../storage/index.js';
import { WatchCache } from '../storage/watch-cache.js';
import { buildAdmission } from './admission/plugins.js';
import { AdmissionMetrics } from './admission/metrics.js';
import type { ApiServerConfig } from './config.js';
import { CrdController } from './crd-controller.js';
import { buildAuthentication } from './auth/authenticators.js';
import { buildAuthorizer } from './auth/authorization-modes.js';
import { publishExtensionAuthentication } from './auth/extension-authentication-configmap.js';
import { DEFAULT_AUTHENTICATION, DEFAULT_AUTHORIZATION } from './auth/config.js';
import { BootstrapPolicy } from './auth/rbac/bootstrap-reconciler.js';
import { escalationGuards } from './auth/rbac/escalation.js';
import { RbacPolicyIndex } from './auth/rbac/policy-index.js';
import { issuerDiscovery, tokenRequestSettings } from './auth/service-account-setup.js';
import { Discovery } from './discovery.js';
import { OpenApiDocuments } from './openapi.js';
import { HealthEndpoint, type HealthCheck } from './health.js';
import { ApiServerMetrics } from './metrics.js';
import { ResourceStore, type ResourceStoreOptions } from './resource-store.js';
import type { ApiServices } from './scope.js';
import { ApiHttpServer, type RequestPipeline } from './server.js';
import { decodeFromStorage, encodeForStorage } from './stored-object.js';
import { type RequiredObjects, SystemObjects, systemNamespaceObjects, systemPriorityClassObjects } from './system-objects.js';
import { WatchRegistry } from './watch-registry.js';
import { Auditor } from './audit/auditor.js';
import { DynamicBackend } from './audit/dynamic-backend.js';
import { MasterService } from './services/master-service.js';
import { ServiceRangeRepair } from './services/repair.js';
import { ServiceAllocations } from './services/service-allocation.js';
import type { WriteHooks } from './write-hooks.js';
import { csrWriteHooks, isCsrDefinition } from './csr-strategy.js';
import { Aggregator } from './aggregator/aggregator.js';
import { DEFAULT_IDENTITY_HEADERS } from './aggregator/proxy.js';
import { FlowControl } from './flowcontrol/flow-control.js';

export type { ApiServerConfig } from './config.js';
export type { RequestPipeline } from './server.js';
export type { UserInfo } from './auth/user.js';
export * from './in-process-transport.js';

export interface RunningApiServer {
  /** https://host:port of the listener. */
  url: string;
  port: number;
  /** The request pipeline, for in-process calls (see ./in-process-transport.ts). */
  pipeline: RequestPipeline;
  /** Graceful shutdown: readyz fails, then (after --shutdown-delay-duration) serving stops cleanly. */
  shutdown(): Promise<void>;
}

/**
 * How a kind served in several versions reads and writes its one stored copy (src/api/versions.ts);
 * nothing for a kind with one version, which keeps the byte-for-byte fast paths.
 */
function versionCodec(def: ResourceDefinition, all: readonly ResourceDefinition[]): Pick<ResourceStoreOptions, 'decode' | 'encode'> {
  const stored = storageDefinition(def);
  const siblings = all.filter((d) => storageDefinition(d) === stored);
  if (siblings.length < 2) return {};
  const read = readAs(def, siblings);
  return {
    decode: (value, rev) => read(decodeFromStorage(value, rev)),
    encode: (obj) => encodeForStorage(writeAs(def, obj)),
  };
}

function watchCacheSize(config: ApiServerConfig, def: ResourceDefinition): number {
  if (!config.watchCache.enabled) return 0;
  const sizes = config.watchCache.sizes;
  const qualified = def.group ? `${def.plural}.${def.group}` : def.plural;
  return sizes[qualified] ?? sizes[def.plural] ?? def.watchCacheSize ?? config.watchCache.defaultSize;
}

/** How long the health checks wait for the storage (as the established etcd health check: 2 s). */
const STORAGE_CHECK_TIMEOUT_MS = 2_000;

export async function startApiServer(config: ApiServerConfig): Promise<RunningApiServer> {
  const logger = config.logger;
  const registry = new ResourceRegistry(builtinResources(), config.runtimeConfig);
  const storage = await openStorage(config.storage, logger);
  const stores = new Map<ResourceDefinition, ResourceStore>();
  const caches: WatchCache[] = [];
  const defs = registry.enabledResources();
  try {
    const all = registry.allResources();
    // A storage version turned off by --runtime-config still has a store (uncached, unserved):
    // the server's own reads use it (pod eviction reads policy/v1 budgets).
    const withStorage = [...new Set([...defs, ...defs.map(storageDefinition)])];
    await Promise.all(
      withStorage.map(async (def) => {
        const stored = storageDefinition(def);
        const kv = storage.forResource(stored.group, stored.plural);
        // One watch cache per stored resource, at its storage version (the preferred one, which
        // clients and informers use); other versions read and watch the store, converting.
        const size = defs.includes(def) && !def.conversion ? watchCacheSize(config, def) : 0;
        const codec = versionCodec(def, all);
        const probe = new ResourceStore({ def, kv, storagePrefix: config.storage.prefix, continueTokenTtlMs: config.continueTokenTtlMs, logger });
        let cache: WatchCache | undefined;
        if (size > 0) {
          cache = new WatchCache({ store: kv, prefix: probe.keys.resourcePrefix, capacity: size, decode: codec.decode ?? decodeFromStorage, onHistoryReleased: memoryReleased, logger: logger.child({ cache: def.plural }) });
          await cache.start();
          caches.push(cache);
        }
        stores.set(def, new ResourceStore({ def, kv, cache, ...codec, storagePrefix: config.storage.prefix, continueTokenTtlMs: config.continueTokenTtlMs, logger }));
      }),
    );
  } catch (err) {
    for (const c of caches) c.stop();
    await storage.close();
    throw err;
  }

  const nsDef = registry.lookup('', 'v1', 'namespaces');
  if (!nsDef) throw new Error('--runtime-config cannot disable v1: the core group (namespaces) is required');
  const nsStore = stores.get(nsDef)!;
  const watches = new WatchRegistry();
  let crds: CrdController | undefined;
  const metrics = new ApiServerMetrics(() => watches.countsByResource());
  // Services' cluster IPs and node ports: allocated on the write path, kept in the services' store.
  const svcDef = registry.lookup('', 'v1', 'services');
  const svcStore = svcDef && stores.get(svcDef);
  const allocations = svcStore
    ? new ServiceAllocations(svcStore.kv, config.storage.prefix, { clusterIPRanges: config.services.clusterIPRanges, nodePortRange: config.services.nodePortRange, requestTimeoutMs: config.requestTimeoutMs }, logger.child({ module: 'service-allocation' }))
    : undefined;
  const hooks = new Map<ResourceDefinition, WriteHooks>();
  // Keeps default/kubernetes and its Endpoints; started once the port is known, in the background
  // (as the established bootstrap controller: readiness does not wait for it).
  let master: MasterService | undefined;
  if (svcDef && allocations) hooks.set(svcDef, allocations);
  // CertificateSigningRequests: the requester's identity on create, what status and approval may change.
  const csrDef = registry.allResources().find(isCsrDefinition);
  if (csrDef) hooks.set(csrDef, csrWriteHooks(Date.now));
  const storeFor = (def: ResourceDefinition): ResourceStore => {
    const s = stores.get(def) ?? crds?.storeFor(def);
    if (!s) throw new Error(`no store for ${def.plural}`);
    return s;
  };
  const authLogger = logger.child({ module: 'auth' });
  // The RBAC policy in memory: made when the RBAC mode or an escalation check first needs it.
  let rbacPolicy: Promise<RbacPolicyIndex> | undefined;
  const rbacPolicyIndex = () => (rbacPolicy ??= RbacPolicyIndex.start(storeFor, authLogger.child({ mode: 'RBAC' })));
  const authContext = { registry, storeFor, rbacPolicy: rbacPolicyIndex, logger: authLogger };
  // Escalation prevention on the four RBAC kinds (./auth/rbac/escalation.ts).
  for (const [def, guard] of escalationGuards({ authorizer: () => services.authorizer, policy: rbacPolicyIndex })) {
    if (registry.allResources().includes(def)) hooks.set(def, guard);
  }
  const authentication = config.authentication ?? DEFAULT_AUTHENTICATION;
  // The default jwks_uri: this server's external address (known once it listens).
  const externalAddress = () => {
    const a = config.services.advertiseAddress;
    return a.includes(':') ? `[${a}]:${port}` : `${a}:${port}`;
  };
  const tokenRequests = tokenRequestSettings(authentication, Date.now);
  const openid = issuerDiscovery(authentication, externalAddress, authContext.logger);
  const sa = authentication.serviceAccounts;
  if (sa) authContext.logger.info({ issuers: sa.issuers, lookup: sa.lookup, tokenRequest: tokenRequests !== undefined, issuerDiscovery: openid !== undefined }, 'service account tokens accepted');
  const authorizer = await buildAuthorizer({ ...authContext, config: config.authorization ?? DEFAULT_AUTHORIZATION });
  const services: ApiServices = {
    config,
    authentication: await buildAuthentication({ ...authContext, config: authentication }),
    authorizer,
    admission: buildAdmission(config.admissionPlugins, { registry, storeFor, metrics: new AdmissionMetrics(metrics.registry), featureGates: config.featureGates, authorizer: () => authorizer, ...(config.defaultTolerationSeconds ? { defaultTolerationSeconds: config.defaultTolerationSeconds } : {}), ...(config.admissionPluginConfigurations ? { pluginConfigurations: config.admissionPluginConfigurations } : {}), ...(config.proxyClient ? { proxyClient: config.proxyClient } : {}), ...(config.volumeLabeler ? { volumeLabeler: config.volumeLabeler } : {}), logger: logger.child({ module: 'admission' }) }),
    storeFor,
    ...(tokenRequests ? { serviceAccountTokens: tokenRequests } : {}),
    ...(openid ? { issuerDiscovery: openid } : {}),
    customResources: { isTerminating: (def) => crds?.isTerminating(def) ?? false },
    watches,
    writeHooks: (def) => hooks.get(def),
    now: Date.now,
    logger,
  };

  const required: RequiredObjects[] = [{ def: nsDef, store: nsStore, objects: systemNamespaceObjects }];
  const pcDef = registry.lookup('scheduling.svc.io', 'v1', 'priorityclasses');
  const pcStore = pcDef && stores.get(pcDef);
  if (pcDef && pcStore) required.push({ def: pcDef, store: pcStore, objects: systemPriorityClassObjects });
  const systemObjects = new SystemObjects(required, Date.now, logger);
  await systemObjects.ensure();
  systemObjects.start();
  // The default RBAC policy, reconciled before the first request (as the established post-start hook).
  const rbacEnabled = [clusterRoleDefinition, clusterRoleBindingDefinition, roleDefinition, roleBindingDefinition].every((d) => defs.includes(d));
  const bootstrapPolicy = rbacEnabled ? new BootstrapPolicy(storeFor, Date.now, logger.child({ module: 'rbac-bootstrap' })) : undefined;
  await bootstrapPolicy?.start();

  // API Priority and Fairness: its configuration followed (and the bootstrap objects kept) before the first request.
  let flowControl: FlowControl | undefined;
  if (config.priorityAndFairness) {
    const fsDef = registry.lookup('flowcontrol.apiserver.svc.io', 'v1beta1', 'flowschemas');
    const plDef = registry.lookup('flowcontrol.apiserver.svc.io', 'v1beta1', 'prioritylevelconfigurations');
    if (!fsDef || !plDef) {
      for (const c of caches) c.stop();
      await storage.close();
      throw new Error('--enable-priority-and-fairness needs flowcontrol.apiserver.svc.io/v1beta1, which --runtime-config disabled');
    }
    flowControl = new FlowControl({
      flowSchemas: { def: fsDef, store: stores.get(fsDef)! },
      priorityLevels: { def: plDef, store: stores.get(plDef)! },
      serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight,
      // Established: a quarter of the request timeout.
      requestWaitLimitMs: config.requestTimeoutMs / 4,
      registry: metrics.registry,
      now: Date.now,
      logger: logger.child({ module: 'priority-and-fairness' }),
    });
    await flowControl.start();
  }

  // What this server trusts, published for the servers that delegate authentication to it.
  const cmDef = registry.lookup('', 'v1', 'configmaps');
  const cmStore = cmDef && stores.get(cmDef);
  const stopPublishing = cmDef && cmStore
    ? await publishExtensionAuthentication(config.authentication ?? DEFAULT_AUTHENTICATION, { def: cmDef, store: cmStore }, Date.now, logger.child({ module: 'auth' }))
    : undefined;

  // The ranges are rebuilt from the Services before the first request (a crash may have leaked).
  const eventDef = registry.lookup('', 'v1', 'events');
  const eventStore = eventDef && stores.get(eventDef);
  const repair =
    svcStore && allocations
      ? new ServiceRangeRepair({
          allocations,
          services: svcStore,
          ...(eventDef && eventStore ? { events: { def: eventDef, store: eventStore } } : {}),
          logger: logger.child({ module: 'service-range-repair' }),
          intervalMs: config.services.repairIntervalMs,
        })
      : undefined;
  if (repair) {
    // A failed first pass does not stop the server: the loop tries again (allocations work meanwhile
    // unless the range changed, which only this pass fixes).
    await repair.runOnce().catch((err: unknown) => logger.warn({ err }, 'repairing the Service ranges at start failed; the repair loop retries'));
    repair.start();
  }

  // Custom resources: served from the CRDs in storage before the server reports ready.
  const crdDef = registry.lookup('apiextensions.svc.io', 'v1', 'customresourcedefinitions');
  if (crdDef) {
    crds = new CrdController({
      crdStore: stores.get(crdDef)!,
      registry,
      storage,
      config,
      watches,
      cacheSize: (def) => watchCacheSize(config, def),
      now: Date.now,
      logger,
    });
    await crds.start();
  }

  const epStoreFor = () => {
    const d = registry.lookup('', 'v1', 'endpoints');
    return d && stores.get(d);
  };
  const compactors = storage.stores().map((kv) => startCompactor(kv, config.storage.compactionIntervalMs, { logger }));
  // One count per stored resource: the versions of one kind share their objects.
  const counted = [...new Map(defs.map((def) => [stores.get(def)!.keys.resourcePrefix, def])).values()];
  const pollers = counted.map((def) => {
    const stored = storageDefinition(def);
    return startCountPoller(stores.get(def)!.kv, stores.get(def)!.keys.resourcePrefix, config.storage.countMetricPollPeriodMs, (n: number) =>
      metrics.objects.set({ resource: stored.group ? `${stored.plural}.${stored.group}` : stored.plural }, n),
    );
  });

  let shuttingDown = false;
  const startedAt = Date.now();
  const storageCheck: HealthCheck = {
    name: 'kvstore',
    // A store that does not answer (etcd stopped, not gone) fails the check at the deadline
    // instead of holding /healthz, /livez and /readyz open.
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`the storage did not answer within ${STORAGE_CHECK_TIMEOUT_MS / 1000}s`), STORAGE_CHECK_TIMEOUT_MS);
        timer.unref();
      });
      try {
        return await Promise.race([storage.forResource('', 'namespaces').currentRevision().then(() => undefined), deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const log: HealthCheck = { name: 'log', check: () => undefined };
  const bootstrap: HealthCheck = {
    name: 'poststarthook/bootstrap-system-namespaces',
    check: () => (systemObjects.ready || Date.now() - startedAt < config.livezGracePeriodMs ? undefined : 'not finished'),
  };
  const rbacBootstrap: HealthCheck = {
    name: 'poststarthook/rbac/bootstrap-roles',
    check: () => (!bootstrapPolicy || bootstrapPolicy.ready || Date.now() - startedAt < config.livezGracePeriodMs ? undefined : 'not finished'),
  };
  const apfBootstrap: HealthCheck[] = flowControl
    ? [{
        name: 'poststarthook/priority-and-fairness-config-producer',
        check: () => (flowControl.ready || Date.now() - startedAt < config.livezGracePeriodMs ? undefined : 'not finished'),
      }]
    : [];
  const cachesReady: HealthCheck = { name: 'informer-sync', check: () => undefined };
  const shutdownCheck: HealthCheck = { name: 'shutdown', check: () => (shuttingDown ? 'process is shutting down' : undefined) };
  const health = [
    new HealthEndpoint('/healthz', [ping, log, storageCheck, bootstrap, rbacBootstrap, ...apfBootstrap]),
    new HealthEndpoint('/livez', [ping, log, storageCheck, bootstrap, rbacBootstrap, ...apfBootstrap]),
    new HealthEndpoint('/readyz', [ping, log, storageCheck, bootstrap, rbacBootstrap, ...apfBootstrap, cachesReady, shutdownCheck]),
  ];

  let port = config.securePort;
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' || config.bindAddress === '' ? '127.0.0.1' : config.bindAddress;
  const hostPort = () => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
  const discovery = new Discovery(registry, hostPort, { serviceAccountToken: tokenRequests !== undefined });
  const version = {
    major: config.version.major,
    minor: config.version.minor,
    gitVersion: config.version.gitVersion,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    goVersion: `node ${process.version}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch}`,
  };
  // The aggregation layer, once the custom resources are served (their APIServices are kept too).
  const apiServiceDef = registry.lookup('apiregistration.svc.io', 'v1', 'apiservices');
  const apiServiceStore = apiServiceDef && stores.get(apiServiceDef);
  let aggregator: Aggregator | undefined;
  if (apiServiceDef && apiServiceStore) {
    const rh = (config.authentication ?? DEFAULT_AUTHENTICATION).requestHeader;
    aggregator = new Aggregator({
      registry,
      apiServices: { def: apiServiceDef, store: apiServiceStore },
      ...(svcStore ? { services: svcStore } : {}),
      ...(epStoreFor() ? { endpoints: epStoreFor()! } : {}),
      ...(config.aggregator?.proxyClient ? { proxyClient: config.aggregator.proxyClient } : {}),
      endpointRouting: config.aggregator?.endpointRouting ?? false,
      // The first name of each --requestheader-* list: what extension servers read from the ConfigMap.
      identityHeaders: {
        user: rh?.usernameHeaders[0] ?? DEFAULT_IDENTITY_HEADERS.user,
        group: rh?.groupHeaders[0] ?? DEFAULT_IDENTITY_HEADERS.group,
        extraPrefix: rh?.extraHeaderPrefixes[0] ?? DEFAULT_IDENTITY_HEADERS.extraPrefix,
      },
      bodyLimit: config.inputLimits.maxRequestBodyBytes,
      onDiscoveryChange: () => discovery.invalidate(),
      now: Date.now,
      logger: logger.child({ module: 'aggregator' }),
    });
    discovery.setExtensions(aggregator);
    await aggregator.start();
  }
  const openapi = new OpenApiDocuments(registry, config.version.gitVersion);
  // Dynamic audit: the AuditSinks, read from the watch cache (the kind must be served).
  let dynamicAudit: DynamicBackend | undefined;
  if (config.audit?.dynamic) {
    const sinkDef = registry.lookup('auditregistration.svc.io', 'v1alpha1', 'auditsinks');
    if (!sinkDef) {
      aggregator?.stop();
      crds?.stop();
      flowControl?.stop();
      for (const c of caches) c.stop();
      await storage.close();
      throw new Error('--audit-dynamic-configuration needs the auditregistration.k8s.io/v1alpha1 API (an alpha API, off by default): add --runtime-config=auditregistration.k8s.io/v1alpha1=true');
    }
    const sinks = storeFor(sinkDef);
    const peek = (plural: string) => {
      const def = registry.lookup('', 'v1', plural);
      return async (ns: string, name: string) => (def ? storeFor(def).peek(ns, name) : undefined);
    };
    dynamicAudit = new DynamicBackend({
      sinks: async () => (await sinks.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object),
      service: peek('services'),
      endpoints: peek('endpoints'),
      logger: logger.child({ module: 'audit-dynamic' }),
    });
    await dynamicAudit.start();
  }
  // The audit log file is created now: a path that cannot be written stops the start.
  const auditor = config.audit ? new Auditor(config.audit, logger.child({ module: 'audit' }), metrics.registry, dynamicAudit) : undefined;
  const http = new ApiHttpServer({ config, registry, services, discovery, openapi, health, metrics, version, logger, ...(auditor ? { auditor } : {}), ...(aggregator ? { aggregator } : {}), ...(flowControl ? { flowControl } : {}) });
  try {
    port = await http.listen();
  } catch (err) {
    aggregator?.stop();
    crds?.stop();
    flowControl?.stop();
    authorizer.close();
    for (const c of caches) c.stop();
    await storage.close();
    throw err;
  }
  logger.info({ url: `https://${hostPort()}`, storage: config.storage.servers.length ? 'etcd3' : 'embedded' }, 'serving');

  // default/kubernetes and its Endpoints, now that the port is known.
  const epDef = registry.lookup('', 'v1', 'endpoints');
  const epStore = epDef && stores.get(epDef);
  const leaseDef = registry.lookup('coordination.svc.io', 'v1', 'leases');
  const leaseStore = leaseDef && stores.get(leaseDef);
  if (svcDef && svcStore && allocations && epDef && epStore) {
    const reconciler = config.services.endpointReconcilerType;
    if (reconciler === 'lease' && !(leaseDef && leaseStore)) {
      logger.warn('--endpoint-reconciler-type=lease needs coordination.svc.io/v1 leases, which --runtime-config disabled: the kubernetes Endpoints are not kept');
    }
    master = new MasterService({
      allocations,
      services: { def: svcDef, store: svcStore },
      endpoints: { def: epDef, store: epStore },
      ...(leaseDef && leaseStore ? { leases: { def: leaseDef, store: leaseStore } } : {}),
      reconciler: reconciler === 'lease' && !(leaseDef && leaseStore) ? 'none' : reconciler,
      apiserverCount: config.services.apiserverCount,
      address: config.services.advertiseAddress,
      port,
      nodePort: config.services.masterServiceNodePort,
      logger: logger.child({ module: 'master-service' }),
      intervalMs: config.services.endpointIntervalMs,
    });
    master.start();
  }

  let stopping: Promise<void> | undefined;
  return {
    url: `https://${hostPort()}`,
    port,
    pipeline: http,
    shutdown() {
      stopping ??= (async () => {
        shuttingDown = true;
        logger.info({ delayMs: config.shutdownDelayMs }, 'shutting down: readyz now fails');
        // Out of the kubernetes Endpoints first, so clients stop picking this server (as established).
        await master?.stop();
        if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        systemObjects.stop();
        bootstrapPolicy?.stop();
        if (rbacPolicy) (await rbacPolicy.catch(() => undefined))?.stop();
        stopPublishing?.();
        repair?.stop();
        aggregator?.stop();
        crds?.stop();
        flowControl?.stop();
        watches.endAll();
        await http.close(config.requestTimeoutMs);
        watches.endAll();
        // Buffered audit events (batch mode) are sent before the process ends.
        await auditor?.shutdown();
        // Reserved addresses go back while the store is still open (after kill -9 the repair loop frees them).
        await allocations?.close();
        for (const c of compactors) c.stop();
        for (const p of pollers) p.stop();
        authorizer.close();
        for (const c of caches) c.stop();
        await storage.close();
        if (allocations) {
          for (const a of [...allocations.ipAllocators, allocations.nodePorts]) {
            if (a.stats.writes > 0) logger.info({ key: a.key, ...a.stats }, 'service range: store writes made');
          }
        }
        logger.info('shutdown complete');
      })();
      return stopping;
    },
  };
}
