/** Deployments (apps/v1): declarative rollouts over replicasets. +status, +scale. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, oneOf } from '../../validation/field-errors.js';
import { asRecord, defineKind, section, setDefault } from '../define.js';
import { bool, int32, intOrString, labelSelector, obj, objectSchema, str } from '../schema-dsl.js';
import { defaultPodTemplate, podTemplateSchema, validatePodTemplate } from '../core/pod-spec.js';
import { intOrPercentProblem, isZeroIntOrPercent, replicaStatusSchema, selectorImmutable, validateSelectorAndTemplate } from '../workload.js';
import { deploymentColumns } from '../columns/workloads.js';

export const deploymentDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  tableColumns: deploymentColumns,
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'spec.selector' },
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      replicas: int32(),
      selector: labelSelector(),
      template: podTemplateSchema(),
      strategy: obj({ type: str(), rollingUpdate: obj({ maxUnavailable: intOrString(), maxSurge: intOrString() }) }),
      minReadySeconds: int32(),
      revisionHistoryLimit: int32(),
      paused: bool(),
      progressDeadlineSeconds: int32(),
    }),
    status: replicaStatusSchema(),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'strategy', {});
    const strategy = asRecord(spec['strategy']);
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      setDefault(strategy, 'rollingUpdate', {});
      const ru = asRecord(strategy['rollingUpdate']);
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultPodTemplate(spec['template']);
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = nonNegative('spec.replicas', spec['replicas']);
    errs.push(...validateSelectorAndTemplate(spec, 'deployment'));
    errs.push(...validatePodTemplate(spec['template'], 'spec.template', { restartPolicies: ['Always'] }));
    const strategy = asRecord(spec['strategy']);
    errs.push(...oneOf('spec.strategy.type', strategy['type'], ['Recreate', 'RollingUpdate']));
    const ru = strategy['rollingUpdate'];
    if (strategy['type'] === 'Recreate' && ru !== undefined && ru !== null) {
      errs.push({ field: 'spec.strategy.rollingUpdate', type: 'FieldValueForbidden', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" });
    } else if (ru && typeof ru === 'object') {
      const r = ru as Record<string, unknown>;
      for (const k of ['maxUnavailable', 'maxSurge']) {
        const problem = intOrPercentProblem(r[k]);
        if (problem) errs.push(invalidValue(`spec.strategy.rollingUpdate.${k}`, r[k], problem));
      }
      if (isZeroIntOrPercent(r['maxUnavailable']) && isZeroIntOrPercent(r['maxSurge'])) {
        errs.push(invalidValue('spec.strategy.rollingUpdate.maxUnavailable', r['maxUnavailable'], 'may not be 0 when `maxSurge` is 0'));
      }
    }
    for (const k of ['minReadySeconds', 'revisionHistoryLimit'] as const) errs.push(...nonNegative(`spec.${k}`, spec[k]));
    const pds = spec['progressDeadlineSeconds'];
    if (typeof pds === 'number') {
      if (pds <= 0) errs.push(invalidValue('spec.progressDeadlineSeconds', pds, 'must be greater than 0'));
      else if (typeof spec['minReadySeconds'] === 'number' && pds <= spec['minReadySeconds']) {
        errs.push(invalidValue('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
      }
    }
    errs.push(...selectorImmutable(spec, old?.spec));
    return errs;
  },
});
