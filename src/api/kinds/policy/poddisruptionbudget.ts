/** PodDisruptionBudgets (policy/v1beta1): limits on voluntary evictions. +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { invalidValue } from '../../validation/field-errors.js';
import { asRecord, defineKind } from '../define.js';
import { conditions, int32, int64, intOrString, labelSelector, mapOf, obj, objectSchema, openObj, time } from '../schema-dsl.js';
import { intOrPercentProblem } from '../workload.js';

export const podDisruptionBudgetDefinition = defineKind({
  group: 'policy',
  version: 'v1beta1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
  shortNames: ['pdb'],
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
