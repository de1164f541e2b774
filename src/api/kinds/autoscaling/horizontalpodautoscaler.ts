/** HorizontalPodAutoscalers (autoscaling/v1): scale a target by CPU utilisation. +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, invalidValue, positive, required } from '../../validation/field-errors.js';
import { isValidPathSegmentName } from '../../validation/names.js';
import { asRecord, defineKind, section, setDefault } from '../define.js';
import { int32, int64, obj, objectSchema, openObj, str, time } from '../schema-dsl.js';

export const horizontalPodAutoscalerDefinition = defineKind({
  group: 'autoscaling',
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({
      scaleTargetRef: obj({ kind: str(), name: str(), apiVersion: str() }),
      minReplicas: int32(),
      maxReplicas: int32(),
      targetCPUUtilizationPercentage: int32(),
    }),
    status: openObj({ observedGeneration: int64(), lastScaleTime: time(), currentReplicas: int32(), desiredReplicas: int32(), currentCPUUtilizationPercentage: int32() }),
  }),
  defaults(o: SvcObject): void {
    setDefault(section(o), 'minReplicas', 1);
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    const ref = asRecord(spec['scaleTargetRef']);
    if (!ref['kind']) errs.push(required('spec.scaleTargetRef.kind'));
    else if (typeof ref['kind'] === 'string') errs.push(...invalidEach('spec.scaleTargetRef.kind', ref['kind'], isValidPathSegmentName(ref['kind'])));
    if (!ref['name']) errs.push(required('spec.scaleTargetRef.name'));
    else if (typeof ref['name'] === 'string') errs.push(...invalidEach('spec.scaleTargetRef.name', ref['name'], isValidPathSegmentName(ref['name'])));
    const min = spec['minReplicas'];
    const max = spec['maxReplicas'];
    errs.push(...positive('spec.minReplicas', min));
    if (max === undefined || max === null) errs.push(required('spec.maxReplicas'));
    else if (typeof max === 'number') {
      if (max < 1) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than 0'));
      else if (typeof min === 'number' && max < min) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
    }
    const t = spec['targetCPUUtilizationPercentage'];
    if (typeof t === 'number' && t < 1) errs.push(invalidValue('spec.targetCPUUtilizationPercentage', t, 'must be greater than 0'));
    return errs;
  },
});
