/**
 * NodeResourcesFit (pre-filter, filter): the pod's requests (init containers and overhead counted,
 * see framework/resources.ts) must fit into what the node has left: cpu, memory,
 * ephemeral-storage, pod count and every extended resource. Reasons as established:
 * "Insufficient cpu", "Too many pods", "Insufficient example.com/gpu".
 * Args: `ignoredResources` (names) and `ignoredResourceGroups` (prefixes before "/") skip
 * extended resources another component accounts for.
 */
import type { ClusterEvent, FilterPlugin, Plugin, PreFilterPlugin } from '../../framework/interfaces.js';
import { HOT_ALLOC_CPU, HOT_ALLOC_EPHEMERAL, HOT_ALLOC_MEMORY, HOT_ALLOC_PODS, HOT_REQ_CPU, HOT_REQ_EPHEMERAL, HOT_REQ_MEMORY, type NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { CPU, EPHEMERAL_STORAGE, MEMORY } from '../../framework/resources.js';
import { success, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'NodeResourcesFit';
export const TOO_MANY_PODS = 'Too many pods';
export const events: readonly ClusterEvent[] = [
  { resource: 'Pod', actions: ['Delete'] },
  { resource: 'Node', actions: ['Add', 'Update'] },
];

export interface FitArgs {
  ignoredResources: ReadonlySet<string>;
  ignoredResourceGroups: ReadonlySet<string>;
}

const insufficient = (resource: string) => `Insufficient ${resource}`;

/** Every resource the pod needs more of than the node has left (empty: it fits). */
export function insufficientResources(pod: PodInfo, node: NodeInfo, args?: FitArgs): string[] {
  const out: string[] = [];
  const alloc = node.allocatable;
  const used = node.requested;
  if (node.pods.length + 1 > alloc.allowedPodNumber) out.push(TOO_MANY_PODS);
  const req = pod.requests;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) out.push(insufficient(CPU));
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) out.push(insufficient(MEMORY));
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) out.push(insufficient(EPHEMERAL_STORAGE));
  for (const [res, amount] of req.scalar) {
    if (amount <= 0) continue;
    if (args && (args.ignoredResources.has(res) || args.ignoredResourceGroups.has(res.split('/')[0]!))) continue;
    if (amount > (alloc.scalar.get(res) ?? 0) - (used.scalar.get(res) ?? 0)) out.push(insufficient(res));
  }
  return out;
}

export function fits(pod: PodInfo, node: NodeInfo, args?: FitArgs): Verdict {
  // The common case, from the node's hot numbers and without building a list: every request fits.
  const h = node.hot;
  const req = pod.requests;
  if (
    node.podCount + 1 <= h[HOT_ALLOC_PODS]! &&
    req.milliCPU <= h[HOT_ALLOC_CPU]! - h[HOT_REQ_CPU]! &&
    req.memory <= h[HOT_ALLOC_MEMORY]! - h[HOT_REQ_MEMORY]! &&
    req.ephemeralStorage <= h[HOT_ALLOC_EPHEMERAL]! - h[HOT_REQ_EPHEMERAL]! &&
    req.scalar.size === 0
  ) return success();
  const missing = insufficientResources(pod, node, args);
  return missing.length === 0 ? success() : unschedulable(...missing);
}

function stringSet(v: unknown): Set<string> {
  return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
}

export function factory(rawArgs: Readonly<Record<string, unknown>>): Plugin {
  const args: FitArgs = { ignoredResources: stringSet(rawArgs['ignoredResources']), ignoredResourceGroups: stringSet(rawArgs['ignoredResourceGroups']) };
  const plugin: FilterPlugin & PreFilterPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    // Requests are computed once per pod in PodInfo; nothing more to prepare.
    preFilter: () => ({ verdict: success() }),
    filter: (_s, pod, node) => fits(pod, node, args),
  };
  return plugin;
}
