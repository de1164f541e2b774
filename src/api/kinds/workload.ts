/**
 * Rules shared by the controllers' objects (deployments, replicasets, statefulsets, daemonsets,
 * jobs): a required non-empty selector that matches the pod template's labels, an immutable
 * selector, and the rolling-update percentages.
 */
import type { FieldError } from '../status.js';
import { labelSelectorFromObject, validateLabelSelectorSpec } from '../labels.js';
import { immutable, invalidValue, required } from '../validation/field-errors.js';
import { asRecord } from './define.js';
import { conditions, int32, int64, openObj } from './schema-dsl.js';

/** `spec.selector` present, valid, non-empty, and matching `spec.template.metadata.labels`. */
export function validateSelectorAndTemplate(spec: Record<string, unknown>, kindWord: string): FieldError[] {
  const sel = spec['selector'];
  if (sel === undefined || sel === null) return [required('spec.selector')];
  const errs = validateLabelSelectorSpec(sel, 'spec.selector');
  if (errs.length) return errs;
  const s = asRecord(sel);
  if (Object.keys(asRecord(s['matchLabels'])).length === 0 && !(Array.isArray(s['matchExpressions']) && s['matchExpressions'].length)) {
    return [invalidValue('spec.selector', sel, `empty selector is invalid for ${kindWord}`)];
  }
  const labels = asRecord(asRecord(asRecord(spec['template'])['metadata'])['labels']) as Record<string, string>;
  if (spec['template'] !== undefined && !labelSelectorFromObject(s).matches(labels)) {
    errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  return errs;
}

/** apps/v1 selectors cannot change after creation. */
export function selectorImmutable(spec: Record<string, unknown>, oldSpec: unknown): FieldError[] {
  if (oldSpec === undefined) return [];
  return immutable('spec.selector', spec['selector'], asRecord(oldSpec)['selector']);
}

/** An int or a percentage string (`25%`); returns the problem, if any. */
export function intOrPercentProblem(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v < 0 ? 'must be greater than or equal to 0' : undefined;
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    if (!m) return "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
    return Number(m[1]) > 100 ? 'must not be greater than 100%' : undefined;
  }
  return 'must be an integer or percentage';
}

export function isZeroIntOrPercent(v: unknown): boolean {
  return v === 0 || v === '0%' || v === '0';
}

/** The status every replica-managing workload reports. */
export const replicaStatusSchema = () =>
  openObj({
    observedGeneration: int64(),
    replicas: int32(),
    updatedReplicas: int32(),
    readyReplicas: int32(),
    availableReplicas: int32(),
    unavailableReplicas: int32(),
    fullyLabeledReplicas: int32(),
    currentReplicas: int32(),
    collisionCount: int32(),
    conditions: conditions(),
  });
