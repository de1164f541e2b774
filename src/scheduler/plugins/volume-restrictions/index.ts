/**
 * VolumeRestrictions (filter): disks that attach to one node read-write at a time conflict, as
 * established: the same GCE PD (unless both read-only), the same EBS volume, the same RBD image
 * on overlapping monitors (unless both read-only), the same iSCSI IQN (unless both read-only).
 */
import type { ClusterEvent, FilterPlugin, Plugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { success, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'VolumeRestrictions';
export const REASON = 'node(s) had no available disk';
export const events: readonly ClusterEvent[] = [{ resource: 'Pod', actions: ['Delete'] }];

type Source = Record<string, unknown>;

function volumesOf(pod: PodInfo): readonly Record<string, unknown>[] {
  return pod.pod.spec?.volumes ?? [];
}

function src(v: Record<string, unknown>, kind: string): Source | undefined {
  const s = v[kind];
  return s && typeof s === 'object' ? (s as Source) : undefined;
}

/** Whether two volumes are the same exclusive disk. */
export function conflicts(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const gA = src(a, 'gcePersistentDisk');
  const gB = src(b, 'gcePersistentDisk');
  if (gA && gB && gA['pdName'] === gB['pdName'] && !(gA['readOnly'] === true && gB['readOnly'] === true)) return true;
  const eA = src(a, 'awsElasticBlockStore');
  const eB = src(b, 'awsElasticBlockStore');
  if (eA && eB && eA['volumeID'] === eB['volumeID']) return true;
  const iA = src(a, 'iscsi');
  const iB = src(b, 'iscsi');
  if (iA && iB && iA['iqn'] === iB['iqn'] && !(iA['readOnly'] === true && iB['readOnly'] === true)) return true;
  const rA = src(a, 'rbd');
  const rB = src(b, 'rbd');
  if (rA && rB) {
    const monsA = new Set((rA['monitors'] as string[] | undefined) ?? []);
    const overlap = ((rB['monitors'] as string[] | undefined) ?? []).some((m) => monsA.has(m));
    const pool = (s: Source) => (s['pool'] as string | undefined) ?? 'rbd';
    if (overlap && pool(rA) === pool(rB) && rA['image'] === rB['image'] && !(rA['readOnly'] === true && rB['readOnly'] === true)) return true;
  }
  return false;
}

const EXCLUSIVE = ['gcePersistentDisk', 'awsElasticBlockStore', 'iscsi', 'rbd'];

export function fits(pod: PodInfo, node: NodeInfo): Verdict {
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
