/**
 * The aggregation layer of the API server (the established kube-aggregator, in process):
 *
 * - keeps the local APIServices (./priorities.ts): created at start for every served built-in
 *   group/version and for every custom resource group/version as CRDs come and go, marked with
 *   the automanaged label; a marked one no longer served is deleted; unmarked ones (users') are
 *   never touched;
 * - keeps every APIService's Available condition (./availability.ts): on every change of an
 *   APIService, of the Service it names or of that Service's Endpoints, and every 30 s;
 * - proxies /apis/<group>/<version>/... of a service-backed APIService to its extension server
 *   (./proxy.ts, routed by ./routing.ts), after this server's authentication, flow control and
 *   authorization (the pipeline's), 503 while the APIService is not Available;
 * - gives discovery the extension groups (../discovery.ts): listed in /apis in priority order,
 *   their aggregated resources as the last discovery check read them.
 *
 * Watches: apiservices, services, endpoints (server-side followers over the watch caches).
 * Writes: apiservices (create, spec of marked ones, status, delete of marked ones).
 */
import type { Agent } from 'node:https';
import type { Logger } from 'pino';
import { canonicalGroup } from '../../api/established-spelling.js';
import type { ResourceRegistry } from '../../api/registry.js';
import { compareVersions } from '../../api/registry.js';
import { StatusError } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import type { ApiResource, DiscoveryExtensions, ExtensionGroup } from '../discovery.js';
import { type PipelineRequest, type Response, writeStatus } from '../http.js';
import { prepareForCreate, prepareForUpdate, timestamp, validateOrThrow } from '../object-rules.js';
import type { ResourceStore } from '../resource-store.js';
import { ConflictError } from '../../storage/types.js';
import { StoreFollower } from '../store-follower.js';
import type { UserInfo } from '../auth/user.js';
import { type AvailableCondition, checkAvailability, isAvailable, LOCAL_AVAILABLE, withCondition } from './availability.js';
import { AUTOMANAGED_LABEL, localApiServices, type LocalApiService } from './priorities.js';
import { apiServiceTls, type IdentityHeaderNames, type ProxyClientCertificate, proxyRequest, upstreamAgent } from './proxy.js';
import { resolveCluster, resolveEndpoint, type ResolvedTarget, RoutingError } from './routing.js';

export interface AggregatorOptions {
  registry: ResourceRegistry;
  apiServices: { def: ResourceDefinition; store: ResourceStore };
  services?: ResourceStore;
  endpoints?: ResourceStore;
  /** --proxy-client-cert-file / --proxy-client-key-file. */
  proxyClient?: ProxyClientCertificate;
  /** --enable-aggregator-routing. */
  endpointRouting: boolean;
  identityHeaders: IdentityHeaderNames;
  bodyLimit: number;
  /** Called when what discovery shows of extensions changed. */
  onDiscoveryChange: () => void;
  now: () => number;
  logger: Logger;
  resyncMs?: number;
}

