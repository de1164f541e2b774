/**
 * NodeName (pre-filter, filter): a pod that names its node (`spec.nodeName`, e.g. set by a user
 * for a pod still addressed to this scheduler) fits only that node.
 */
import type { ClusterEvent, FilterPlugin, Plugin, PreFilterPlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { skip, success, unresolvable, type Verdict } from '../../framework/status.js';

export const name = 'NodeName';
export const REASON = "node(s) didn't match the requested node name";
export const events: readonly ClusterEvent[] = [{ resource: 'Node', actions: ['Add'] }];

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  const want = pod.pod.spec?.nodeName;
  return !want || want === node.name ? success() : unresolvable(REASON);
}

export function factory(): Plugin {
  const plugin: FilterPlugin & PreFilterPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (_s, pod) => {
      const want = pod.pod.spec?.nodeName;
      // No nodeName: nothing for the filter to check on any node.
      return want ? { verdict: success(), nodeNames: new Set([want]) } : { verdict: skip() };
    },
    filter: (_s, pod, node) => fits(pod, node),
  };
  return plugin;
}
