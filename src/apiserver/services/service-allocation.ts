/**
 * A Service's server-side addresses on the write path (the established Service REST storage's
 * allocation): cluster IPs from `--service-cluster-ip-range`, node ports from
 * `--service-node-port-range`, the health-check node port of a LoadBalancer with
 * externalTrafficPolicy Local, and the IP-family fields (`ipFamilyPolicy`, `ipFamilies`) defaulted
 * as the established server defaults them.
 *
 * Contract (see ../write-hooks.ts): an allocation is made inside the create or update, and kept
 * only when the object is stored; a refusal names the field with the established message
 * (`spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided
 * IP is already allocated`); a dry run checks and reports what it would take, taking nothing;
 * values given back by an update (a type change, a removed port) are released once the update is
 * stored, and all of a Service's values once it leaves storage.
 */
import type { Logger } from 'pino';
import { type FieldError, internalError, invalid, StatusError } from '../../api/status.js';
import { ensureServiceStatus } from '../../api/kinds/core/service.js';
import { goStringSlice as goStrings } from '../../api/validation/field-errors.js';
import type { SvcObject } from '../../api/types.js';
import { storageErrorStatus } from '../resource-store.js';
import type { FinishWrite, WriteHooks } from '../write-hooks.js';
import { clusterIPBandStart, nodePortBandStart } from './allocation-bands.js';
import { canonicalIp, familyOf, type IPFamily } from '../../api/net/ip-address.js';
import { ServiceIPRange } from './ip-range.js';
import { AllocatedError, RangeAllocator, RangeFullError } from './range-allocator.js';
import type { KVStore } from '../../storage/types.js';

export interface ServiceNetworkConfig {
  /** One CIDR, or two of different families (dual-stack, behind the IPv6DualStack gate); primary first. */
  clusterIPRanges: string[];
  /** Inclusive node-port range as base and size (30000-32767: base 30000, size 2768). */
  nodePortRange: { base: number; size: number };
  /**
   * The longest a create may take (`--request-timeout`): reserved addresses stop being handed out
   * this long (plus 30 s of clock skew) before their reservation ends. Default 1 minute.
   */
  requestTimeoutMs?: number;
}

type Spec = Record<string, unknown>;
type Port = Record<string, unknown>;

const POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

/**
 * Offsets each range keeps reserved ahead of creates (see ./range-allocator.ts): a 32nd of the
 * dynamic band, at most 128, so a burst of creates takes its addresses from memory while the
 * refill's write is on its way (at 32 clients a refill is often 10-20 creates behind), and a small
 * range is not hoarded (a /24 keeps 7, a /28 none).
 */
function reserveSize(dynamicBand: number): number {
  return Math.max(0, Math.min(128, Math.floor(dynamicBand / 32)));
}


const specOf = (o: SvcObject): Spec => {
  if (!o.spec || typeof o.spec !== 'object' || Array.isArray(o.spec)) o.spec = {};
  return o.spec as Spec;
};
const portsOf = (spec: Spec): Port[] => (Array.isArray(spec['ports']) ? (spec['ports'] as unknown[]).filter((p): p is Port => !!p && typeof p === 'object') : []);
const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export const needsClusterIP = (spec: Spec): boolean => spec['type'] !== 'ExternalName';
export const needsNodePorts = (spec: Spec): boolean =>
  spec['type'] === 'NodePort' || (spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false);
export const needsHealthCheckNodePort = (spec: Spec): boolean => spec['type'] === 'LoadBalancer' && spec['externalTrafficPolicy'] === 'Local';

/** The cluster IPs a stored Service holds (not `None`). */
export function clusterIPsOf(spec: Spec): string[] {
  const ips = stringList(spec['clusterIPs']);
  const list = ips.length > 0 ? ips : typeof spec['clusterIP'] === 'string' && spec['clusterIP'] !== '' ? [spec['clusterIP'] as string] : [];
  return list.filter((ip) => ip !== 'None');
}

