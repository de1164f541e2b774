/** DaemonSets (apps/v1): one pod per eligible node. +status (no scale). */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, oneOf } from '../../validation/field-errors.js';
import { asRecord, defineKind, section, setDefault } from '../define.js';
import { conditions, int32, int64, intOrString, labelSelector, obj, objectSchema, openObj, str } from '../schema-dsl.js';
import { defaultPodTemplate, podTemplateSchema, validatePodTemplate } from '../core/pod-spec.js';
import { intOrPercentProblem, isZeroIntOrPercent, selectorImmutable, validateSelectorAndTemplate } from '../workload.js';
import { daemonSetColumns } from '../columns/workloads.js';

export const daemonSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  tableColumns: daemonSetColumns,
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  subresources: ['status'],
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      selector: labelSelector(),
      template: podTemplateSchema(),
      updateStrategy: obj({ type: str(), rollingUpdate: obj({ maxUnavailable: intOrString() }) }),
      minReadySeconds: int32(),
      revisionHistoryLimit: int32(),
    }),
    status: openObj({
      currentNumberScheduled: int32(),
      numberMisscheduled: int32(),
      desiredNumberScheduled: int32(),
      numberReady: int32(),
      observedGeneration: int64(),
      updatedNumberScheduled: int32(),
      numberAvailable: int32(),
      numberUnavailable: int32(),
      collisionCount: int32(),
      conditions: conditions(),
    }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'updateStrategy', {});
    const us = asRecord(spec['updateStrategy']);
    setDefault(us, 'type', 'RollingUpdate');
    if (us['type'] === 'RollingUpdate') {
      setDefault(us, 'rollingUpdate', {});
      setDefault(asRecord(us['rollingUpdate']), 'maxUnavailable', 1);
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodTemplate(spec['template']);
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validateSelectorAndTemplate(spec, 'daemonset');
    errs.push(...validatePodTemplate(spec['template'], 'spec.template', { restartPolicies: ['Always'] }));
    const us = asRecord(spec['updateStrategy']);
    errs.push(...oneOf('spec.updateStrategy.type', us['type'], ['OnDelete', 'RollingUpdate']));
    const mu = asRecord(us['rollingUpdate'])['maxUnavailable'];
    if (us['type'] === 'RollingUpdate') {
      const problem = intOrPercentProblem(mu);
      if (problem) errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', mu, problem));
      else if (isZeroIntOrPercent(mu)) errs.push(invalidValue('spec.updateStrategy.rollingUpdate.maxUnavailable', mu, 'cannot be 0'));
    }
    errs.push(...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
    errs.push(...nonNegative('spec.revisionHistoryLimit', spec['revisionHistoryLimit']));
    errs.push(...selectorImmutable(spec, old?.spec));
    return errs;
  },
});
