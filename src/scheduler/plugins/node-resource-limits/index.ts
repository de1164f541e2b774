/**
 * NodeResourceLimits (score; feature gate ResourceLimitsPriorityFunction, off by default): a small
 * tie-breaker, as established: 1 when the node's allocatable covers the pod's cpu limit or its
 * memory limit (a limit of 0 counts as not set), else 0.
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { resourcesFromList, type Resources } from '../../framework/resources.js';

export const name = 'NodeResourceLimits';

/** The sum of the containers' limits (init containers and overhead do not count for this score). */
export function podLimits(pod: PodInfo): Resources {
  const total = resourcesFromList(undefined);
  for (const c of pod.pod.spec?.containers ?? []) {
    const l = resourcesFromList(c.resources?.limits);
    total.milliCPU += l.milliCPU;
    total.memory += l.memory;
  }
  return total;
}

export function score(pod: PodInfo, node: NodeInfo): number {
  const limits = podLimits(pod);
  const cpuFits = limits.milliCPU !== 0 && node.allocatable.milliCPU >= limits.milliCPU;
  const memFits = limits.memory !== 0 && node.allocatable.memory >= limits.memory;
  return cpuFits || memFits ? 1 : 0;
}

export function factory(): Plugin {
  const plugin: ScorePlugin = { name, score: (_s, pod, node) => score(pod, node) };
  return plugin;
}
