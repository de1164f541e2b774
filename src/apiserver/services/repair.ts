/**
 * The repair loop of the Service ranges (the established ipallocator and portallocator Repair
 * controllers): at start and every `intervalMs` (3 minutes, as established) it rebuilds each
 * range's bitmap from the Services that exist and writes it back with a compare-and-swap.
 *
 * Contract:
 * - The stored bitmap is read first, the Services listed second, and the rebuilt bitmap written
 *   only if the key did not change in between (else the pass starts over), so an allocation made
 *   meanwhile is never lost.
 * - An offset held in an API server's running reservation (./range-allocator.ts) counts as in
 *   use; an ended reservation is dropped and its offsets not held by a Service become leak
 *   candidates like any other.
 * - An offset taken but held by no Service (a crash between the allocation and the Service's
 *   write, or a release that never ran) is a leak candidate: it is kept for `leakPasses - 1` passes
 *   (a create may still be on its way) and freed on the next, with a log line.
 * - A Service address that is not marked taken is marked (logged); an address held by two
 *   Services, or outside the range, is reported as a Warning Event on the Service and a log line,
 *   as established (`ClusterIPAlreadyAllocated`, `ClusterIPOutOfRange`, `PortAlreadyAllocated`,
 *   `PortOutOfRange`); the Service is left as it is.
 * - `runOnce()` returns what it found, so tests and the benchmark can check for leaks.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { prepareForCreate } from '../object-rules.js';
import type { ResourceStore } from '../resource-store.js';
import { Bitmap } from '../../api/net/bitmap.js';
import type { RangeAllocator } from './range-allocator.js';
import { clusterIPsOf, needsClusterIP, nodePortsOf, type ServiceAllocations } from './service-allocation.js';

export interface RangeReport {
  /** The range's store key. */
  key: string;
  /** Offsets taken by Services. */
  used: number;
  /** Offsets held in API servers' running reservations (taken ahead of creates). */
  reserved: number;
  /** Offsets taken but held by no Service nor reservation, this pass (kept or freed). */
  leaked: number;
  /** Leaked offsets freed this pass. */
  freed: number;
  /** Service addresses that were not marked taken (now marked). */
  notAllocated: number;
  /** Addresses held by more than one Service. */
  duplicates: number;
  /** Addresses outside the range. */
  outOfRange: number;
}

export interface RepairOptions {
  allocations: ServiceAllocations;
  services: ResourceStore;
  /** Where the Warning Events go (none: logs only). */
  events?: { def: ResourceDefinition; store: ResourceStore };
  logger: Logger;
  intervalMs?: number;
  /** Passes a leak must be seen in before it is freed (established: 3). */
  leakPasses?: number;
  now?: () => number;
}

interface Claim {
  offset: number;
  value: string;
  svc: SvcObject;
}

interface RangeSpec {
  alloc: RangeAllocator;
  /** What a Service holds in this range. */
  claims(svc: SvcObject): { offset: number | undefined; value: string }[];
  family: string;
  noun: 'Cluster IP' | 'Port';
  reasons: { duplicate: string; outOfRange: string };
  describeRange: string;
}

export class ServiceRangeRepair {
  private readonly o: RepairOptions;
  private readonly leaks = new Map<string, Map<number, number>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RangeReport[]> | undefined;

  constructor(o: RepairOptions) {
    this.o = o;
  }

  private specs(): RangeSpec[] {
    const a = this.o.allocations;
    const ipSpecs = a.ranges.map((range, i): RangeSpec => ({
      alloc: a.ipAllocators[i]!,
      family: range.family,
      noun: 'Cluster IP',
      reasons: { duplicate: 'ClusterIPAlreadyAllocated', outOfRange: 'ClusterIPOutOfRange' },
      describeRange: range.cidr,
      claims: (svc) => {
        const spec = (svc.spec ?? {}) as Record<string, unknown>;
        if (!needsClusterIP(spec)) return [];
        return clusterIPsOf(spec)
          .filter((ip) => (ip.includes(':') ? 'IPv6' : 'IPv4') === range.family)
          .map((ip) => ({ offset: range.offsetOf(ip), value: ip }));
      },
    }));
    const { base, size } = a.nodePortRange;
    const ports: RangeSpec = {
      alloc: a.nodePorts,
      family: '',
      noun: 'Port',
      reasons: { duplicate: 'PortAlreadyAllocated', outOfRange: 'PortOutOfRange' },
      describeRange: `${base}-${base + size - 1}`,
      claims: (svc) =>
        nodePortsOf((svc.spec ?? {}) as Record<string, unknown>).map((p) => ({ offset: p - base >= 0 && p - base < size ? p - base : undefined, value: String(p) })),
    };
    return [...ipSpecs, ports];
  }

