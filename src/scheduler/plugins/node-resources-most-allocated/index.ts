/**
 * NodeResourcesMostAllocated (score): prefers the fullest nodes that still fit, packing pods so
 * empty nodes can be removed (the legacy `ClusterAutoscalerProvider` uses it in place of
 * LeastAllocated). Per resource `requested * 100 / allocatable`, averaged with the same weights.
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { DEFAULT_RESOURCE_WEIGHTS, resourceWeights, weightedResourceScore, type ResourceWeight } from '../node-resources-least-allocated/index.js';

export const name = 'NodeResourcesMostAllocated';

export function mostAllocatedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return (requested * MAX_NODE_SCORE) / capacity;
}

export function score(pod: PodInfo, node: NodeInfo, weights: readonly ResourceWeight[] = DEFAULT_RESOURCE_WEIGHTS, state?: CycleState): number {
  return weightedResourceScore(pod, node, weights, mostAllocatedScore, state);
}

export function factory(args: Readonly<Record<string, unknown>>): Plugin {
  const weights = resourceWeights(args['resources']);
  const plugin: ScorePlugin = { name, score: (s, pod, node) => score(pod, node, weights, s) };
  return plugin;
}
