/**
 * NodeResourcesFit (pre-filter, filter): the pod's requests (init containers and overhead counted,
 * see framework/resources.ts) must fit into what the node has left: cpu, memory,
 * ephemeral-storage, pod count and every extended resource. Reasons as established:
 * "Insufficient cpu", "Too many pods", "Insufficient example.com/gpu".
 * Args: `ignoredResources` (names) and `ignoredResourceGroups` (prefixes before "/") skip
 * extended resources another component accounts for.
 */
import type { ClusterEvent, FilterPlugin, Plugin, PreFilterPlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import {
  COL_ALLOC_CPU, COL_ALLOC_EPHEMERAL, COL_ALLOC_MEMORY, COL_ALLOC_PODS, COL_POD_COUNT, COL_REQ_CPU, COL_REQ_EPHEMERAL, COL_REQ_MEMORY, rowOf, type NodeTable,
} from '../../framework/node-table.js';
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
  // The common case, without building a list: every request fits.
  const alloc = node.allocatable;
  const used = node.requested;
  const req = pod.requests;
  if (
    node.pods.length + 1 <= alloc.allowedPodNumber &&
    req.milliCPU <= alloc.milliCPU - used.milliCPU &&
    req.memory <= alloc.memory - used.memory &&
    req.ephemeralStorage <= alloc.ephemeralStorage - used.ephemeralStorage &&
    req.scalar.size === 0
  ) return success();
  const missing = insufficientResources(pod, node, args);
  return missing.length === 0 ? success() : unschedulable(...missing);
}

/** The common case from the node's table row: everything fits (no extended resources asked). */
function fitsRow(pod: PodInfo, t: NodeTable, row: number): boolean {
  const d = t.data;
  const o = row * t.stride;
  const req = pod.requests;
  return (
    req.scalar.size === 0 &&
    d[o + COL_POD_COUNT]! + 1 <= d[o + COL_ALLOC_PODS]! &&
    req.milliCPU <= d[o + COL_ALLOC_CPU]! - d[o + COL_REQ_CPU]! &&
    req.memory <= d[o + COL_ALLOC_MEMORY]! - d[o + COL_REQ_MEMORY]! &&
    req.ephemeralStorage <= d[o + COL_ALLOC_EPHEMERAL]! - d[o + COL_REQ_EPHEMERAL]!
  );
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
    filter: (s, pod, node) => {
      const row = rowOf(s, node);
      // The row says "fits" without reading the node; anything else is worked out (with reasons) from the node.
      return row >= 0 && fitsRow(pod, s.table!, row) ? success() : fits(pod, node, args);
    },
  };
  return plugin;
}
