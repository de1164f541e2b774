/**
 * NodeResourcesBalancedAllocation (score): prefers nodes whose cpu and memory would be used in
 * similar fractions after the pod, as established: `(1 - |cpuFraction - memoryFraction|) * 100`;
 * a node where either fraction reaches 1 scores 0. Uses scoring's non-zero requests.
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import { HOT_ALLOC_CPU, HOT_ALLOC_MEMORY, HOT_NONZERO_MEMORY, type NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const name = 'NodeResourcesBalancedAllocation';

function fraction(requested: number, capacity: number): number {
  return capacity === 0 ? 1 : requested / capacity;
}

export function score(pod: PodInfo, node: NodeInfo): number {
  // Read straight from the node's hot numbers (this runs for every feasible node of every pod).
  const h = node.hot;
  const cpu = fraction(node.nonZeroMilliCPU + pod.nonZeroRequests.milliCPU, h[HOT_ALLOC_CPU]!);
  const mem = fraction(h[HOT_NONZERO_MEMORY]! + pod.nonZeroRequests.memory, h[HOT_ALLOC_MEMORY]!);
  if (cpu >= 1 || mem >= 1) return 0;
  return Math.floor((1 - Math.abs(cpu - mem)) * MAX_NODE_SCORE);
}

export function factory(): Plugin {
  const plugin: ScorePlugin = { name, score: (_s, pod, node) => score(pod, node) };
  return plugin;
}
