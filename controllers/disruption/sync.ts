/**
 * The pure half of the disruption controller: how many of a PodDisruptionBudget's pods are healthy,
 * how many must stay so (minAvailable, or the expected pods less maxUnavailable; percentages of the
 * expected pods rounded up, as established), how many disruptions that allows, and which pods the
 * eviction subresource recorded as being disrupted are still worth remembering (2 min at most).
 */
import type { Condition, Pod, PodDisruptionBudget } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';
import { isPodReady } from '../internal/pod-state.js';

/** How long an eviction's entry in `disruptedPods` counts, if the pod is not deleted meanwhile. */
export const DISRUPTED_POD_TIMEOUT_MS = 2 * 60_000;

export function scaled(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  return m ? Math.ceil((Number(m[1]) * total) / 100) : Number(v) || 0;
}

/** Whether the budget's numbers are relative to the expected (controllers') pod count. */
export function needsExpectedCount(pdb: PodDisruptionBudget): boolean {
  const s = pdb.spec ?? {};
  return s.maxUnavailable !== undefined && s.maxUnavailable !== null ? true : typeof s.minAvailable === 'string' && s.minAvailable.endsWith('%');
}

export interface BudgetResult {
  status: NonNullable<PodDisruptionBudget['status']>;
  /** When the next disruptedPods entry expires (ms), for a requeue. */
  nextExpiry: number | undefined;
}

export function budgetStatus(pdb: PodDisruptionBudget, pods: readonly Pod[], expectedFromControllers: number, now: number): BudgetResult {
  const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
  const disrupted: Record<string, string> = {};
  let nextExpiry: number | undefined;
  for (const [name, at] of Object.entries(pdb.status?.disruptedPods ?? {})) {
    const p = byName.get(name);
    const t = Date.parse(at);
    if (!p || p.metadata.deletionTimestamp || !Number.isFinite(t) || t + DISRUPTED_POD_TIMEOUT_MS <= now) continue;
    disrupted[name] = at;
    const expiry = t + DISRUPTED_POD_TIMEOUT_MS;
    if (nextExpiry === undefined || expiry < nextExpiry) nextExpiry = expiry;
  }
  const currentHealthy = pods.filter((p) => isPodReady(p) && !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted)).length;
  const spec = pdb.spec ?? {};
  let expectedPods: number;
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    expectedPods = expectedFromControllers;
    desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  } else if (typeof spec.minAvailable === 'string' && spec.minAvailable.endsWith('%')) {
    expectedPods = expectedFromControllers;
    desiredHealthy = scaled(spec.minAvailable, expectedPods);
  } else {
    expectedPods = pods.length;
    desiredHealthy = typeof spec.minAvailable === 'number' ? spec.minAvailable : spec.minAvailable !== undefined && spec.minAvailable !== null ? scaled(spec.minAvailable, pods.length) : 1;
  }
  const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
  const prev = pdb.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
  const status = disruptionsAllowed > 0 ? 'True' : 'False';
  const condition = {
    type: 'DisruptionAllowed',
    status,
    reason: disruptionsAllowed > 0 ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: pdb.metadata.generation ?? 0,
    lastTransitionTime: prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : rfc3339(now),
  } as Condition;
  return {
    status: {
      observedGeneration: pdb.metadata.generation ?? 0,
      disruptedPods: disrupted,
      disruptionsAllowed,
      currentHealthy,
      desiredHealthy,
      expectedPods,
      conditions: [condition],
    },
    nextExpiry,
  };
}
