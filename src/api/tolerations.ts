/**
 * Combining toleration lists, as the established admission plugins do (RuntimeClass and
 * PodTolerationRestriction merge tolerations into the pod's, ExtendedResourceToleration adds one per
 * extended resource): the one home of these helpers.
 *
 * - `mergeTolerations(first, second)`: both lists, without a toleration another one in them already
 *   covers (a superset: same or empty key with Exists, same or empty effect, no shorter NoExecute
 *   time, Exists or the same value); of two equal ones the first stays.
 * - `addOrUpdateToleration(list, t)`: replaces the toleration with t's key, effect, operator and value
 *   (unless equal), else appends t. Returns the new list, or undefined when nothing changed.
 */
import type { Toleration } from './kind-parts.js';

const same = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.tolerationSeconds ?? null) === (b.tolerationSeconds ?? null);

/** Whether `ss` tolerates everything `t` does (the established pkg/util/tolerations isSuperset, literally). */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (same(ss, t)) return true;
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds !== undefined && ss.tolerationSeconds !== null) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The established MergeTolerations: both lists, a toleration dropped when another one covers it (the first of equals kept). */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !same(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

const matches = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');

export function addOrUpdateToleration(list: readonly Toleration[], t: Toleration): Toleration[] | undefined {
  let updated = false;
  const out: Toleration[] = [];
  for (const existing of list) {
    if (matches(t, existing)) {
      if (same(t, existing)) return undefined;
      out.push(t);
      updated = true;
    } else out.push(existing);
  }
  if (!updated) out.push(t);
  return out;
}