/** The node ports a stored Service holds, its health-check node port included. */
export function nodePortsOf(spec: Spec): number[] {
  const out = new Set<number>();
  for (const p of portsOf(spec)) if (num(p['nodePort']) > 0) out.add(num(p['nodePort']));
  if (num(spec['healthCheckNodePort']) > 0) out.add(num(spec['healthCheckNodePort']));
  return [...out];
}


/** What one write took and what it gives back; settled once by `finish`. */
class Transaction {
  readonly taken: { alloc: RangeAllocator; offset: number }[] = [];
  readonly toRelease: { alloc: RangeAllocator; offset: number }[] = [];
  constructor(private readonly logger: Logger) {}

  finish(stored: boolean): void {
    const list = stored ? this.toRelease : this.taken;
    for (const { alloc, offset } of list) {
      alloc.release(offset).catch((err: unknown) => this.logger.warn({ err, key: alloc.key, offset }, 'release failed; the repair loop frees it'));
    }
  }
}

/** One allocation a write needs, run together with the write's others. */
interface Want {
  alloc: RangeAllocator;
  /** A chosen offset, or undefined for any free one. */
  offset?: number;
  band: number;
  /** Where the result goes. */
  assign(offset: number): void;
  /** The refusal of a chosen value as a field error. */
  refused(err: Error): FieldError;
  /** The message of "range is full" for a free one. */
  full: string;
}

export class ServiceAllocations implements WriteHooks {
  readonly ranges: ServiceIPRange[];
  readonly ipAllocators: RangeAllocator[];
  readonly nodePorts: RangeAllocator;
  readonly nodePortRange: { base: number; size: number };
  private readonly logger: Logger;

  constructor(kv: KVStore, storagePrefix: string, config: ServiceNetworkConfig, logger: Logger) {
    this.logger = logger;
    this.ranges = config.clusterIPRanges.map((c) => new ServiceIPRange(c));
    const reservationMarginMs = (config.requestTimeoutMs ?? 60_000) + 30_000;
    const reserving = { reservationMarginMs, reservationTtlMs: Math.max(5 * 60_000, reservationMarginMs + 2 * 60_000) };
    const prefix = storagePrefix.replace(/\/$/, '');
    this.ipAllocators = this.ranges.map((r, i) => {
      const band = clusterIPBandStart(r.size);
      const key = `${prefix}/ranges/${i === 0 ? 'serviceips' : 'secondaryserviceips'}`;
      return new RangeAllocator({ kv, key, range: r.cidr, size: r.size, what: 'IP', logger, reserveBand: band, reserve: reserveSize(r.size - band), ...reserving });
    });
    this.nodePortRange = config.nodePortRange;
    const { base, size } = config.nodePortRange;
    const band = nodePortBandStart(size);
    this.nodePorts = new RangeAllocator({
      kv,
      key: `${prefix}/ranges/servicenodeports`,
      range: `${base}-${base + size - 1}`,
      size,
      what: 'port',
      logger,
      reserveBand: band,
      reserve: reserveSize(size - band),
      ...reserving,
    });
  }

  /** Gives back the offsets reserved ahead of creates (the server is stopping; the store is open). */
  async close(): Promise<void> {
    await Promise.all([...this.ipAllocators, this.nodePorts].map((a) => a.close()));
  }

  get dualStack(): boolean {
    return this.ranges.length > 1;
  }

  /** The range and allocator of a family, if configured. */
  private forFamily(family: IPFamily): { range: ServiceIPRange; alloc: RangeAllocator } | undefined {
    const i = this.ranges.findIndex((r) => r.family === family);
    return i < 0 ? undefined : { range: this.ranges[i]!, alloc: this.ipAllocators[i]! };
  }

  // ---- the write hooks ----

