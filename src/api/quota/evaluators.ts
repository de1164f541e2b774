/**
 * Quota evaluators: what one object of a kind uses of the quota-able resources, and which of a
 * quota's resource names a kind's objects can use (the established evaluators: pods, services,
 * persistent volume claims, the legacy object counts, and `count/<resource>.<group>` for any kind).
 * The admission plugin (src/apiserver/admission/resource-quota.ts) and the resourcequota controller
 * (controllers/resourcequota) both count with these, so a charge and a recalculation agree.
 *
 * Pods (as established): `pods` and `count/pods`; requests (`requests.cpu` and its legacy alias
 * `cpu`, memory, ephemeral-storage, `requests.<extended>`, hugepages) and limits; a request left
 * out but limited counts the limit (the API's defaulting); init containers take the larger of their
 * largest and the sum of the app containers; overhead is added. A pod that has finished (Succeeded,
 * Failed) or whose deletion grace period has run out counts only towards `count/pods`.
 */
import { QuotaAmounts } from './amounts.js';

export interface QuotaKind {
  group: string;
  plural: string;
}

const STORAGE_CLASS_SUFFIXES = ['.storageclass.storage.svc.io/', '.storageclass.storage.k8s.io/'];
/** Object counts that also have their established bare names (`pods`, `secrets` ...). */
const LEGACY_COUNTS = new Set(['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage']);
/** Resources a quota on cpu or memory makes every container state (established validation set). */
const MUST_SPECIFY = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** `count/pods`, `count/deployments.apps`. */
export function countName(k: QuotaKind): string {
  return k.group ? `count/${k.plural}.${k.group}` : `count/${k.plural}`;
}

const isPods = (k: QuotaKind) => k.group === '' && k.plural === 'pods';

