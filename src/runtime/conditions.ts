/**
 * `status.conditions` helpers with the established rules: one condition per type; setting one
 * keeps its lastTransitionTime when the status did not change; removing one leaves the others.
 * Pure: each returns a new list (the built-in controllers use these too).
 */
import type { Condition } from '../api/generated/kinds.js';
import { rfc3339 } from '../api/time.js';

export interface ConditionInput {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** `conditions` with `c` set (added or replaced) at time `now` (ms). */
export function setCondition(conditions: readonly Condition[] | undefined, c: ConditionInput, now: number): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i] : undefined;
  const since = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : rfc3339(now);
  const next = { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: since } as Condition;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** `conditions` without the one of `type`. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function getCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is there with status True. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}

/** Whether two condition lists say the same (order included). */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