const RESYNC_MS = 30_000;
const PROBE_TIMEOUT_MS = 5_000;

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export class Aggregator implements DiscoveryExtensions {
  private readonly index = new Map<string, SvcObject>();
  /** `<our group>/<version>` -> the service-backed APIService claiming it. */
  private remote = new Map<string, SvcObject>();
  private readonly resources = new Map<string, ApiResource[]>();
  private readonly agents = new Map<string, { rv: string; agent: Agent }>();
  private readonly followers: StoreFollower[] = [];
  private readonly pending = new Set<string>();
  private working = false;
  private registering: Promise<void> | undefined;
  private registerAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly o: AggregatorOptions) {}

  async start(): Promise<void> {
    const { logger } = this.o;
    this.followers.push(
      new StoreFollower(
        this.o.apiServices.store,
        {
          reset: (objects) => {
            this.index.clear();
            for (const a of objects) this.index.set(a.metadata.name ?? '', a);
            this.reindex();
            for (const a of objects) this.enqueue(a.metadata.name ?? '');
          },
          upsert: (a) => {
            this.index.set(a.metadata.name ?? '', a);
            this.reindex();
            this.enqueue(a.metadata.name ?? '');
          },
          remove: (a) => {
            this.index.delete(a.metadata.name ?? '');
            this.resources.delete(a.metadata.name ?? '');
            this.reindex();
            this.scheduleRegistration();
          },
        },
        logger,
      ),
    );
    // A Service or its Endpoints changing re-checks the APIServices that name it.
    const touched = (o: SvcObject) => this.enqueueFor(o.metadata.namespace ?? '', o.metadata.name ?? '');
    for (const store of [this.o.services, this.o.endpoints]) {
      if (store) this.followers.push(new StoreFollower(store, { reset: () => this.enqueueRemote(), upsert: touched, remove: touched }, logger));
    }
    for (const f of this.followers) await f.start();
    await this.register();
    this.unsubscribe = this.o.registry.onChange(() => this.scheduleRegistration());
    const resync = () => {
      this.enqueueRemote();
      this.timer = setTimeout(resync, this.o.resyncMs ?? RESYNC_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(resync, this.o.resyncMs ?? RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    for (const f of this.followers) f.stop();
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  // -------------------------------------------------------------------------------------------
  // discovery

  groups(): ExtensionGroup[] {
    const byGroup = new Map<string, SvcObject[]>();
    for (const a of this.remote.values()) {
      const g = String(rec(a['spec'])['group'] ?? '');
      byGroup.set(g, [...(byGroup.get(g) ?? []), a]);
    }
    return [...byGroup.entries()].map(([name, list]) => {
      const num = (a: SvcObject, k: string) => Number(rec(a['spec'])[k] ?? 0);
      const version = (a: SvcObject) => String(rec(a['spec'])['version'] ?? '');
      const sorted = [...list].sort((a, b) => num(b, 'versionPriority') - num(a, 'versionPriority') || compareVersions(version(a), version(b)));
      return {
        name,
        versions: sorted.map(version),
        priority: Math.max(...list.map((a) => num(a, 'groupPriorityMinimum'))),
        resources: (v: string) => {
          const a = sorted.find((x) => version(x) === v);
          return a ? this.resources.get(a.metadata.name ?? '') : undefined;
        },
      };
    });
  }

  // -------------------------------------------------------------------------------------------
  // proxying

  /** The service-backed APIService whose group/version a path (`/apis/<group>/<version>[/...]`) is under, if any. */
  claim(pathname: string): SvcObject | undefined {
    if (this.remote.size === 0) return undefined;
    const m = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(pathname);
    return m ? this.remote.get(`${canonicalGroup(m[1]!)}/${m[2]!}`) : undefined;
  }

  /** Proxies a request for `apiService`'s group/version to its extension server. */
  async proxy(apiService: SvcObject, user: UserInfo, url: string, req: PipelineRequest, res: Response): Promise<void> {
    if (!isAvailable(apiService)) return void writeStatus(res, new StatusError(503, 'ServiceUnavailable', 'service unavailable'));
    let target: ResolvedTarget;
    try {
      target = await this.resolve(apiService);
    } catch (err) {
      this.o.logger.warn({ err, apiService: apiService.metadata.name }, 'resolving an APIService failed');
      return void writeStatus(res, new StatusError(503, 'ServiceUnavailable', 'service unavailable'));
    }
    const tls = apiServiceTls(apiService);
    await proxyRequest({ target, tls, agent: this.agentFor(apiService), user, names: this.o.identityHeaders, url, bodyLimit: this.o.bodyLimit }, req, res);
  }

  private agentFor(apiService: SvcObject): Agent {
    const name = apiService.metadata.name ?? '';
    const rv = apiService.metadata.resourceVersion ?? '';
    const held = this.agents.get(name);
    if (held && held.rv === rv) return held.agent;
    held?.agent.destroy();
    const agent = upstreamAgent(apiServiceTls(apiService), this.o.proxyClient);
    this.agents.set(name, { rv, agent });
    return agent;
  }

  private async resolve(apiService: SvcObject): Promise<ResolvedTarget> {
    const ref = rec(rec(apiService['spec'])['service']);
    const ns = String(ref['namespace'] ?? '');
    const name = String(ref['name'] ?? '');
    const port = typeof ref['port'] === 'number' ? ref['port'] : 443;
    const svc = await this.o.services?.peek(ns, name);
    if (!svc) throw new RoutingError(`service "${name}" not found`);
    return this.route(svc, this.o.endpointRouting ? await this.o.endpoints?.peek(ns, name) : undefined, port);
  }

  private route(svc: SvcObject, endpoints: SvcObject | undefined, port: number): ResolvedTarget {
    return this.o.endpointRouting ? resolveEndpoint(svc, endpoints, port) : resolveCluster(svc, port);
  }

  // -------------------------------------------------------------------------------------------
  // availability

  private reindex(): void {
    const next = new Map<string, SvcObject>();
    for (const a of this.index.values()) {
      const spec = rec(a['spec']);
      if (!spec['service']) continue;
      next.set(`${canonicalGroup(String(spec['group'] ?? ''))}/${String(spec['version'] ?? '')}`, a);
    }
    const before = [...this.remote.values()].map((a) => `${a.metadata.name}@${a.metadata.resourceVersion}`).join();
    this.remote = next;
    if ([...next.values()].map((a) => `${a.metadata.name}@${a.metadata.resourceVersion}`).join() !== before) this.o.onDiscoveryChange();
  }

  private enqueueRemote(): void {
    for (const a of this.index.values()) if (rec(a['spec'])['service']) this.enqueue(a.metadata.name ?? '');
  }

  private enqueueFor(namespace: string, name: string): void {
    for (const a of this.index.values()) {
      const ref = rec(rec(a['spec'])['service']);
      if (ref['namespace'] === namespace && ref['name'] === name) this.enqueue(a.metadata.name ?? '');
    }
  }

  private enqueue(name: string): void {
    if (this.stopped) return;
    this.pending.add(name);
    if (!this.working) void this.work();
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      while (this.pending.size && !this.stopped) {
        const name = this.pending.values().next().value as string;
        this.pending.delete(name);
        const apiService = this.index.get(name);
        if (!apiService) continue;
        try {
          await this.sync(apiService);
        } catch (err) {
          this.o.logger.warn({ err, apiService: name }, 'checking an APIService failed');
        }
      }
    } finally {
      this.working = false;
    }
  }

  private async sync(apiService: SvcObject): Promise<void> {
    const name = apiService.metadata.name ?? '';
    const result = await checkAvailability(
      apiService,
      {
        service: async (ns, n) => this.o.services?.peek(ns, n),
        endpoints: async (ns, n) => this.o.endpoints?.peek(ns, n),
        resolve: (svc, eps, port) => this.route(svc, eps, port),
      },
      { ...(this.o.proxyClient ? { client: this.o.proxyClient } : {}), names: this.o.identityHeaders, timeoutMs: PROBE_TIMEOUT_MS },
    );
    if (rec(apiService['spec'])['service']) {
      const before = JSON.stringify(this.resources.get(name));
      if (result.resources) this.resources.set(name, result.resources);
      if (JSON.stringify(this.resources.get(name)) !== before) this.o.onDiscoveryChange();
    }
    await this.writeCondition(name, result.condition);
  }

  /** Writes the condition when it changes anything (no write for an unchanged status). */
  private async writeCondition(name: string, condition: AvailableCondition): Promise<void> {
    const { def, store } = this.o.apiServices;
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await store.getForUpdate('', name);
      if (!current) return;
      const status = withCondition(current.object['status'], condition, timestamp(this.o.now()));
      if (JSON.stringify(status) === JSON.stringify(current.object['status'] ?? {})) return;
      const next = store.draft(current);
      next['status'] = status;
      validateOrThrow(def, next, current.object);
      const { value, unchanged } = store.encode(next, current);
      if (unchanged) return;
      const prev = apiServiceAvailable(current.object);
      try {
        await store.replace(next, value, current.revision, false);
        if (prev !== condition.status) this.o.logger.info({ apiService: name, available: condition.status, reason: condition.reason }, 'APIService availability changed');
        return;
      } catch (err) {
        if (!(err instanceof ConflictError) && !(err instanceof StatusError && err.reason === 'Conflict')) throw err;
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // registration of the local APIServices

  private scheduleRegistration(): void {
    if (this.stopped) return;
    if (this.registering) {
      this.registerAgain = true;
      return;
    }
    void this.register().catch((err: unknown) => this.o.logger.warn({ err }, 'registering the local APIServices failed'));
  }

  private register(): Promise<void> {
    this.registering = (async () => {
      do {
        this.registerAgain = false;
        await this.registerOnce();
      } while (this.registerAgain && !this.stopped);
    })().finally(() => (this.registering = undefined));
    return this.registering;
  }

  private async registerOnce(): Promise<void> {
    const desired = localApiServices(this.o.registry);
    const wanted = new Set(desired.map((d) => d.name));
    for (const d of desired) {
      const existing = this.index.get(d.name);
      if (!existing) await this.createLocal(d);
      else if (rec(existing.metadata.labels)[AUTOMANAGED_LABEL] !== undefined && !sameLocalSpec(existing, d)) await this.updateLocal(d);
    }
    for (const a of [...this.index.values()]) {
      if (rec(a.metadata.labels)[AUTOMANAGED_LABEL] === undefined || wanted.has(a.metadata.name ?? '')) continue;
      const current = await this.o.apiServices.store.getForUpdate('', a.metadata.name ?? '');
      if (current && rec(current.object.metadata.labels)[AUTOMANAGED_LABEL] !== undefined) {
        await this.o.apiServices.store.remove(current, false).catch(() => undefined);
        this.o.logger.info({ apiService: a.metadata.name }, 'deleted a local APIService no longer served');
      }
    }
  }

  private async createLocal(d: LocalApiService): Promise<void> {
    const { def, store } = this.o.apiServices;
    const obj: SvcObject = {
      apiVersion: 'apiregistration.svc.io/v1',
      kind: 'APIService',
      metadata: { name: d.name, labels: { [AUTOMANAGED_LABEL]: d.managed } },
      spec: localSpec(d),
    };
    prepareForCreate(def, obj, this.o.now());
    // Local APIServices are always available: written so at once (one write, not two).
    obj['status'] = withCondition(undefined, LOCAL_AVAILABLE, timestamp(this.o.now()));
    validateOrThrow(def, obj);
    try {
      const view = await store.create(obj, false);
      this.index.set(d.name, view.object);
    } catch (err) {
      if ((err as { status?: { reason?: string } }).status?.reason !== 'AlreadyExists') throw err;
    }
  }

  private async updateLocal(d: LocalApiService): Promise<void> {
    const { def, store } = this.o.apiServices;
    const current = await store.getForUpdate('', d.name);
    if (!current || rec(current.object.metadata.labels)[AUTOMANAGED_LABEL] === undefined) return;
    const next = store.draft(current);
    next['spec'] = localSpec(d);
    prepareForUpdate(def, next, current.object);
    validateOrThrow(def, next, current.object);
    const { value, unchanged } = store.encode(next, current);
    if (!unchanged) await store.replace(next, value, current.revision, false);
  }
}

function localSpec(d: LocalApiService): Record<string, unknown> {
  return { group: d.group, version: d.version, groupPriorityMinimum: d.priority.group, versionPriority: d.priority.version };
}

function sameLocalSpec(a: SvcObject, d: LocalApiService): boolean {
  const spec = rec(a['spec']);
  return !spec['service'] && spec['group'] === d.group && spec['version'] === d.version && spec['groupPriorityMinimum'] === d.priority.group && spec['versionPriority'] === d.priority.version;
}

function apiServiceAvailable(a: SvcObject): string {
  const list = rec(a['status'])['conditions'];
  const c = Array.isArray(list) ? list.map(rec).find((x) => x['type'] === 'Available') : undefined;
  return String(c?.['status'] ?? 'Unknown');
}
