/**
 * VolumeZone (filter): a bound volume labelled with a zone or region (`topology.svc.io/zone`,
 * `topology.svc.io/region`; several values joined by `__`) can only be used from nodes in it.
 */
import { LABEL_REGION, LABEL_ZONE } from '../../../api/well-known-labels.js';
import type { ClusterEvent, ClusterListers, FilterPlugin, FrameworkHandle, Plugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { success, unresolvable, type Verdict } from '../../framework/status.js';
import { claimNames } from '../volume-binding/index.js';

export const name = 'VolumeZone';
export const REASON = 'node(s) had no available volume zone';
export const events: readonly ClusterEvent[] = [
  { resource: 'Node', actions: ['Add', 'Update'] },
  { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
  { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
];

const TOPOLOGY_LABELS = [LABEL_ZONE, LABEL_REGION];

export function fits(pod: PodInfo, node: NodeInfo, listers: ClusterListers): Verdict {
  // Most pods have no volumes: decided without a list per node.
  if (!pod.pod.spec?.volumes?.length) return success();
  const claims = claimNames(pod);
  if (claims.length === 0 || !node.node) return success();
  const nodeLabels = node.node.metadata.labels ?? {};
  const ns = pod.pod.metadata.namespace ?? 'default';
  for (const claim of claims) {
    const volumeName = listers.persistentVolumeClaim(ns, claim)?.spec?.volumeName;
    const pv = volumeName ? listers.persistentVolume(volumeName) : undefined;
    if (!pv) continue;
    for (const key of TOPOLOGY_LABELS) {
      const want = pv.metadata.labels?.[key];
      if (want === undefined) continue;
      const have = nodeLabels[key];
      if (have === undefined || !want.split('__').includes(have)) return unresolvable(REASON);
    }
  }
  return success();
}

export function factory(_args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const plugin: FilterPlugin & { events: readonly ClusterEvent[] } = { name, events, filter: (_s, pod, node) => fits(pod, node, handle.listers) };
  return plugin;
}