/** Whether a resource name is a pod's compute resource (what scoped quotas may track beside `pods`). */
export function isPodComputeResource(name: string): boolean {
  if (POD_COMPUTE.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-')) return true;
  // Extended resources are quota'd by their request only (`requests.example.com/gpu`).
  return name.startsWith('requests.') && name.includes('/');
}

/** Of a quota's resource names, those objects of kind `k` use. */
export function matchingResources(k: QuotaKind, names: Iterable<string>): string[] {
  const count = countName(k);
  const legacy = k.group === '' && LEGACY_COUNTS.has(k.plural) ? k.plural : undefined;
  return [...names].filter((n) => {
    if (n === count || n === legacy) return true;
    if (k.group !== '') return false;
    if (k.plural === 'pods') return isPodComputeResource(n);
    if (k.plural === 'services') return n === 'services.loadbalancers' || n === 'services.nodeports';
    if (k.plural === 'persistentvolumeclaims') return n === 'requests.storage' || STORAGE_CLASS_SUFFIXES.some((s) => n.includes(s));
    return false;
  });
}

interface Resources {
  requests?: Record<string, unknown>;
  limits?: Record<string, unknown>;
}
interface PodLike {
  metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  spec?: { containers?: { name?: string; resources?: Resources }[]; initContainers?: { name?: string; resources?: Resources }[]; overhead?: Record<string, unknown> };
  status?: { phase?: string };
}

/** Whether a pod still counts its compute resources (established QuotaV1Pod). */
export function podCountsCompute(pod: PodLike, nowMs: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const del = pod.metadata.deletionTimestamp;
  if (del && typeof pod.metadata.deletionGracePeriodSeconds === 'number') {
    // deletionTimestamp is already "when the grace period ends"; past it (plus the grace again, as
    // established) the node has stopped the pod.
    if (nowMs > Date.parse(del) + pod.metadata.deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

/** One container's requests (a limit stands in for a request left out) and limits. */
function containerAmounts(r: Resources | undefined): { req: QuotaAmounts; lim: QuotaAmounts } {
  const req = QuotaAmounts.fromList(r?.requests);
  const lim = QuotaAmounts.fromList(r?.limits);
  for (const name of lim.names()) if (!req.has(name)) req.addQuantity(name, r!.limits![name]);
  return { req, lim };
}

function maxInto(into: QuotaAmounts, x: QuotaAmounts): QuotaAmounts {
  const out = into.copy();
  for (const n of x.names()) if (x.get(n) > out.get(n)) out.addMilli(n, x.get(n) - out.get(n), x.isBinary(n));
  return out;
}

/** A pod's effective requests and limits (app sum, init max, overhead). */
export function podRequestsAndLimits(pod: PodLike): { requests: QuotaAmounts; limits: QuotaAmounts } {
  let requests = new QuotaAmounts();
  let limits = new QuotaAmounts();
  // (let: init containers replace them with the larger of the two)
  for (const c of pod.spec?.containers ?? []) {
    const a = containerAmounts(c.resources);
    requests.addAll(a.req);
    limits.addAll(a.lim);
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const a = containerAmounts(c.resources);
    requests = maxInto(requests, a.req);
    limits = maxInto(limits, a.lim);
  }
  if (pod.spec?.overhead) {
    const o = QuotaAmounts.fromList(pod.spec.overhead);
    requests.addAll(o);
    // Overhead adds to limits only where the pod has a limit.
    for (const n of o.names()) if (limits.has(n)) limits.addMilli(n, o.get(n));
  }
  return { requests, limits };
}

function podUsage(pod: PodLike, nowMs: number): QuotaAmounts {
  const out = new QuotaAmounts().addMilli('count/pods', 1000n);
  if (!podCountsCompute(pod, nowMs)) return out;
  out.addMilli('pods', 1000n);
  const { requests, limits } = podRequestsAndLimits(pod);
  for (const n of requests.names()) {
    const bin = requests.isBinary(n);
    if (n === 'cpu' || n === 'memory' || n === 'ephemeral-storage') {
      out.addMilli(n, requests.get(n), bin).addMilli(`requests.${n}`, requests.get(n), bin);
    } else if (n.startsWith('hugepages-')) {
      out.addMilli(n, requests.get(n), bin).addMilli(`requests.${n}`, requests.get(n), bin);
    } else if (n.includes('/')) {
      out.addMilli(`requests.${n}`, requests.get(n), bin);
    }
  }
  for (const n of ['cpu', 'memory', 'ephemeral-storage']) if (limits.has(n)) out.addMilli(`limits.${n}`, limits.get(n), limits.isBinary(n));
  return out;
}

interface ServiceLike {
  spec?: { type?: string; ports?: { nodePort?: number }[]; allocateLoadBalancerNodePorts?: boolean };
}

function serviceUsage(svc: ServiceLike): QuotaAmounts {
  const out = new QuotaAmounts().addMilli('services', 1000n).addMilli('count/services', 1000n);
  const ports = svc.spec?.ports ?? [];
  if (svc.spec?.type === 'NodePort') out.addMilli('services.nodeports', BigInt(ports.length) * 1000n);
  if (svc.spec?.type === 'LoadBalancer') {
    out.addMilli('services.loadbalancers', 1000n);
    const nodePorts = svc.spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length;
    out.addMilli('services.nodeports', BigInt(nodePorts) * 1000n);
  }
  return out;
}

interface ClaimLike {
  metadata: { annotations?: Record<string, string> };
  spec?: { storageClassName?: string; resources?: { requests?: Record<string, unknown> } };
  status?: { allocatedResources?: Record<string, unknown> };
}

function claimUsage(pvc: ClaimLike): QuotaAmounts {
  const out = new QuotaAmounts().addMilli('persistentvolumeclaims', 1000n).addMilli('count/persistentvolumeclaims', 1000n);
  const asked = pvc.spec?.resources?.requests?.['storage'];
  const allocated = pvc.status?.allocatedResources?.['storage'];
  // A claim being expanded counts the larger of what it asks and what it was given.
  const storage = [asked, allocated].filter((q) => q !== undefined).sort((a, b) => (QuotaAmounts.fromList({ s: a }).get('s') < QuotaAmounts.fromList({ s: b }).get('s') ? 1 : -1))[0];
  const cls = pvc.spec?.storageClassName ?? pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '';
  if (storage !== undefined) out.addQuantity('requests.storage', storage);
  if (cls) {
    for (const suffix of STORAGE_CLASS_SUFFIXES) {
      out.addMilli(`${cls}${suffix}persistentvolumeclaims`, 1000n);
      if (storage !== undefined) out.addQuantity(`${cls}${suffix}requests.storage`, storage);
    }
  }
  return out;
}

/** Everything one object uses (of the resources its kind can use). */
export function usageOf(k: QuotaKind, obj: unknown, nowMs: number): QuotaAmounts {
  if (k.group === '') {
    if (k.plural === 'pods') return podUsage(obj as PodLike, nowMs);
    if (k.plural === 'services') return serviceUsage(obj as ServiceLike);
    if (k.plural === 'persistentvolumeclaims') return claimUsage(obj as ClaimLike);
  }
  const out = new QuotaAmounts().addMilli(countName(k), 1000n);
  if (k.group === '' && LEGACY_COUNTS.has(k.plural)) out.addMilli(k.plural, 1000n);
  return out;
}

/** Whether the kind's usage is the pod evaluator's (scopes apply to it alone). */
export function isPodKind(k: QuotaKind): boolean {
  return isPods(k);
}

/**
 * The established pod constraint: with a quota on cpu or memory, every container must state it.
 * Returns `must specify limits.cpu for: a,b; memory for: a` or undefined.
 */
export function podConstraintViolation(pod: PodLike, required: Iterable<string>): string | undefined {
  const need = new Set([...required].filter((r) => MUST_SPECIFY.includes(r)));
  if (need.size === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    const has = new Set<string>();
    for (const n of ['cpu', 'memory']) {
      if (req[n] !== undefined || lim[n] !== undefined) has.add(n).add(`requests.${n}`);
      if (lim[n] !== undefined) has.add(`limits.${n}`);
    }
    for (const r of need) if (!has.has(r)) (missing.get(r) ?? missing.set(r, new Set()).get(r)!).add(c.name ?? '');
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
