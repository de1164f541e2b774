/**
 * NodeUnschedulable (filter): a node with `spec.unschedulable: true` (cordoned) takes no new pods,
 * unless the pod tolerates the `node.svc.io/unschedulable:NoSchedule` taint, as established.
 */
import { TAINT_NODE_UNSCHEDULABLE } from '../../../api/well-known-labels.js';
import type { ClusterEvent, FilterPlugin, Plugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { FLAG_UNSCHEDULABLE, rowOf } from '../../framework/node-table.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { success, unresolvable, type Verdict } from '../../framework/status.js';

export const name = 'NodeUnschedulable';
export const REASON = 'node(s) were unschedulable';
export const events: readonly ClusterEvent[] = [{ resource: 'Node', actions: ['Add', 'Update'] }];

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  if (!node.node) return unresolvable('node(s) not found');
  if (!node.unschedulable) return success();
  const tolerated = (pod.pod.spec?.tolerations ?? []).some(
    (t) => (t.key === TAINT_NODE_UNSCHEDULABLE || (t.key === undefined || t.key === '') && t.operator === 'Exists') && (t.effect === undefined || t.effect === '' || t.effect === 'NoSchedule'),
  );
  return tolerated ? success() : unresolvable(REASON);
}

export function factory(): Plugin {
  const plugin: FilterPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    filter: (s, pod, node) => {
      // A snapshot row exists only for a node with its Node object: its flag decides the common case.
      const row = rowOf(s, node);
      return row >= 0 && (s.table!.flags(row) & FLAG_UNSCHEDULABLE) === 0 ? success() : fits(pod, node);
    },
  };
  return plugin;
}