  prepareUpdate(next: SvcObject, old: SvcObject): void {
    ensureServiceStatus(next);
    const ns = specOf(next);
    const os = specOf(old);
    dropTypeDependentFields(ns, os);
    patchAllocatedValues(ns, os);
    normalizeClusterIPs(ns, os);
  }

  async beginCreate(obj: SvcObject, dryRun: boolean): Promise<FinishWrite> {
    ensureServiceStatus(obj);
    const spec = specOf(obj);
    const name = obj.metadata.name ?? '';
    if (!needsClusterIP(spec)) return () => undefined;
    normalizeClusterIPs(spec, undefined);
    this.initIPFamilies(spec, name);
    const tx = new Transaction(this.logger);
    const ips = this.clusterIPPlan(spec, [], name);
    await this.run([...ips.wants, ...this.nodePortWants(spec, new Set(), name)], tx, dryRun, name);
    ips.apply();
    return (stored) => tx.finish(stored);
  }

  async beginUpdate(next: SvcObject, old: SvcObject, dryRun: boolean): Promise<FinishWrite> {
    const ns = specOf(next);
    const os = specOf(old);
    const name = next.metadata.name ?? '';
    const tx = new Transaction(this.logger);
    const oldIPs = needsClusterIP(os) ? clusterIPsOf(os) : [];
    let ips: { wants: Want[]; apply(): void } = { wants: [], apply: () => undefined };
    if (needsClusterIP(ns)) {
      if (!needsClusterIP(os)) normalizeClusterIPs(ns, undefined);
      this.initIPFamilies(ns, name);
      ips = this.clusterIPPlan(ns, oldIPs, name);
    }
    const oldPorts = new Set(nodePortsOf(os));
    await this.run([...ips.wants, ...this.nodePortWants(ns, oldPorts, name)], tx, dryRun, name);
    ips.apply();
    if (!dryRun) {
      const keepIPs = new Set(needsClusterIP(ns) ? clusterIPsOf(ns) : []);
      for (const ip of oldIPs) if (!keepIPs.has(ip)) this.queueIPRelease(tx, ip);
      const keepPorts = new Set(nodePortsOf(ns));
      for (const p of oldPorts) if (!keepPorts.has(p)) this.queuePortRelease(tx, p);
    }
    return (stored) => tx.finish(stored);
  }

  afterDelete(obj: SvcObject): void {
    const spec = specOf(obj);
    const tx = new Transaction(this.logger);
    if (needsClusterIP(spec)) for (const ip of clusterIPsOf(spec)) this.queueIPRelease(tx, ip);
    for (const p of nodePortsOf(spec)) this.queuePortRelease(tx, p);
    tx.finish(true);
  }

  private queueIPRelease(tx: Transaction, ip: string): void {
    const family = familyOf(ip);
    const f = family && this.forFamily(family);
    const offset = f ? f.range.offsetOf(ip) : undefined;
    if (f && offset !== undefined) tx.toRelease.push({ alloc: f.alloc, offset });
  }

  private queuePortRelease(tx: Transaction, port: number): void {
    const offset = port - this.nodePortRange.base;
    if (offset >= 0 && offset < this.nodePortRange.size) tx.toRelease.push({ alloc: this.nodePorts, offset });
  }

  // ---- what a Service needs ----

