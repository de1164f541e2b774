/**
 * NodeResourcesBalancedAllocation (score): prefers nodes whose cpu and memory would be used in
 * similar fractions after the pod, as established: `(1 - |cpuFraction - memoryFraction|) * 100`;
 * a node where either fraction reaches 1 scores 0. Uses scoring's non-zero requests.
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { CPU, MEMORY } from '../../framework/resources.js';
import { allocatableOf, requestedOf } from '../node-resources-least-allocated/index.js';

export const name = 'NodeResourcesBalancedAllocation';

function fraction(requested: number, capacity: number): number {
  return capacity === 0 ? 1 : requested / capacity;
}

export function score(pod: PodInfo, node: NodeInfo, state?: CycleState): number {
  // From the node's table row when the cycle is on it (this runs for every feasible node of every pod).
  const cpu = fraction(requestedOf(pod, node, CPU, state), allocatableOf(node, CPU, state));
  const mem = fraction(requestedOf(pod, node, MEMORY, state), allocatableOf(node, MEMORY, state));
  if (cpu >= 1 || mem >= 1) return 0;
  return Math.floor((1 - Math.abs(cpu - mem)) * MAX_NODE_SCORE);
}

export function factory(): Plugin {
  const plugin: ScorePlugin = { name, score: (s, pod, node) => score(pod, node, s) };
  return plugin;
}
