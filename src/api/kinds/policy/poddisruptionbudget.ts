/**
 * PodDisruptionBudgets: limits on voluntary evictions. +status. Stored as policy/v1 (established
 * storage and preferred version); policy/v1beta1, the spec's version, serves the same objects.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { invalidValue } from '../../validation/field-errors.js';
import { asRecord, defineKind } from '../define.js';
import { conditions, int32, int64, intOrString, labelSelector, mapOf, obj, objectSchema, openObj, time } from '../schema-dsl.js';
import { intOrPercentProblem } from '../workload.js';
import { servedVersion } from '../../versions.js';
import { podDisruptionBudgetColumns } from '../columns/scaling.js';

export const podDisruptionBudgetDefinition = defineKind({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
  shortNames: ['pdb'],
  tableColumns: podDisruptionBudgetColumns,
  subresources: ['status'],
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({ minAvailable: intOrString(), selector: labelSelector(), maxUnavailable: intOrString() }),
    status: openObj({
      observedGeneration: int64(),
      disruptedPods: mapOf(time()),
      disruptionsAllowed: int32(),
      currentHealthy: int32(),
      desiredHealthy: int32(),
      expectedPods: int32(),
      conditions: conditions(),
    }),
  }),
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    if (spec['minAvailable'] !== undefined && spec['minAvailable'] !== null && spec['maxUnavailable'] !== undefined && spec['maxUnavailable'] !== null) {
      errs.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
    }
    for (const k of ['minAvailable', 'maxUnavailable']) {
      const problem = intOrPercentProblem(spec[k]);
      if (problem) errs.push(invalidValue(`spec.${k}`, spec[k], problem));
    }
    if (spec['selector'] !== undefined && spec['selector'] !== null) errs.push(...validateLabelSelectorSpec(spec['selector'], 'spec.selector'));
    return errs;
  },
});

/**
 * The established marker an empty policy/v1beta1 selector is stored as: an empty selector selects
 * no pods in v1beta1 and every pod in v1, so v1 readers see a requirement no pod meets.
 */
export const PDB_V1BETA1_EMPTY_SELECTOR_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

function isEmptySelector(sel: unknown): boolean {
  const s = asRecord(sel);
  const labels = s['matchLabels'];
  const exprs = s['matchExpressions'];
  return (labels === undefined || labels === null || Object.keys(asRecord(labels)).length === 0) && (!Array.isArray(exprs) || exprs.length === 0);
}

function isEmptySelectorMarker(sel: unknown): boolean {
  const s = asRecord(sel);
  const exprs = s['matchExpressions'];
  if (!Array.isArray(exprs) || exprs.length !== 1 || Object.keys(asRecord(s['matchLabels'])).length > 0) return false;
  const e = asRecord(exprs[0]);
  return e['key'] === PDB_V1BETA1_EMPTY_SELECTOR_LABEL && e['operator'] === 'Exists';
}

/** policy/v1beta1 PodDisruptionBudgets: the v1 fields, with the empty selector's v1beta1 meaning kept. */
export const podDisruptionBudgetV1beta1Definition = servedVersion(podDisruptionBudgetDefinition, {
  version: 'v1beta1',
  toStorage(o) {
    const spec = asRecord(o.spec);
    if (spec['selector'] !== undefined && spec['selector'] !== null && isEmptySelector(spec['selector'])) {
      spec['selector'] = { matchExpressions: [{ key: PDB_V1BETA1_EMPTY_SELECTOR_LABEL, operator: 'Exists' }] };
    }
  },
  fromStorage(o) {
    const spec = asRecord(o.spec);
    if (isEmptySelectorMarker(spec['selector'])) spec['selector'] = {};
  },
});
