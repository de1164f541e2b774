/**
 * VolumeRestrictions (filter): disks that attach to one node read-write at a time conflict, as
 * established: the same GCE PD (unless both read-only), the same EBS volume, the same RBD image
 * on overlapping monitors (unless both read-only), the same iSCSI IQN (unless both read-only).
 */
import type { ClusterEvent, FilterPlugin, Plugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { PodVolume } from '../../../api/kind-parts.js';
import { success, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'VolumeRestrictions';
export const REASON = 'node(s) had no available disk';
export const events: readonly ClusterEvent[] = [{ resource: 'Pod', actions: ['Delete'] }];

function volumesOf(pod: PodInfo): readonly PodVolume[] {
  return pod.pod.spec?.volumes ?? [];
}

const bothReadOnly = (a: { readOnly?: boolean }, b: { readOnly?: boolean }) => a.readOnly === true && b.readOnly === true;

/** Whether two volumes are the same exclusive disk. */
export function conflicts(a: PodVolume, b: PodVolume): boolean {
  const [gA, gB] = [a.gcePersistentDisk, b.gcePersistentDisk];
  if (gA && gB && gA.pdName === gB.pdName && !bothReadOnly(gA, gB)) return true;
  const [eA, eB] = [a.awsElasticBlockStore, b.awsElasticBlockStore];
  if (eA && eB && eA.volumeID === eB.volumeID) return true;
  const [iA, iB] = [a.iscsi, b.iscsi];
  if (iA && iB && iA.iqn === iB.iqn && !bothReadOnly(iA, iB)) return true;
  const [rA, rB] = [a.rbd, b.rbd];
  if (rA && rB) {
    const monsA = new Set(rA.monitors ?? []);
    const overlap = (rB.monitors ?? []).some((m) => monsA.has(m));
    if (overlap && (rA.pool ?? 'rbd') === (rB.pool ?? 'rbd') && rA.image === rB.image && !bothReadOnly(rA, rB)) return true;
  }
  return false;
}

const EXCLUSIVE = ['gcePersistentDisk', 'awsElasticBlockStore', 'iscsi', 'rbd'] as const;

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
  // Most pods have no volumes: decided without a list per node.
  if (!pod.pod.spec?.volumes?.length) return success();
  const mine = volumesOf(pod).filter((v) => EXCLUSIVE.some((k) => v[k] !== undefined));
  if (mine.length === 0) return success();
  for (const other of node.pods) {
    for (const v of volumesOf(other)) {
      for (const m of mine) if (conflicts(m, v)) return unschedulable(REASON);
    }
  }
  return success();
}

export function factory(): Plugin {
  const plugin: FilterPlugin & { events: readonly ClusterEvent[] } = { name, events, filter: (_s, pod, node) => fits(pod, node) };
  return plugin;
}
