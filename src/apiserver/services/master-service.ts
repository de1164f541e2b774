/**
 * The `default/kubernetes` Service and its Endpoints, kept by every API server (the established
 * bootstrap controller and its endpoint reconcilers).
 *
 * Contract:
 * - The Service is created when missing, with the first address of the primary cluster-IP range,
 *   port 443 named `https` targeting this server's secure port (a NodePort with
 *   `--svc-service-node-port`); on this server's first pass an existing one whose ports or type
 *   differ is put back.
 * - Endpoints, every `intervalMs` (10 s, as established), by `--endpoint-reconciler-type`:
 *   `lease`: each server renews a Lease `apiserver-endpoint-<address>-<port>` in `svc-system`
 *   (15 s, as the established master leases) and writes the Endpoints as the addresses whose
 *   lease is current, so a server that stops (even by kill -9) drops out once its lease expires;
 *   expired Leases are deleted. `master-count`: this server's address is added and the list
 *   trimmed to `--apiserver-count`. `none`: the Endpoints are left alone.
 * - A graceful stop removes this server: its Lease is deleted (lease) or its address taken out
 *   (master-count) and the Endpoints rewritten.
 * - Addresses are grouped into one subset per port (servers on one host differ by port).
 */
import type { Logger } from 'pino';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { prepareForCreate, prepareForUpdate, validateOrThrow } from '../object-rules.js';
import type { ResourceStore } from '../resource-store.js';
import type { ServiceAllocations } from './service-allocation.js';
import { StatusError } from '../../api/status.js';

export type EndpointReconcilerType = 'lease' | 'master-count' | 'none';

export interface KindStore {
  def: ResourceDefinition;
  store: ResourceStore;
}

export interface MasterServiceOptions {
  allocations: ServiceAllocations;
  services: KindStore;
  endpoints: KindStore;
  /** Needed by the lease reconciler. */
  leases?: KindStore;
  reconciler: EndpointReconcilerType;
  apiserverCount: number;
  /** The address and port this server publishes. */
  address: string;
  port: number;
  /** Non-zero: the Service is a NodePort on this port (--svc-service-node-port). */
  nodePort: number;
  logger: Logger;
  intervalMs?: number;
  leaseTtlSeconds?: number;
  now?: () => number;
}

export const MASTER_SERVICE_NAME = 'kubernetes';
export const MASTER_SERVICE_NAMESPACE = 'default';
export const LEASE_NAMESPACE = 'svc-system';
const LEASE_LABEL = 'apiserver.svc.io/endpoint-reconciler';
const ADDRESS_ANNOTATION = 'apiserver.svc.io/address';
const PORT_ANNOTATION = 'apiserver.svc.io/port';

interface Endpoint {
  ip: string;
  port: number;
}

/** An RFC 3339 time with microseconds (a Lease's MicroTime). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function leaseName(ip: string, port: number): string {
  return `apiserver-endpoint-${ip.replace(/[.:]/g, '-').replace(/^-+|-+$/g, '').toLowerCase()}-${port}`;
}

/** Endpoints subsets: one per port, addresses sorted (the established repacked form). */
export function endpointSubsets(endpoints: Endpoint[]): Record<string, unknown>[] {
  const byPort = new Map<number, Set<string>>();
  for (const e of endpoints) {
    const set = byPort.get(e.port) ?? new Set<string>();
    set.add(e.ip);
    byPort.set(e.port, set);
  }
  return [...byPort.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([port, ips]) => ({ addresses: [...ips].sort().map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }));
}

function endpointsOf(obj: SvcObject | undefined): Endpoint[] {
  const out: Endpoint[] = [];
  for (const s of (obj?.['subsets'] as Record<string, unknown>[] | undefined) ?? []) {
    const port = ((s['ports'] as { port?: number }[] | undefined) ?? [])[0]?.port ?? 0;
    for (const a of (s['addresses'] as { ip?: string }[] | undefined) ?? []) if (a.ip) out.push({ ip: a.ip, port });
  }
  return out;
}

export class MasterService {
  private readonly o: MasterServiceOptions;
  private timer: NodeJS.Timeout | undefined;
  private firstPass = true;
  private stopped = false;

