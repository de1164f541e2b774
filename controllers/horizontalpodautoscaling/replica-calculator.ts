/**
 * The HPA replica calculation for resource metrics (the established replica calculator): from the
 * target's pods, their usage samples and a target, the replica count the metric asks for.
 *
 * Rules (established):
 * - Pods being deleted and Failed pods are ignored; Pending pods are unready. For cpu, a pod still
 *   within `cpuInitializationPeriod` of its start is unready unless it is Ready and its sample was
 *   taken a whole window after it became Ready; after that period, a pod that is not Ready and
 *   whose readiness last changed within `initialReadinessDelay` of its start (it never got ready)
 *   is unready. Unready pods' samples are set aside; pods without a sample are missing.
 * - ratio = usage / target over the ready pods with samples. Without unready (on a scale-up) or
 *   missing pods: within `tolerance` of 1 keeps the current count, else ceil(ratio x ready pods).
 * - Otherwise missing pods count as using 100% of their request (target) on a scale-down and 0 on
 *   a scale-up; unready pods as 0 on a scale-up. The ratio is computed again; if it is within
 *   tolerance or flipped direction the count stays; a new count that goes the other way stays too.
 * - Utilization targets need every container's request of the resource (`missing request for cpu`).
 */

export interface PodForMetrics {
  name: string;
  phase: string | undefined;
  deleting: boolean;
  /** Pod status.startTime (ms); undefined before it is known. */
  startTime: number | undefined;
  ready: boolean;
  /** lastTransitionTime of the Ready condition (ms). */
  readyTransition: number | undefined;
  /** Sum of the containers' requests of the resource (in milli-units); undefined: a container asks nothing. */
  request: number | undefined;
}

export interface MetricSample {
  /** Usage in milli-units (millicores, milli-bytes). */
  value: number;
  timestamp: number;
  windowMs: number;
}

export interface CalculatorSettings {
  tolerance: number;
  cpuInitializationPeriodMs: number;
  initialReadinessDelayMs: number;
}

export interface ReplicaResult {
  replicas: number;
  /** Utilization percent (for Utilization targets). */
  utilization: number;
  /** Average usage per ready pod with a sample (milli-units). */
  rawAverage: number;
}

export class MetricError extends Error {}

interface Grouped {
  ready: Map<string, number>;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

export function groupPods(pods: readonly PodForMetrics[], samples: ReadonlyMap<string, MetricSample>, resource: string, s: CalculatorSettings, now: number): Grouped {
  const g: Grouped = { ready: new Map(), unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const p of pods) {
    if (p.deleting || p.phase === 'Failed') {
      g.ignored.add(p.name);
      continue;
    }
    if (p.phase === 'Pending') {
      g.unready.add(p.name);
      continue;
    }
    const m = samples.get(p.name);
    if (!m) {
      g.missing.add(p.name);
      continue;
    }
    if (resource === 'cpu') {
      let unready = false;
      if (p.startTime === undefined || p.readyTransition === undefined) unready = !p.ready;
      else if (p.startTime + s.cpuInitializationPeriodMs > now) {
        // Still initializing: only a Ready pod whose sample postdates readiness by a window counts.
        unready = !p.ready || m.timestamp < p.readyTransition + m.windowMs;
      } else {
        // Initialized: unready only if it never became ready after starting.
        unready = !p.ready && p.startTime + s.initialReadinessDelayMs > p.readyTransition;
      }
      if (unready) {
        g.unready.add(p.name);
        continue;
      }
    }
    g.ready.set(p.name, m.value);
  }
  return g;
}

function requestsOf(pods: readonly PodForMetrics[], resource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pods) {
    if (p.request === undefined) throw new MetricError(`missing request for ${resource} in container of pod ${p.name}`);
    out.set(p.name, p.request);
  }
  return out;
}

