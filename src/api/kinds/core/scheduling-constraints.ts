/**
 * Validation of the parts of a pod spec the scheduler obeys: node affinity, inter-pod affinity,
 * topology spread constraints and the preemption policy. Rules as established, so a constraint the
 * scheduler could not interpret is refused at write time with the field named, never half-applied.
 */
import type { FieldError } from '../../status.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { duplicate, inRange, invalidEach, invalidValue, notSupported, oneOf, positive, required } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { asArray, asRecord } from '../define.js';

const NODE_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
export const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
export const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function validateRequirement(raw: unknown, p: string, isField: boolean): FieldError[] {
  const r = asRecord(raw);
  const errs: FieldError[] = [];
  const key = r['key'];
  if (typeof key !== 'string' || key === '') errs.push(required(`${p}.key`));
  else if (isField) {
    if (key !== 'metadata.name') errs.push(notSupported(`${p}.key`, key, ['metadata.name']));
  } else errs.push(...invalidEach(`${p}.key`, key, isQualifiedName(key)));
  const op = r['operator'];
  const values = asArray(r['values']);
  if (!present(op) || op === '') return [...errs, required(`${p}.operator`)];
  if (typeof op !== 'string' || !NODE_SELECTOR_OPERATORS.includes(op)) return [...errs, notSupported(`${p}.operator`, op, NODE_SELECTOR_OPERATORS)];
  if (isField) {
    if (op !== 'In' && op !== 'NotIn') errs.push(notSupported(`${p}.operator`, op, ['In', 'NotIn']));
    else if (values.length !== 1) errs.push(required(`${p}.values`, 'must have one element'));
    return errs;
  }
  if ((op === 'In' || op === 'NotIn') && values.length === 0) errs.push(required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) errs.push(invalidValue(`${p}.values`, values, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
  if (op === 'Gt' || op === 'Lt') {
    if (values.length !== 1) errs.push(required(`${p}.values`, 'must be specified single value when `operator` is \'Lt\' or \'Gt\''));
    else if (typeof values[0] !== 'string' || !/^-?\d+$/.test(values[0])) errs.push(invalidValue(`${p}.values[0]`, values[0], 'must be an integer'));
  }
  return errs;
}

/** One node selector term (its requirements are ANDed). */
export function validateNodeSelectorTerm(raw: unknown, p: string): FieldError[] {
  const t = asRecord(raw);
  const errs: FieldError[] = [];
  asArray(t['matchExpressions']).forEach((r, i) => errs.push(...validateRequirement(r, `${p}.matchExpressions[${i}]`, false)));
  asArray(t['matchFields']).forEach((r, i) => errs.push(...validateRequirement(r, `${p}.matchFields[${i}]`, true)));
  return errs;
}

/** A required node selector: at least one term. */
export function validateNodeSelector(raw: unknown, p: string): FieldError[] {
  const terms = asArray(asRecord(raw)['nodeSelectorTerms']);
  if (terms.length === 0) return [required(`${p}.nodeSelectorTerms`, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => validateNodeSelectorTerm(t, `${p}.nodeSelectorTerms[${i}]`));
}

function validatePodAffinityTerm(raw: unknown, p: string): FieldError[] {
  const t = asRecord(raw);
  const errs: FieldError[] = [];
  const key = t['topologyKey'];
  if (typeof key !== 'string' || key === '') errs.push(required(`${p}.topologyKey`, 'can not be empty'));
  else errs.push(...invalidEach(`${p}.topologyKey`, key, isQualifiedName(key)));
  if (present(t['labelSelector'])) errs.push(...validateLabelSelectorSpec(t['labelSelector'], `${p}.labelSelector`));
  if (present(t['namespaceSelector'])) errs.push(...validateLabelSelectorSpec(t['namespaceSelector'], `${p}.namespaceSelector`));
  return errs;
}

function validatePodAffinity(raw: unknown, p: string): FieldError[] {
  const a = asRecord(raw);
  const errs: FieldError[] = [];
  asArray(a['requiredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) =>
    errs.push(...validatePodAffinityTerm(t, `${p}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)));
  asArray(a['preferredDuringSchedulingIgnoredDuringExecution']).forEach((raw2, i) => {
    const w = asRecord(raw2);
    const wp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...inRange(`${wp}.weight`, w['weight'] ?? 0, 1, 100));
    errs.push(...validatePodAffinityTerm(w['podAffinityTerm'], `${wp}.podAffinityTerm`));
  });
  return errs;
}

/** `spec.affinity`. */
export function validateAffinity(raw: unknown, p: string): FieldError[] {
  if (!present(raw)) return [];
  const a = asRecord(raw);
  const errs: FieldError[] = [];
  const na = asRecord(a['nodeAffinity']);
  if (present(na['requiredDuringSchedulingIgnoredDuringExecution'])) {
    errs.push(...validateNodeSelector(na['requiredDuringSchedulingIgnoredDuringExecution'], `${p}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`));
  }
  asArray(na['preferredDuringSchedulingIgnoredDuringExecution']).forEach((raw2, i) => {
    const t = asRecord(raw2);
    const tp = `${p}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...inRange(`${tp}.weight`, t['weight'] ?? 0, 1, 100));
    errs.push(...validateNodeSelectorTerm(t['preference'], `${tp}.preference`));
  });
  if (present(a['podAffinity'])) errs.push(...validatePodAffinity(a['podAffinity'], `${p}.podAffinity`));
  if (present(a['podAntiAffinity'])) errs.push(...validatePodAffinity(a['podAntiAffinity'], `${p}.podAntiAffinity`));
  return errs;
}

/** `spec.topologySpreadConstraints`: positive skew, a key, a known policy, no duplicate {key, policy}. */
export function validateTopologySpreadConstraints(raw: unknown, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  asArray(raw).forEach((raw2, i) => {
    const c = asRecord(raw2);
    const cp = `${p}[${i}]`;
    errs.push(...(present(c['maxSkew']) ? positive(`${cp}.maxSkew`, c['maxSkew']) : [required(`${cp}.maxSkew`)]));
    const key = c['topologyKey'];
    if (typeof key !== 'string' || key === '') errs.push(required(`${cp}.topologyKey`, 'can not be empty'));
    else errs.push(...invalidEach(`${cp}.topologyKey`, key, isQualifiedName(key)));
    const when = c['whenUnsatisfiable'];
    if (!present(when) || when === '') errs.push(required(`${cp}.whenUnsatisfiable`));
    else errs.push(...oneOf(`${cp}.whenUnsatisfiable`, when, WHEN_UNSATISFIABLE));
    const pair = `${String(key)}\u0000${String(when)}`;
    if (seen.has(pair)) errs.push(duplicate(`${cp}`, `{${String(key)}, ${String(when)}}`));
    seen.add(pair);
    if (present(c['labelSelector'])) errs.push(...validateLabelSelectorSpec(c['labelSelector'], `${cp}.labelSelector`));
  });
  return errs;
}

/** All scheduling constraints of a pod spec at path `p`. */
export function validateSchedulingConstraints(spec: Record<string, unknown>, p: string): FieldError[] {
  return [
    ...validateAffinity(spec['affinity'], `${p}.affinity`),
    ...validateTopologySpreadConstraints(spec['topologySpreadConstraints'], `${p}.topologySpreadConstraints`),
    ...oneOf(`${p}.preemptionPolicy`, spec['preemptionPolicy'], PREEMPTION_POLICIES),
  ];
}