  /**
   * The IP-family fields as the established initIPFamilyFields sets them, then their checks
   * against this cluster's ranges (422 naming the field).
   */
  initIPFamilies(spec: Spec, name: string): void {
    const primary = this.ranges[0]!.family;
    const other = (f: string): IPFamily => (f === 'IPv4' ? 'IPv6' : 'IPv4');
    const headless = spec['clusterIP'] === 'None';
    const hasSelector = !!spec['selector'] && Object.keys(spec['selector'] as object).length > 0;
    let families = stringList(spec['ipFamilies']);
    const errs: FieldError[] = [];
    const policyValue = spec['ipFamilyPolicy'];
    if (policyValue !== undefined && policyValue !== null && !POLICIES.includes(String(policyValue))) {
      errs.push({ field: 'spec.ipFamilyPolicy', type: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(policyValue)}: supported values: ${POLICIES.map((p) => `"${p}"`).join(', ')}` });
      throw invalid('Service', name, '', errs);
    }
    families.forEach((f, i) => {
      if (f !== 'IPv4' && f !== 'IPv6') errs.push({ field: `spec.ipFamilies[${i}]`, type: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(f)}: supported values: "IPv4", "IPv6"` });
      else if (families.indexOf(f) !== i) errs.push({ field: `spec.ipFamilies[${i}]`, type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(f)}` });
    });
    if (families.length > 2) errs.push({ field: 'spec.ipFamilies', type: 'FieldValueInvalid', message: `Invalid value: ${goFamilies(families)}: may specify no more than one IP for each IP family` });
    if (errs.length) throw invalid('Service', name, '', errs);

    if (headless && !hasSelector) {
      // Headless without a selector: addresses come from elsewhere, so both families by default.
      const policy = typeof policyValue === 'string' ? policyValue : 'RequireDualStack';
      if (families.length === 0) families = [primary];
      if (families.length < 2 && policy !== 'SingleStack') families = [families[0]!, other(families[0]!)];
      if (policy === 'SingleStack' && families.length > 1) {
        throw invalid('Service', name, '', [{ field: 'spec.ipFamilyPolicy', type: 'FieldValueInvalid', message: `Invalid value: "SingleStack": must be RequireDualStack or PreferDualStack when multiple 'ipFamilies' are specified` }]);
      }
      spec['ipFamilyPolicy'] = policy;
      spec['ipFamilies'] = families;
      return;
    }
    const policy = typeof policyValue === 'string' ? policyValue : 'SingleStack';
    const ips = stringList(spec['clusterIPs']).filter((ip) => ip !== 'None');
    if (families.length === 0) {
      families = ips.length > 0 ? ips.map((ip) => familyOf(ip) ?? primary) : [primary];
    }
    if (new Set(families).size !== families.length) {
      throw invalid('Service', name, '', [{ field: 'spec.clusterIPs', type: 'FieldValueInvalid', message: `Invalid value: ${goStrings(ips)}: may specify no more than one IP for each IP family` }]);
    }
    if (policy === 'SingleStack' && families.length > 1) {
      throw invalid('Service', name, '', [{ field: 'spec.ipFamilyPolicy', type: 'FieldValueInvalid', message: `Invalid value: "SingleStack": must be RequireDualStack or PreferDualStack when multiple 'ipFamilies' are specified` }]);
    }
    if (policy === 'RequireDualStack' && !this.dualStack) {
      throw invalid('Service', name, '', [{ field: 'spec.ipFamilyPolicy', type: 'FieldValueInvalid', message: 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services' }]);
    }
    if (policy !== 'SingleStack' && this.dualStack && families.length === 1) families = [families[0]!, other(families[0]!)];
    if (policy === 'PreferDualStack' && !this.dualStack) families = families.slice(0, 1);
    families.forEach((f, i) => {
      if (!this.forFamily(f as IPFamily)) {
        errs.push({ field: `spec.ipFamilies[${i}]`, type: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(f)}: not configured on this cluster` });
      }
    });
    ips.forEach((ip, i) => {
      const f = familyOf(ip);
      if (i < families.length && f !== families[i]) {
        errs.push({ field: `spec.clusterIPs[${i}]`, type: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(ip)}: expected an ${families[i]} value as indicated by \`ipFamilies[${i}]\`` });
      }
    });
    if (ips.length > families.length) {
      errs.push({ field: 'spec.clusterIPs', type: 'FieldValueInvalid', message: `Invalid value: ${goStrings(ips)}: may specify no more than one IP for each IP family` });
    }
    if (errs.length) throw invalid('Service', name, '', errs);
    spec['ipFamilyPolicy'] = policy;
    spec['ipFamilies'] = families;
  }

  /**
   * One cluster IP per family the Service names, other than those it already holds (`held`), and
   * `apply` which writes clusterIP/clusterIPs once the wants have their offsets.
   */
  private clusterIPPlan(spec: Spec, held: string[], name: string): { wants: Want[]; apply(): void } {
    if (spec['clusterIP'] === 'None') {
      spec['clusterIPs'] = ['None'];
      return { wants: [], apply: () => undefined };
    }
    const families = stringList(spec['ipFamilies']) as IPFamily[];
    const given = stringList(spec['clusterIPs']);
    const result: string[] = [...given];
    const wants: Want[] = [];
    families.forEach((family, i) => {
      const f = this.forFamily(family)!;
      const chosen = given[i];
      if (chosen !== undefined && chosen !== '' && held.includes(chosen)) return;
      const want: Want = {
        alloc: f.alloc,
        band: clusterIPBandStart(f.range.size),
        assign: (offset) => {
          result[i] = f.range.ipAt(offset);
        },
        refused: (err) => ({
          field: 'spec.clusterIPs',
          type: 'FieldValueInvalid',
          message: `Invalid value: ${goStrings(given)}: failed to allocate IP ${chosen ?? ''}: ${err.message}`,
        }),
        full: 'failed to allocate a serviceIP: range is full',
      };
      if (chosen !== undefined && chosen !== '') {
        const offset = f.range.offsetOf(chosen);
        if (offset === undefined) {
          throw invalid('Service', name, '', [want.refused(new Error(`the provided IP (${chosen}) is not in the valid range. The range of valid IPs is ${f.range.cidr}`))]);
        }
        want.offset = offset;
      }
      wants.push(want);
    });
    return {
      wants,
      apply: () => {
        const ips = result.slice(0, Math.max(families.length, given.length)).map((ip) => canonicalIp(ip) ?? ip);
        spec['clusterIPs'] = ips;
        spec['clusterIP'] = ips[0];
      },
    };
  }

  /** Node ports (and the health-check node port) the Service needs beyond those in `held`. */
  private nodePortWants(spec: Spec, held: Set<number>, name: string): Want[] {
    const wants: Want[] = [];
    const band = nodePortBandStart(this.nodePortRange.size);
    const { base, size } = this.nodePortRange;
    const range = `${base}-${base + size - 1}`;
    const notInRange = () => new Error(`provided port is not in the valid range. The range of valid ports is ${range}`);
    if (needsNodePorts(spec)) {
      const ports = portsOf(spec);
      // Ports sharing a port number (TCP and UDP of one service) share a node port, as established.
      const byPort = new Map<number, Port[]>();
      const requested = new Set<number>();
      ports.forEach((p, i) => {
        const np = num(p['nodePort']);
        if (np > 0) {
          if (requested.has(np) || held.has(np)) return;
          requested.add(np);
          const offset = np - base;
          const refused = (err: Error): FieldError => ({ field: `spec.ports[${i}].nodePort`, type: 'FieldValueInvalid', message: `Invalid value: ${np}: ${err.message}` });
          if (offset < 0 || offset >= size) throw invalid('Service', name, '', [refused(notInRange())]);
          wants.push({ alloc: this.nodePorts, offset, band, assign: () => undefined, refused, full: '' });
          return;
        }
        const key = num(p['port']);
        const same = ports.find((q) => q !== p && num(q['port']) === key && num(q['nodePort']) > 0);
        if (same) {
          p['nodePort'] = num(same['nodePort']);
          return;
        }
        const group = byPort.get(key);
        if (group) group.push(p);
        else byPort.set(key, [p]);
      });
      for (const group of byPort.values()) {
        wants.push({
          alloc: this.nodePorts,
          band,
          assign: (offset) => {
            for (const p of group) p['nodePort'] = base + offset;
          },
          refused: (err) => ({ field: 'spec.ports', type: 'FieldValueInvalid', message: err.message }),
          full: 'failed to allocate a nodePort: range is full',
        });
      }
    }
    if (needsHealthCheckNodePort(spec)) {
      const hc = num(spec['healthCheckNodePort']);
      const refused = (err: Error): FieldError => ({
        field: 'spec.healthCheckNodePort',
        type: 'FieldValueInvalid',
        message: `Invalid value: ${hc}: failed to allocate requested HealthCheck NodePort ${hc}: ${err.message}`,
      });
      if (hc > 0 && !held.has(hc)) {
        const offset = hc - base;
        if (offset < 0 || offset >= size) throw invalid('Service', name, '', [refused(notInRange())]);
        wants.push({ alloc: this.nodePorts, offset, band, assign: () => undefined, refused, full: '' });
      } else if (hc === 0) {
        wants.push({
          alloc: this.nodePorts,
          band,
          assign: (offset) => {
            spec['healthCheckNodePort'] = base + offset;
          },
          refused,
          full: 'failed to allocate a HealthCheck NodePort: range is full',
        });
      }
    }
    return wants;
  }

  /**
   * Runs the wants together (one batch of the allocators); any refusal gives back what the others
   * took and throws the first refusal in field order. A dry run only checks.
   */
  private async run(wants: Want[], tx: Transaction, dryRun: boolean, name: string): Promise<void> {
    if (wants.length === 0) return;
    const results = await Promise.allSettled(
      wants.map((w) =>
        dryRun
          ? w.offset !== undefined
            ? w.alloc.checkFree(w.offset).then(() => w.offset!)
            : w.alloc.peekFree(w.band)
          : w.offset !== undefined
            ? w.alloc.allocate(w.offset)
            : w.alloc.allocateNext(w.band),
      ),
    );
    const errors: FieldError[] = [];
    let failure: StatusError | undefined;
    results.forEach((r, i) => {
      const w = wants[i]!;
      if (r.status === 'fulfilled') {
        if (!dryRun) tx.taken.push({ alloc: w.alloc, offset: r.value });
        return;
      }
      const err = r.reason as Error;
      if (err instanceof AllocatedError) errors.push(w.refused(err));
      else if (err instanceof RangeFullError) failure ??= internalError(`Internal error occurred: ${w.full}`);
      else failure ??= storageErrorStatus(err, this.logger);
    });
    if (errors.length > 0 || failure) {
      tx.finish(false);
      throw errors.length > 0 ? invalid('Service', name, '', errors) : failure!;
    }
    results.forEach((r, i) => wants[i]!.assign((r as PromiseFulfilledResult<number>).value));
  }
}

