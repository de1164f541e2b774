/** ReplicaSets (apps/v1): keep N pods matching a selector. +status, +scale. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { nonNegative } from '../../validation/field-errors.js';
import { asRecord, defineKind, fieldString, section, setDefault } from '../define.js';
import { int32, labelSelector, obj, objectSchema } from '../schema-dsl.js';
import { defaultPodTemplate, podTemplateSchema, validatePodTemplate } from '../core/pod-spec.js';
import { replicaStatusSchema, selectorImmutable, validateSelectorAndTemplate } from '../workload.js';
import { replicaSetColumns } from '../columns/workloads.js';

export const replicaSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  tableColumns: replicaSetColumns,
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'spec.selector' },
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({ replicas: int32(), minReadySeconds: int32(), selector: labelSelector(), template: podTemplateSchema() }),
    status: replicaStatusSchema(),
  }),
  fields: (o) => ({ 'status.replicas': fieldString(o, 'status', 'replicas') || '0' }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'replicas', 1);
    defaultPodTemplate(spec['template']);
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = nonNegative('spec.replicas', spec['replicas']);
    errs.push(...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
    errs.push(...validateSelectorAndTemplate(spec, 'replicaset'));
    errs.push(...validatePodTemplate(spec['template'], 'spec.template', { restartPolicies: ['Always'] }));
    errs.push(...selectorImmutable(spec, old?.spec));
    return errs;
  },
});
