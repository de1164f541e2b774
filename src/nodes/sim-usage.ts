/**
 * Simulated resource usage: how much cpu and memory a running pod's containers use, and the
 * PodMetrics / NodeMetrics objects (metrics.svc.io/v1beta1) that report it where an autoscaler
 * reads usage. A pod's usage comes from its annotations (`sim.svc.io/cpu-usage`,
 * `sim.svc.io/memory-usage`: the whole pod's, shared among its containers in proportion to their
 * requests) or, without them, from its node's `podUsage` fraction of each container's requests.
 * A pod with neither reports nothing (no write is spent on it).
 */
import type { NodeMetrics, Pod, PodMetrics } from '../api/generated/kinds.js';
import { rfc3339 } from '../api/time.js';
import { parseQuantity } from '../api/validation/quantity.js';
import { ANNOTATION_CPU_USAGE, ANNOTATION_MEMORY_USAGE } from './sim-annotations.js';

/** What metrics-server's samples cover; reported as each object's `window`. */
export const USAGE_WINDOW = '30s';

/** One container's usage: cpu in cores, memory in bytes. */
export interface ContainerUsage {
  name: string;
  cpu: number;
  memory: number;
}

/** Usage of the pod's app containers, or undefined when nothing asks for it to be reported. */
export function podUsage(pod: Pod, podUsageFraction: number): ContainerUsage[] | undefined {
  const containers = pod.spec?.containers ?? [];
  if (!containers.length) return undefined;
  const ann = pod.metadata.annotations;
  const cpuTotal = usageAnnotation(ann?.[ANNOTATION_CPU_USAGE]);
  const memTotal = usageAnnotation(ann?.[ANNOTATION_MEMORY_USAGE]);
  if (cpuTotal === undefined && memTotal === undefined && !(podUsageFraction > 0)) return undefined;
  const requests = containers.map((c) => c.resources?.requests ?? {});
  const share = (resource: 'cpu' | 'memory', total: number | undefined): number[] => {
    const asked = requests.map((r) => parseQuantity(r[resource]) ?? 0);
    if (total === undefined) return asked.map((q) => q * podUsageFraction);
    const sum = asked.reduce((a, b) => a + b, 0);
    // Shared in proportion to requests; evenly when none is requested.
    return asked.map((q) => (sum > 0 ? (total * q) / sum : total / containers.length));
  };
  const cpu = share('cpu', cpuTotal);
  const memory = share('memory', memTotal);
  return containers.map((c, i) => ({ name: c.name ?? '', cpu: cpu[i]!, memory: memory[i]! }));
}

/** A usage annotation's quantity, or undefined when absent or not a non-negative quantity. */
function usageAnnotation(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const q = parseQuantity(v);
  return q !== undefined && q >= 0 ? q : undefined;
}

/** Cpu as the metrics API writes it: whole nanocores below a millicore, else millicores. */
export function formatCpu(cores: number): string {
  const nano = Math.round(cores * 1e9);
  return nano % 1e6 === 0 ? `${nano / 1e6}m` : `${nano}n`;
}

/** Memory in KiB, as metrics-server reports it. */
export function formatMemory(bytes: number): string {
  return `${Math.round(bytes / 1024)}Ki`;
}

/** The PodMetrics of a pod (its name, namespace and labels). */
export function podMetricsObject(pod: Pod, usage: readonly ContainerUsage[], now: number): PodMetrics {
  const labels = pod.metadata.labels;
  return {
    apiVersion: 'metrics.svc.io/v1beta1',
    kind: 'PodMetrics',
    metadata: {
      name: pod.metadata.name ?? '',
      namespace: pod.metadata.namespace ?? '',
      ...(labels ? { labels: { ...labels } } : {}),
      // Owned by the pod, so the garbage collector removes what a stopped fleet left behind.
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' }],
    },
    timestamp: rfc3339(now),
    window: USAGE_WINDOW,
    containers: usage.map((c) => ({ name: c.name, usage: { cpu: formatCpu(c.cpu), memory: formatMemory(c.memory) } })),
  };
}

/** The NodeMetrics of a node: the sum of its running pods' usage. */
export function nodeMetricsObject(nodeName: string, pods: Iterable<readonly ContainerUsage[]>, now: number): NodeMetrics {
  let cpu = 0;
  let memory = 0;
  for (const p of pods) for (const c of p) (cpu += c.cpu), (memory += c.memory);
  return {
    apiVersion: 'metrics.svc.io/v1beta1',
    kind: 'NodeMetrics',
    metadata: { name: nodeName },
    timestamp: rfc3339(now),
    window: USAGE_WINDOW,
    usage: { cpu: formatCpu(cpu), memory: formatMemory(memory) },
  };
}
