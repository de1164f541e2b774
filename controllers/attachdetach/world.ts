/**
 * The attach/detach controller's two worlds and the rules between them, as pure functions (the
 * controller in ./index.ts does the I/O; tests inject the time):
 *
 * - The desired state of world, per node: the attachable volumes of the node's scheduled pods that
 *   are not terminated. A volume is attachable here when it is a CSI volume of a PersistentVolume
 *   (reached through a bound claim: `persistentVolumeClaim`, or the `<pod>-<volume>` claim of an
 *   `ephemeral` volume) whose driver needs attaching (no CSIDriver object, or one with
 *   `attachRequired` not false). As established, a pod's inline `csi` volume is a CSI ephemeral
 *   volume, which is never attached (the node publishes it directly).
 * - The actual state of world, per node: what the controller attached (a VolumeAttachment whose
 *   `status.attached` is true) or is attaching, and since when a volume no longer desired is
 *   waiting to be detached.
 * - The rules (`plan`): attach what is desired and not in the actual state; detach what is in the
 *   actual state and no longer desired, but, as established, only once the node's
 *   `status.volumesInUse` no longer lists it or MAX_WAIT_FOR_UNMOUNT_MS passed since the detach
 *   was first wanted (the node may be gone or stuck); report as attached (`status.volumesAttached`)
 *   what is attached and not being detached, sorted by name.
 */
import { createHash } from 'node:crypto';
import { podClaimNames, uniqueVolumeName } from '../../src/api/attachable-volumes.js';
import type { CSIDriver, PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/api/generated/kinds.js';

/** The established maxWaitForUnmountDuration: a volume still in use is detached anyway after this. */
export const MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000;

/** The established VolumeAttachment name: `csi-` and the hex SHA-256 of handle, driver and node. */
export const attachmentName = (handle: string, driver: string, node: string) => `csi-${createHash('sha256').update(`${handle}${driver}${node}`).digest('hex')}`;

export interface DesiredVolume {
  /** The unique volume name. */
  name: string;
  driver: string;
  handle: string;
  /** The PersistentVolume it comes from. */
  pvName: string;
}

export interface ActualVolume extends DesiredVolume {
  /** The VolumeAttachment's `status.attached` was seen true. */
  attached: boolean;
  /** When the volume stopped being desired (ms), while it waits to be detached. */
  detachRequestedAt?: number;
}

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Established IsPodTerminated: finished, or being deleted with no container running any more. */
export function podTerminated(p: Pod): boolean {
  const phase = p.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  if (!p.metadata.deletionTimestamp) return false;
  const raw = rec(p.status)['containerStatuses'];
  const statuses = (Array.isArray(raw) ? raw : []).map(rec);
  return !statuses.some((s) => rec(s['state'])['running'] !== undefined);
}

export interface VolumeLookups {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  driver(name: string): CSIDriver | undefined;
}

/** Whether a CSI driver needs attaching (established: yes unless its CSIDriver says attachRequired false). */
export function attachRequired(driver: CSIDriver | undefined): boolean {
  return rec(driver?.['spec'])['attachRequired'] !== false;
}

/**
 * The attachable volumes of one pod; `unresolved` counts claims not bound yet or volumes not in
 * the cache (the controller looks again later).
 */
export function podVolumes(p: Pod, look: VolumeLookups): { volumes: DesiredVolume[]; unresolved: number } {
  const volumes: DesiredVolume[] = [];
  let unresolved = 0;
  for (const claimName of podClaimNames(p)) {
    const claim = look.claim(p.metadata.namespace ?? '', claimName);
    const pvName = claim?.status?.phase === 'Bound' ? (claim.spec?.volumeName ?? '') : '';
    const pv = pvName ? look.volume(pvName) : undefined;
    if (!pv) {
      unresolved++;
      continue;
    }
    const csi = rec(pv.spec?.csi);
    const driver = str(csi['driver']);
    const handle = str(csi['volumeHandle']);
    if (!driver || !handle || !attachRequired(look.driver(driver))) continue;
    volumes.push({ name: uniqueVolumeName(driver, handle), driver, handle, pvName });
  }
  return { volumes, unresolved };
}

/** The desired volumes of a node: those of its pods that are not terminated, each once. */
export function desiredVolumes(pods: readonly Pod[], look: VolumeLookups): { volumes: Map<string, DesiredVolume>; unresolved: number } {
  const volumes = new Map<string, DesiredVolume>();
  let unresolved = 0;
  for (const p of pods) {
    if (podTerminated(p)) continue;
    const r = podVolumes(p, look);
    unresolved += r.unresolved;
    for (const v of r.volumes) volumes.set(v.name, v);
  }
  return { volumes, unresolved };
}

export interface Plan {
  attach: DesiredVolume[];
  detach: ActualVolume[];
  /** Volumes that just stopped being desired: record `now` as their detachRequestedAt. */
  detachRequested: string[];
  /** Volumes desired again while waiting to be detached: forget the request. */
  detachCancelled: string[];
  /** Still in use and waiting: look again within this many ms (undefined: nothing waits). */
  waitMs: number | undefined;
  /** What `status.volumesAttached` should list (names, sorted). */
  reportAttached: string[];
}

/** The rules between the worlds of one node at `now`. */
export function plan(desired: ReadonlyMap<string, DesiredVolume>, actual: ReadonlyMap<string, ActualVolume>, inUse: ReadonlySet<string>, now: number, maxWaitMs = MAX_WAIT_FOR_UNMOUNT_MS): Plan {
  const p: Plan = { attach: [], detach: [], detachRequested: [], detachCancelled: [], waitMs: undefined, reportAttached: [] };
  for (const [name, v] of desired) if (!actual.has(name)) p.attach.push(v);
  for (const [name, a] of actual) {
    if (desired.has(name)) {
      if (a.detachRequestedAt !== undefined) p.detachCancelled.push(name);
      if (a.attached) p.reportAttached.push(name);
      continue;
    }
    const since = a.detachRequestedAt ?? now;
    if (a.detachRequestedAt === undefined) p.detachRequested.push(name);
    const waited = now - since;
    if (!inUse.has(name) || waited >= maxWaitMs) {
      p.detach.push(a);
      continue;
    }
    if (a.attached) p.reportAttached.push(name);
    const left = maxWaitMs - waited;
    p.waitMs = p.waitMs === undefined ? left : Math.min(p.waitMs, left);
  }
  p.reportAttached.sort();
  return p;
}

export { podClaimNames, uniqueVolumeName };