function goFamilies(list: readonly string[]): string {
  return `[]core.IPFamily{${list.map((x) => JSON.stringify(x)).join(', ')}}`;
}

/** clusterIP and clusterIPs[0] agree: the one given fills the other (established NormalizeClusterIPs). */
export function normalizeClusterIPs(spec: Spec, oldSpec: Spec | undefined): void {
  const ip = typeof spec['clusterIP'] === 'string' ? (spec['clusterIP'] as string) : '';
  const ips = stringList(spec['clusterIPs']);
  if (oldSpec && needsClusterIP(oldSpec)) {
    const oldIP = typeof oldSpec['clusterIP'] === 'string' ? oldSpec['clusterIP'] : '';
    const oldIPs = stringList(oldSpec['clusterIPs']);
    const ipsUnchanged = JSON.stringify(ips) === JSON.stringify(oldIPs);
    if (ip !== oldIP && ipsUnchanged) {
      // The user changed clusterIP alone: clusterIPs follows, so validation reports the change.
      if (ip === '') delete spec['clusterIPs'];
      else spec['clusterIPs'] = ips.length > 0 ? [ip, ...ips.slice(1)] : [ip];
      return;
    }
  }
  if (ip !== '' && ips.length === 0) spec['clusterIPs'] = [ip];
  else if (ip === '' && ips.length > 0 && typeof ips[0] === 'string') spec['clusterIP'] = ips[0];
}