  /** One pass over every range; resolves to what each found. Concurrent calls share a pass. */
  runOnce(): Promise<RangeReport[]> {
    this.running ??= (async () => {
      try {
        const out: RangeReport[] = [];
        for (const spec of this.specs()) out.push(await this.repairRange(spec));
        return out;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  start(): void {
    const interval = this.o.intervalMs ?? 3 * 60_000;
    const tick = () => {
      this.runOnce()
        .catch((err: unknown) => this.o.logger.warn({ err }, 'repairing the Service ranges failed; will retry'))
        .finally(() => {
          this.timer = setTimeout(tick, interval);
          this.timer.unref();
        });
    };
    this.timer = setTimeout(tick, interval);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private async listServices(): Promise<SvcObject[]> {
    const store = this.o.services;
    const res = await store.kv.list(store.keys.resourcePrefix);
    return res.items.map((rec) => store.view(rec).object);
  }

  private async repairRange(spec: RangeSpec): Promise<RangeReport> {
    const { logger } = this.o;
    const leakPasses = this.o.leakPasses ?? 3;
    for (let attempt = 0; attempt < 20; attempt++) {
      const stored = await spec.alloc.readStored();
      const sameRange = stored.revision > 0 && stored.range === spec.alloc.range;
      if (stored.revision > 0 && !sameRange) {
        logger.warn({ key: spec.alloc.key, stored: stored.range, configured: spec.alloc.range }, 'the range changed: rebuilding its allocation from the Services');
      }
      const before = new Bitmap(spec.alloc.size, sameRange ? stored.data : undefined);
      const services = await this.listServices();
      const rebuilt = new Bitmap(spec.alloc.size);
      const report: RangeReport = { key: spec.alloc.key, used: 0, reserved: 0, leaked: 0, freed: 0, notAllocated: 0, duplicates: 0, outOfRange: 0 };
      const owners = new Map<number, SvcObject>();
      const problems: { svc: SvcObject; reason: string; message: string }[] = [];
      const label = spec.family ? `${spec.noun} [${spec.family}]:` : `${spec.noun}`;
      for (const svc of services) {
        for (const claim of spec.claims(svc)) {
          if (claim.offset === undefined) {
            report.outOfRange++;
            problems.push({
              svc,
              reason: spec.reasons.outOfRange,
              message: spec.noun === 'Port'
                ? `Port ${claim.value} is not within the port range ${spec.describeRange}; please recreate service`
                : `${label}${claim.value} is not within the configured Service CIDR ${spec.describeRange}; please recreate service`,
            });
            continue;
          }
          const c: Claim = { offset: claim.offset, value: claim.value, svc };
          if (!rebuilt.set(c.offset)) {
            report.duplicates++;
            const first = owners.get(c.offset);
            problems.push({
              svc,
              reason: spec.reasons.duplicate,
              message: spec.noun === 'Port'
                ? `Port ${c.value} was assigned to multiple services; please recreate service`
                : `${label}${c.value} was assigned to multiple services; please recreate service`,
            });
            logger.error({ value: c.value, services: [nameOf(first), nameOf(svc)] }, `${spec.noun} ${c.value} was assigned to multiple services`);
            continue;
          }
          owners.set(c.offset, svc);
          report.used++;
          if (!before.has(c.offset) && sameRange) {
            report.notAllocated++;
            logger.warn({ value: c.value, service: nameOf(svc) }, `${spec.noun} ${c.value} is not allocated; repairing`);
          }
        }
      }
      // Reserved by a server whose reservation still runs: in use (it may be handed out any moment).
      const now = this.o.now?.() ?? Date.now();
      const running = sameRange ? (stored.reservations ?? []).filter((r) => r.until > now) : [];
      for (const r of running) {
        for (const offset of r.offsets) {
          if (before.has(offset) && rebuilt.set(offset)) report.reserved++;
        }
      }
      // Taken but unclaimed: a leak, kept until seen in `leakPasses` passes.
      const leaks = this.leaks.get(spec.alloc.key) ?? new Map<number, number>();
      const seen = new Map<number, number>();
      for (const offset of before.offsets()) {
        if (rebuilt.has(offset)) continue;
        report.leaked++;
        const count = (leaks.get(offset) ?? 0) + 1;
        if (count < leakPasses) {
          rebuilt.set(offset);
          seen.set(offset, count);
        } else {
          report.freed++;
          logger.info({ key: spec.alloc.key, offset }, `${spec.noun} at offset ${offset} of ${spec.describeRange} appears to have leaked: cleaning up`);
        }
      }
      if (await spec.alloc.replaceIfUnchanged(rebuilt, stored.revision, running)) {
        this.leaks.set(spec.alloc.key, seen);
        for (const p of problems) await this.warn(p.svc, p.reason, p.message);
        return report;
      }
    }
    throw new Error(`could not repair ${spec.alloc.key}: it kept changing`);
  }

  private async warn(svc: SvcObject, reason: string, message: string): Promise<void> {
    const events = this.o.events;
    if (!events) return;
    const now = this.o.now?.() ?? Date.now();
    const stamp = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    const ns = svc.metadata.namespace ?? 'default';
    const event: SvcObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${svc.metadata.name ?? 'service'}.${randomBytes(8).toString('hex')}`, namespace: ns },
      involvedObject: { kind: 'Service', namespace: ns, name: svc.metadata.name, uid: svc.metadata.uid, apiVersion: 'v1', resourceVersion: svc.metadata.resourceVersion },
      reason,
      message,
      source: { component: 'apiserver' },
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      type: 'Warning',
      reportingComponent: 'apiserver',
      reportingInstance: '',
    };
    try {
      prepareForCreate(events.def, event, now);
      await events.store.create(event, false);
    } catch (err) {
      this.o.logger.warn({ err, reason }, 'recording the repair Event failed');
    }
  }
}

function nameOf(svc: SvcObject | undefined): string {
  return svc ? `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}` : '';
}