/** Utilization (percent) and average of `metrics` against the pods' requests. */
function utilizationOf(metrics: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>, target: number): { ratio: number; utilization: number; average: number } {
  let used = 0;
  let asked = 0;
  for (const [name, v] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    used += v;
    asked += r;
  }
  if (asked === 0) throw new MetricError('no metrics returned matched known pods');
  const utilization = Math.trunc((used * 100) / asked);
  return { ratio: utilization / target, utilization, average: used / metrics.size };
}

/** Desired replicas for a resource Utilization target (percent). */
export function replicasForUtilization(
  current: number, target: number, resource: string, pods: readonly PodForMetrics[], samples: ReadonlyMap<string, MetricSample>, s: CalculatorSettings, now: number,
): ReplicaResult {
  if (samples.size === 0) throw new MetricError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  if (pods.length === 0) throw new MetricError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, samples, resource, s, now);
  const metrics = new Map(g.ready);
  const requests = requestsOf(pods.filter((p) => !g.ignored.has(p.name)), resource);
  if (metrics.size === 0 && g.missing.size === 0) throw new MetricError('did not receive metrics for targeted pods (pods might be unready)');
  const readyCount = metrics.size;
  const { ratio, utilization, average } = utilizationOf(metrics, requests, target);
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - ratio) <= s.tolerance) return { replicas: current, utilization, rawAverage: average };
    return { replicas: Math.ceil(ratio * readyCount), utilization, rawAverage: average };
  }
  if (g.missing.size > 0) {
    // Scale down: missing pods as if at 100% of their request; scale up: as if idle.
    for (const name of g.missing) metrics.set(name, ratio < 1 ? requests.get(name) ?? 0 : 0);
  }
  if (scaleUpWithUnready) for (const name of g.unready) metrics.set(name, 0);
  const again = utilizationOf(metrics, requests, target).ratio;
  if (Math.abs(1 - again) <= s.tolerance || (ratio < 1 && again > 1) || (ratio > 1 && again < 1)) return { replicas: current, utilization, rawAverage: average };
  const replicas = Math.ceil(again * metrics.size);
  if ((again < 1 && replicas > current) || (again > 1 && replicas < current)) return { replicas: current, utilization, rawAverage: average };
  return { replicas, utilization, rawAverage: average };
}

/** Desired replicas for a resource AverageValue target (milli-units per pod). */
export function replicasForAverageValue(
  current: number, targetMilli: number, resource: string, pods: readonly PodForMetrics[], samples: ReadonlyMap<string, MetricSample>, s: CalculatorSettings, now: number,
): ReplicaResult {
  if (samples.size === 0) throw new MetricError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  if (pods.length === 0) throw new MetricError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, samples, resource, s, now);
  const metrics = new Map(g.ready);
  if (metrics.size === 0 && g.missing.size === 0) throw new MetricError('did not receive metrics for targeted pods (pods might be unready)');
  const sum = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const readyCount = metrics.size;
  const average = readyCount ? sum(metrics) / readyCount : 0;
  const ratio = sum(metrics) / (targetMilli * Math.max(readyCount, 1));
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - ratio) <= s.tolerance) return { replicas: current, utilization: 0, rawAverage: average };
    return { replicas: Math.ceil(ratio * readyCount), utilization: 0, rawAverage: average };
  }
  for (const name of g.missing) metrics.set(name, ratio < 1 ? targetMilli : 0);
  if (scaleUpWithUnready) for (const name of g.unready) metrics.set(name, 0);
  const again = sum(metrics) / (targetMilli * metrics.size);
  if (Math.abs(1 - again) <= s.tolerance || (ratio < 1 && again > 1) || (ratio > 1 && again < 1)) return { replicas: current, utilization: 0, rawAverage: average };
  const replicas = Math.ceil(again * metrics.size);
  if ((again < 1 && replicas > current) || (again > 1 && replicas < current)) return { replicas: current, utilization: 0, rawAverage: average };
  return { replicas, utilization: 0, rawAverage: average };
}
