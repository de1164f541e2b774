/**
 * What controllers read off a pod, with the established meanings: active (counts toward
 * replicas), ready, available (ready for at least minReadySeconds), and the order in which
 * surplus pods are deleted (the least useful first). Pure functions over typed pods.
 */
import type { Pod } from '../../src/api/generated/kinds.js';

/** Not finished and not being deleted: it counts toward a controller's replicas. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

function readyCondition(pod: Pod): { status?: string; lastTransitionTime?: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** Milliseconds since the pod became Ready (0 when it is not, or the time is unknown). */
export function readyForMs(pod: Pod, now: number): number {
  const c = readyCondition(pod);
  if (c?.status !== 'True' || !c.lastTransitionTime) return 0;
  const since = Date.parse(c.lastTransitionTime);
  return Number.isFinite(since) ? Math.max(0, now - since) : 0;
}

/**
 * Ready for at least `minReadySeconds`. With minReadySeconds 0 any ready pod is available; a
 * transition time in the future (clock skew) counts as just ready.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const c = readyCondition(pod);
  const since = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

/** When a ready pod not yet available becomes available (ms), for a requeue; undefined otherwise. */
export function availableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const c = readyCondition(pod);
  if (c?.status !== 'True' || minReadySeconds <= 0 || !c.lastTransitionTime) return undefined;
  const since = Date.parse(c.lastTransitionTime);
  return Number.isFinite(since) ? since + minReadySeconds * 1000 : undefined;
}

function restarts(pod: Pod): number {
  let n = 0;
  for (const s of pod.status?.containerStatuses ?? []) n = Math.max(n, Number((s as { restartCount?: number }).restartCount ?? 0));
  return n;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Orders pods for deletion, most deletable first, as established: not scheduled before
 * scheduled; Pending, then Unknown, then Running; not ready before ready; on a node crowded with
 * related pods before a sparse one; ready for less time before longer; more restarts before
 * fewer; newer before older.
 */
export function compareForDeletion(a: Pod, b: Pod, now: number, relatedOnNode?: (p: Pod) => number): number {
  const sa = a.spec?.nodeName ? 1 : 0;
  const sb = b.spec?.nodeName ? 1 : 0;
  if (sa !== sb) return sa - sb;
  const pa = PHASE_RANK[a.status?.phase ?? 'Pending'] ?? 0;
  const pb = PHASE_RANK[b.status?.phase ?? 'Pending'] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  if (relatedOnNode) {
    const na = relatedOnNode(a);
    const nb = relatedOnNode(b);
    if (na !== nb) return nb - na;
  }
  if (ra === 1) {
    const ta = readyForMs(a, now);
    const tb = readyForMs(b, now);
    if (ta !== tb) return ta - tb;
  }
  const xa = restarts(a);
  const xb = restarts(b);
  if (xa !== xb) return xb - xa;
  const ca = a.metadata.creationTimestamp ?? '';
  const cb = b.metadata.creationTimestamp ?? '';
  if (ca !== cb) return ca < cb ? 1 : -1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}