/** Fields an update left unset that the stored Service has allocated (established PatchAllocatedValues). */
function patchAllocatedValues(ns: Spec, os: Spec): void {
  if (needsClusterIP(os) && needsClusterIP(ns)) {
    if (ns['clusterIP'] === undefined || ns['clusterIP'] === '') ns['clusterIP'] = os['clusterIP'];
    if (stringList(ns['clusterIPs']).length === 0 && ns['clusterIP'] === os['clusterIP'] && os['clusterIPs'] !== undefined) {
      ns['clusterIPs'] = [...stringList(os['clusterIPs'])];
    }
    if (stringList(ns['ipFamilies']).length === 0 && os['ipFamilies'] !== undefined) ns['ipFamilies'] = [...stringList(os['ipFamilies'])];
    if ((ns['ipFamilyPolicy'] === undefined || ns['ipFamilyPolicy'] === null) && os['ipFamilyPolicy'] !== undefined) ns['ipFamilyPolicy'] = os['ipFamilyPolicy'];
  }
  if (needsNodePorts(os) && needsNodePorts(ns)) {
    const used = new Set(portsOf(ns).map((p) => num(p['nodePort'])).filter((n) => n > 0));
    const byName = new Map<string, number>();
    for (const p of portsOf(os)) byName.set(String(p['name'] ?? ''), num(p['nodePort']));
    for (const p of portsOf(ns)) {
      if (num(p['nodePort']) !== 0) continue;
      const old = byName.get(String(p['name'] ?? '')) ?? 0;
      if (old > 0 && !used.has(old)) {
        p['nodePort'] = old;
        used.add(old);
      }
    }
  }
  if (needsHealthCheckNodePort(os) && needsHealthCheckNodePort(ns) && num(ns['healthCheckNodePort']) === 0 && num(os['healthCheckNodePort']) > 0) {
    ns['healthCheckNodePort'] = os['healthCheckNodePort'];
  }
}

