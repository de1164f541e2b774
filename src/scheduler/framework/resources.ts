/**
 * Resource arithmetic as the established scheduler counts it: cpu in millicores, memory and
 * ephemeral storage in bytes, extended resources as integers. A pod's request is the larger of
 * (sum of its containers) and (each init container alone), plus its overhead (PodOverhead).
 */
import { parseQuantity } from '../../api/validation/quantity.js';
import type { Container, Pod } from './objects.js';

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

/** What scoring assumes for a container that requests nothing (as established: 100m, 200Mi). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** Amounts of resources. `scalar` holds extended resources (`example.com/gpu`, `hugepages-2Mi`). */
export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Only meaningful for allocatable (a node's pod capacity). */
  allowedPodNumber: number;
  scalar: Map<string, number>;
}

export function emptyResources(): Resources {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: new Map() };
}

/** Whether a resource name is counted as an extended (scalar) resource. */
export function isScalarResourceName(name: string): boolean {
  return name !== CPU && name !== MEMORY && name !== EPHEMERAL_STORAGE && name !== PODS && (name.includes('/') || name.startsWith('hugepages-') || name.startsWith('attachable-volumes-'));
}

/** Parses a resource list (`{cpu: '500m', memory: '1Gi'}`); unparseable quantities count as 0. */
export function resourcesFromList(list: Readonly<Record<string, unknown>> | undefined): Resources {
  const r = emptyResources();
  if (!list) return r;
  for (const [name, q] of Object.entries(list)) addQuantity(r, name, q, 1);
  return r;
}

function addQuantity(r: Resources, name: string, q: unknown, sign: 1 | -1): void {
  const v = parseQuantity(q) ?? 0;
  switch (name) {
    case CPU: r.milliCPU += sign * Math.ceil(v * 1000); break;
    case MEMORY: r.memory += sign * Math.ceil(v); break;
    case EPHEMERAL_STORAGE: r.ephemeralStorage += sign * Math.ceil(v); break;
    case PODS: r.allowedPodNumber += sign * Math.floor(v); break;
    default:
      if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + sign * Math.ceil(v));
  }
}

export function addResources(into: Resources, r: Resources, sign: 1 | -1 = 1): void {
  into.milliCPU += sign * r.milliCPU;
  into.memory += sign * r.memory;
  into.ephemeralStorage += sign * r.ephemeralStorage;
  for (const [k, v] of r.scalar) into.scalar.set(k, (into.scalar.get(k) ?? 0) + sign * v);
}

function maxInto(into: Resources, r: Resources): void {
  into.milliCPU = Math.max(into.milliCPU, r.milliCPU);
  into.memory = Math.max(into.memory, r.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, r.ephemeralStorage);
  for (const [k, v] of r.scalar) into.scalar.set(k, Math.max(into.scalar.get(k) ?? 0, v));
}

function containerRequests(c: Container): Resources {
  return resourcesFromList(c.resources?.requests);
}

/**
 * The pod's effective request. With `nonZero`, containers that request no cpu/memory count the
 * defaults above (used by scoring so that best-effort pods still spread).
 */
export function podRequests(pod: Pod, opts: { nonZero?: boolean; overhead?: boolean } = {}): Resources {
  const spec = pod.spec;
  const total = emptyResources();
  for (const c of spec?.containers ?? []) {
    const r = containerRequests(c);
    if (opts.nonZero) {
      if (r.milliCPU === 0) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
      if (r.memory === 0) r.memory = DEFAULT_MEMORY_REQUEST;
    }
    addResources(total, r);
  }
  // Init containers run one at a time before the others: the pod needs the largest of them.
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    if (opts.nonZero) {
      if (r.milliCPU === 0) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
      if (r.memory === 0) r.memory = DEFAULT_MEMORY_REQUEST;
    }
    maxInto(total, r);
  }
  if (opts.overhead !== false && spec?.overhead) addResources(total, resourcesFromList(spec.overhead));
  return total;
}

/** A node's allocatable resources (falls back to capacity when allocatable is not reported). */
export function nodeAllocatable(status: { allocatable?: Record<string, unknown>; capacity?: Record<string, unknown> } | undefined): Resources {
  return resourcesFromList(status?.allocatable ?? status?.capacity);
}