  constructor(o: MasterServiceOptions) {
    this.o = o;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /**
   * Starts the loop: the first pass at once, in the background (errors logged, retried on the next
   * tick), then one every interval.
   */
  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.inFlight = this.pass().finally(() => {
        this.inFlight = undefined;
        if (this.stopped) return;
        this.timer = setTimeout(tick, this.o.intervalMs ?? 10_000);
        this.timer.unref();
      });
    };
    tick();
  }

  private inFlight: Promise<void> | undefined;

  async pass(): Promise<void> {
    try {
      await this.ensureService();
      await this.reconcileEndpoints();
      this.firstPass = false;
    } catch (err) {
      this.o.logger.warn({ err }, 'updating the kubernetes Service or its Endpoints failed; will retry');
    }
  }

  /** Stops the loop and takes this server out of the Endpoints (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
    try {
      if (this.o.reconciler === 'lease' && this.o.leases) {
        const { store } = this.o.leases;
        const current = await store.getForUpdate(LEASE_NAMESPACE, leaseName(this.o.address, this.o.port));
        if (current) await store.remove(current, false).catch(() => undefined);
        await this.writeEndpoints(await this.leasedEndpoints(false));
      } else if (this.o.reconciler === 'master-count') {
        const current = await this.o.endpoints.store.getForUpdate(MASTER_SERVICE_NAMESPACE, MASTER_SERVICE_NAME);
        const mine = (e: Endpoint) => e.ip === this.o.address && e.port === this.o.port;
        if (current && endpointsOf(current.object).some(mine)) await this.writeEndpoints(endpointsOf(current.object).filter((e) => !mine(e)));
      }
    } catch (err) {
      this.o.logger.warn({ err }, 'removing this server from the kubernetes Endpoints failed');
    }
  }

  private desiredService(): SvcObject {
    const port: Record<string, unknown> = { name: 'https', protocol: 'TCP', port: 443, targetPort: this.o.port };
    if (this.o.nodePort) port['nodePort'] = this.o.nodePort;
    const range = this.o.allocations.ranges[0]!;
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: MASTER_SERVICE_NAME, namespace: MASTER_SERVICE_NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: this.o.nodePort ? 'NodePort' : 'ClusterIP', clusterIP: range.ipAt(0), ports: [port], sessionAffinity: 'None' },
    };
  }

  private async ensureService(): Promise<void> {
    const { def, store } = this.o.services;
    const existing = await store.getForUpdate(MASTER_SERVICE_NAMESPACE, MASTER_SERVICE_NAME);
    const desired = this.desiredService();
    if (!existing) {
      prepareForCreate(def, desired, this.now());
      validateOrThrow(def, desired);
      const finish = await this.o.allocations.beginCreate(desired, false);
      let stored = false;
      try {
        await store.create(desired, false);
        stored = true;
        this.o.logger.info({ clusterIP: (desired.spec as { clusterIP?: string }).clusterIP }, 'created the kubernetes Service');
      } catch (err) {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      } finally {
        finish(stored);
      }
      return;
    }
    if (!this.firstPass) return;
    // On start, put back the ports and type this server serves (as established).
    const spec = (existing.object.spec ?? {}) as Record<string, unknown>;
    const want = desired.spec as Record<string, unknown>;
    const ports = (spec['ports'] as Record<string, unknown>[] | undefined) ?? [];
    const wantPort = (want['ports'] as Record<string, unknown>[])[0]!;
    const same =
      spec['type'] === want['type'] &&
      ports.length === 1 &&
      ports[0]!['port'] === 443 &&
      ports[0]!['targetPort'] === wantPort['targetPort'] &&
      ports[0]!['name'] === 'https' &&
      (!this.o.nodePort || ports[0]!['nodePort'] === this.o.nodePort);
    if (same) return;
    const next = store.draft(existing);
    const nextSpec = (next.spec ?? {}) as Record<string, unknown>;
    nextSpec['type'] = want['type'];
    nextSpec['ports'] = want['ports'];
    next.spec = nextSpec;
    prepareForUpdate(def, next, existing.object);
    this.o.allocations.prepareUpdate(next, existing.object);
    validateOrThrow(def, next, existing.object);
    const finish = await this.o.allocations.beginUpdate(next, existing.object, false);
    let stored = false;
    try {
      const { value } = store.encode(next, existing);
      await store.replace(next, value, existing.revision, false);
      stored = true;
    } finally {
      finish(stored);
    }
  }

  private async reconcileEndpoints(): Promise<void> {
    if (this.o.reconciler === 'none') return;
    if (this.o.reconciler === 'lease') {
      await this.renewLease();
      await this.writeEndpoints(await this.leasedEndpoints(true));
      return;
    }
    // master-count: this server in, trimmed to --apiserver-count (this server kept).
    const current = await this.o.endpoints.store.getForUpdate(MASTER_SERVICE_NAMESPACE, MASTER_SERVICE_NAME);
    const mine = { ip: this.o.address, port: this.o.port };
    const others = endpointsOf(current?.object).filter((e) => !(e.ip === mine.ip && e.port === mine.port));
    await this.writeEndpoints([mine, ...others].slice(0, Math.max(1, this.o.apiserverCount)));
  }

  private async renewLease(): Promise<void> {
    const { def, store } = this.o.leases!;
    const name = leaseName(this.o.address, this.o.port);
    const now = this.now();
    const spec = { holderIdentity: `${this.o.address}:${this.o.port}`, leaseDurationSeconds: this.o.leaseTtlSeconds ?? 15, renewTime: microTime(now) };
    const current = await store.getForUpdate(LEASE_NAMESPACE, name);
    if (!current) {
      const lease: SvcObject = {
        apiVersion: 'coordination.svc.io/v1',
        kind: 'Lease',
        metadata: {
          name,
          namespace: LEASE_NAMESPACE,
          labels: { [LEASE_LABEL]: 'lease' },
          annotations: { [ADDRESS_ANNOTATION]: this.o.address, [PORT_ANNOTATION]: String(this.o.port) },
        },
        spec: { ...spec, acquireTime: microTime(now) },
      };
      prepareForCreate(def, lease, now);
      validateOrThrow(def, lease);
      await store.create(lease, false).catch((err: unknown) => {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      });
      return;
    }
    const next = store.draft(current);
    next.spec = { ...((next.spec ?? {}) as object), ...spec };
    prepareForUpdate(def, next, current.object);
    const { value } = store.encode(next, current);
    await store.replace(next, value, current.revision, false).catch(() => undefined); // another writer: next pass
  }

  /** The addresses whose Lease is current; `collect`: delete the expired Leases. */
  private async leasedEndpoints(collect: boolean): Promise<Endpoint[]> {
    const { store } = this.o.leases!;
    const res = await store.kv.list(store.keys.scope(LEASE_NAMESPACE));
    const now = this.now();
    const out: Endpoint[] = [];
    for (const rec of res.items) {
      const view = store.view(rec);
      const lease = view.object;
      const ann = lease.metadata.annotations ?? {};
      if (lease.metadata.labels?.[LEASE_LABEL] !== 'lease') continue;
      const spec = (lease.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
      const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
      const expired = renewed + (spec.leaseDurationSeconds ?? 15) * 1000 < now;
      if (expired) {
        if (collect) await store.remove(view, false).catch(() => undefined);
        continue;
      }
      const ip = ann[ADDRESS_ANNOTATION];
      const port = Number(ann[PORT_ANNOTATION]);
      if (ip && port > 0) out.push({ ip, port });
    }
    return out;
  }

  private async writeEndpoints(endpoints: Endpoint[]): Promise<void> {
    const { def, store } = this.o.endpoints;
    const subsets = endpointSubsets(endpoints);
    const current = await store.getForUpdate(MASTER_SERVICE_NAMESPACE, MASTER_SERVICE_NAME);
    if (!current) {
      const obj: SvcObject = {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: MASTER_SERVICE_NAME, namespace: MASTER_SERVICE_NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets,
      };
      prepareForCreate(def, obj, this.now());
      validateOrThrow(def, obj);
      await store.create(obj, false).catch((err: unknown) => {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      });
      return;
    }
    if (JSON.stringify(current.object['subsets'] ?? []) === JSON.stringify(subsets)) return;
    const next = store.draft(current);
    next['subsets'] = subsets;
    if (subsets.length === 0) delete next['subsets'];
    prepareForUpdate(def, next, current.object);
    validateOrThrow(def, next, current.object);
    const { value, unchanged } = store.encode(next, current);
    if (unchanged) return;
    await store.replace(next, value, current.revision, false).catch(() => undefined); // a concurrent writer: next pass
  }
}
