/**
 * NodeResourcesLeastAllocated (score): prefers nodes with the most room left after the pod,
 * as established: per resource `(allocatable - requested) * 100 / allocatable`, averaged with
 * weights (cpu 1, memory 1 by default; arg `resources: [{name, weight}]`). Requests use scoring's
 * non-zero defaults so best-effort pods spread too.
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { COL_ALLOC_CPU, COL_ALLOC_MEMORY, COL_NONZERO_CPU, COL_NONZERO_MEMORY, rowOf } from '../../framework/node-table.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { CPU, MEMORY, type Resources } from '../../framework/resources.js';

export const name = 'NodeResourcesLeastAllocated';

export interface ResourceWeight {
  name: string;
  weight: number;
}

export const DEFAULT_RESOURCE_WEIGHTS: readonly ResourceWeight[] = [{ name: CPU, weight: 1 }, { name: MEMORY, weight: 1 }];

/** The amount of `resource` in `r` as scoring counts it. */
export function amountOf(r: Resources, resource: string): number {
  if (resource === CPU) return r.milliCPU;
  if (resource === MEMORY) return r.memory;
  if (resource === 'ephemeral-storage') return r.ephemeralStorage;
  return r.scalar.get(resource) ?? 0;
}

/**
 * Requested (the node's non-zero requests plus the pod's) of one resource. With `state` on the
 * node's table row, cpu and memory (nearly every call) come from the row, not the NodeInfo.
 */
export function requestedOf(pod: PodInfo, node: NodeInfo, resource: string, state?: CycleState): number {
  const row = state ? rowOf(state, node) : -1;
  if (row >= 0 && resource === CPU) return state!.table!.get(row, COL_NONZERO_CPU) + pod.nonZeroRequests.milliCPU;
  if (row >= 0 && resource === MEMORY) return state!.table!.get(row, COL_NONZERO_MEMORY) + pod.nonZeroRequests.memory;
  return amountOf(node.nonZeroRequested, resource) + amountOf(pod.nonZeroRequests, resource);
}

/** Allocatable of one resource (from the node's table row for cpu and memory, as `requestedOf`). */
export function allocatableOf(node: NodeInfo, resource: string, state?: CycleState): number {
  const row = state ? rowOf(state, node) : -1;
  if (row >= 0 && resource === CPU) return state!.table!.get(row, COL_ALLOC_CPU);
  if (row >= 0 && resource === MEMORY) return state!.table!.get(row, COL_ALLOC_MEMORY);
  return amountOf(node.allocatable, resource);
}

export function leastAllocatedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return ((capacity - requested) * MAX_NODE_SCORE) / capacity;
}

/** The weighted average over `weights` of `perResource(requested, allocatable)` (the allocation scores' shared shape). */
export function weightedResourceScore(
  pod: PodInfo, node: NodeInfo, weights: readonly ResourceWeight[], perResource: (requested: number, capacity: number) => number, state?: CycleState,
): number {
  let total = 0;
  let weightSum = 0;
  for (const { name: res, weight } of weights) {
    const req = requestedOf(pod, node, res, state);
    const cap = allocatableOf(node, res, state);
    // Extended resources the node does not have do not count (established).
    if (cap === 0 && res !== CPU && res !== MEMORY) continue;
    total += perResource(req, cap) * weight;
    weightSum += weight;
  }
  return weightSum === 0 ? 0 : Math.floor(total / weightSum);
}

export function score(pod: PodInfo, node: NodeInfo, weights: readonly ResourceWeight[] = DEFAULT_RESOURCE_WEIGHTS, state?: CycleState): number {
  return weightedResourceScore(pod, node, weights, leastAllocatedScore, state);
}

/** Reads `resources: [{name, weight}]` args; defaults to cpu and memory, weight 1. */
export function resourceWeights(v: unknown): readonly ResourceWeight[] {
  if (!Array.isArray(v) || v.length === 0) return DEFAULT_RESOURCE_WEIGHTS;
  return v
    .filter((x): x is { name: string; weight?: number } => !!x && typeof (x as { name?: unknown }).name === 'string')
    .map((x) => ({ name: x.name, weight: typeof x.weight === 'number' ? x.weight : 1 }));
}

export function factory(args: Readonly<Record<string, unknown>>): Plugin {
  const weights = resourceWeights(args['resources']);
  const plugin: ScorePlugin = { name, score: (s, pod, node) => score(pod, node, weights, s) };
  return plugin;
}