/** A type change away from what needed a value drops the value the client did not change (established dropTypeDependentFields). */
function dropTypeDependentFields(ns: Spec, os: Spec): void {
  const same = (k: string) => JSON.stringify(ns[k]) === JSON.stringify(os[k]);
  if (needsClusterIP(os) && !needsClusterIP(ns)) {
    if (same('clusterIP') && same('clusterIPs')) {
      delete ns['clusterIP'];
      delete ns['clusterIPs'];
    }
    if (same('ipFamilies')) delete ns['ipFamilies'];
    if (same('ipFamilyPolicy')) delete ns['ipFamilyPolicy'];
    if (same('internalTrafficPolicy')) delete ns['internalTrafficPolicy'];
  }
  if (needsNodePorts(os) && !needsNodePorts(ns)) {
    const oldPorts = new Map(portsOf(os).map((p) => [`${String(p['port'])}/${String(p['protocol'] ?? 'TCP')}`, num(p['nodePort'])]));
    const unchanged = portsOf(ns).every((p) => num(p['nodePort']) === 0 || oldPorts.get(`${String(p['port'])}/${String(p['protocol'] ?? 'TCP')}`) === num(p['nodePort']));
    if (unchanged) for (const p of portsOf(ns)) delete p['nodePort'];
  }
  if (needsHealthCheckNodePort(os) && !needsHealthCheckNodePort(ns) && same('healthCheckNodePort')) delete ns['healthCheckNodePort'];
  const external = (spec: Spec) => spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer';
  if (external(os) && !external(ns) && same('externalTrafficPolicy')) delete ns['externalTrafficPolicy'];
  if (os['type'] === 'LoadBalancer' && ns['type'] !== 'LoadBalancer' && same('allocateLoadBalancerNodePorts')) delete ns['allocateLoadBalancerNodePorts'];
}
