/**
 * VolumeBinding (pre-filter, filter, reserve, pre-bind): a pod's PersistentVolumeClaims must
 * exist, not be terminating and be bound; a bound volume's node affinity must match the node.
 * Reasons as established. Unbound claims: binding or provisioning volumes for a pod (delayed
 * binding) needs a volume controller this project does not have yet, so an unbound claim refuses
 * the pod ("pod has unbound immediate PersistentVolumeClaims") until something binds it; reserve
 * and pre-bind then have nothing to do.
 */
import type { ClusterEvent, ClusterListers, FilterPlugin, FrameworkHandle, Plugin, PreBindPlugin, PreFilterPlugin, ReservePlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { compileTerms, type NodeMatcher } from '../../../api/node-selection.js';
import type { PersistentVolume } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { skip, success, unresolvable, type Verdict } from '../../framework/status.js';

export const name = 'VolumeBinding';
export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const events: readonly ClusterEvent[] = [
  { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
  { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
  { resource: 'Node', actions: ['Add', 'Update'] },
];

export function claimNames(pod: PodInfo): string[] {
  const out: string[] = [];
  for (const v of pod.pod.spec?.volumes ?? []) if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
  return out;
}

const matchers = new WeakMap<PersistentVolume, NodeMatcher | null>();

function pvMatcher(pv: PersistentVolume): NodeMatcher | null {
  let m = matchers.get(pv);
  if (m !== undefined) return m;
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  m = terms ? compileTerms(terms) : null;
  matchers.set(pv, m);
  return m;
}

/** Pre-filter: every claim exists, is not terminating and is bound. */
export function checkClaims(pod: PodInfo, listers: ClusterListers): Verdict {
  const ns = pod.pod.metadata.namespace ?? 'default';
  for (const claim of claimNames(pod)) {
    const pvc = listers.persistentVolumeClaim(ns, claim);
    if (!pvc) return unresolvable(`persistentvolumeclaim "${claim}" not found`);
    if (pvc.metadata.deletionTimestamp) return unresolvable(`persistentvolumeclaim "${claim}" is being deleted`);
    if (!pvc.spec?.volumeName) return unresolvable(REASON_UNBOUND_IMMEDIATE);
  }
  return success();
}

export function fits(pod: PodInfo, node: NodeInfo, listers: ClusterListers): Verdict {
  if (!node.node) return success();
  const ns = pod.pod.metadata.namespace ?? 'default';
  for (const claim of claimNames(pod)) {
    const volumeName = listers.persistentVolumeClaim(ns, claim)?.spec?.volumeName;
    const pv = volumeName ? listers.persistentVolume(volumeName) : undefined;
    if (!pv) continue;
    const m = pvMatcher(pv);
    if (m && !m(node.node)) return unresolvable(REASON_NODE_CONFLICT);
  }
  return success();
}

export function factory(_args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const plugin: PreFilterPlugin & FilterPlugin & ReservePlugin & PreBindPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (_s, pod) => (claimNames(pod).length === 0 ? { verdict: skip() } : { verdict: checkClaims(pod, handle.listers) }),
    filter: (_s, pod, node) => fits(pod, node, handle.listers),
    // Claims are bound already (see above): nothing to reserve or bind.
    reserve: () => success(),
    unreserve: () => {},
    preBind: async () => success(),
  };
  return plugin;
}
