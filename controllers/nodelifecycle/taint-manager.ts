/**
 * The taint manager's rules (the established NoExecuteTaintManager), pure apart from the map of
 * scheduled evictions it keeps:
 *
 * - A pod on a node with NoExecute taints that does not tolerate every one of them is deleted now.
 * - A pod that tolerates them all is deleted after the least `tolerationSeconds` of the tolerations
 *   used (the first that matches each taint); ≤ 0 means now; none with seconds: it stays forever.
 * - The time counts from when the eviction was first scheduled (a later pass keeps that start),
 *   and is cancelled — with the "Cancelling deletion" Event — when the taints go or the pod
 *   tolerates them forever.
 */
import type { Pod } from '../../src/api/generated/kinds.js';
import type { Taint, Toleration } from '../../src/api/kind-parts.js';
import { tolerates } from '../../src/api/node-selection.js';

/** Tolerations used for `taints` (the first matching each); undefined when one taint is not tolerated. */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): Toleration[] | undefined {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((x) => tolerates(x, taint));
    if (!t) return undefined;
    used.push(t);
  }
  return used;
}

/** Least tolerationSeconds in ms (0: now); undefined: tolerated forever. */
export function minTolerationMs(used: readonly Toleration[]): number | undefined {
  if (used.length === 0) return 0;
  let min = Infinity;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? undefined : min * 1000;
}

export interface ScheduledEviction {
  /** When the eviction was first scheduled (ms). */
  createdAt: number;
  /** When the pod is to be deleted (ms). */
  fireAt: number;
}

export type PodVerdict = { kind: 'none' } | { kind: 'cancel' } | { kind: 'deleteNow' } | { kind: 'wait'; eviction: ScheduledEviction };

/** What to do with `pod` on a node with NoExecute `taints`, given its eviction scheduled so far. */
export function judgePod(pod: Pod, taints: readonly Taint[], scheduled: ScheduledEviction | undefined, now: number): PodVerdict {
  if (taints.length === 0) return scheduled ? { kind: 'cancel' } : { kind: 'none' };
  const used = matchingTolerations(taints, pod.spec?.tolerations ?? []);
  if (!used) return { kind: 'deleteNow' };
  const min = minTolerationMs(used);
  if (min === undefined) return scheduled ? { kind: 'cancel' } : { kind: 'none' };
  const createdAt = scheduled?.createdAt ?? now;
  const fireAt = createdAt + min;
  if (fireAt <= now) return { kind: 'deleteNow' };
  return { kind: 'wait', eviction: { createdAt, fireAt } };
}
