/**
 * NodePorts (pre-filter, filter): a pod's host ports must be free on the node: same protocol and
 * port conflict when either side binds 0.0.0.0 (every address) or both bind the same address.
 */
import type { ClusterEvent, FilterPlugin, Plugin, PreFilterPlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { skip, success, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'NodePorts';
export const REASON = "node(s) didn't have free ports for the requested pod ports";
export const events: readonly ClusterEvent[] = [
  { resource: 'Pod', actions: ['Delete'] },
  { resource: 'Node', actions: ['Add'] },
];

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  for (const hp of pod.hostPorts) if (node.portConflicts(hp)) return unschedulable(REASON);
  return success();
}

export function factory(): Plugin {
  const plugin: PreFilterPlugin & FilterPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (_s, pod) => {
      // No host ports: the filter has nothing to check for this pod.
      if (pod.hostPorts.length === 0) return { verdict: skip() };
      return { verdict: success() };
    },
    filter: (_s, pod, node) => fits(pod, node),
  };
  return plugin;
}
