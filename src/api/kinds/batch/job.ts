/** Jobs (batch/v1): run pods to completion. +status. The server picks a unique selector unless manualSelector. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { immutable, inRange, nonNegative } from '../../validation/field-errors.js';
import { asRecord, defineKind, fieldString, section, setDefault } from '../define.js';
import { bool, conditions, int32, int64, labelSelector, obj, objectSchema, openObj, time } from '../schema-dsl.js';
import { defaultPodTemplate, podTemplateSchema, validatePodTemplate } from '../core/pod-spec.js';
import { validateSelectorAndTemplate } from '../workload.js';
import { jobColumns } from '../columns/workloads.js';

export const jobSpecSchema = () =>
  obj({
    parallelism: int32(),
    completions: int32(),
    activeDeadlineSeconds: int64(),
    backoffLimit: int32(),
    selector: labelSelector(),
    manualSelector: bool(),
    template: podTemplateSchema(),
    ttlSecondsAfterFinished: int32(),
  });

/** Job spec defaults, shared with cronjob job templates (which get no generated selector). */
export function defaultJobSpec(spec: Record<string, unknown>): void {
  const noCompletions = spec['completions'] === undefined || spec['completions'] === null;
  const noParallelism = spec['parallelism'] === undefined || spec['parallelism'] === null;
  if (noCompletions && noParallelism) spec['completions'] = 1;
  if (noParallelism) spec['parallelism'] = 1;
  setDefault(spec, 'backoffLimit', 6);
  defaultPodTemplate(spec['template']);
}

export function validateJobSpec(spec: Record<string, unknown>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished']) errs.push(...nonNegative(`${p}.${k}`, spec[k]));
  const ads = spec['activeDeadlineSeconds'];
  if (ads !== undefined && ads !== null) errs.push(...inRange(`${p}.activeDeadlineSeconds`, ads, 1, Number.MAX_SAFE_INTEGER).map((e) => ({ ...e, message: e.message.replace(/must be between.*/, 'must be greater than 0') })));
  errs.push(...validatePodTemplate(spec['template'], `${p}.template`, { restartPolicies: ['OnFailure', 'Never'] }));
  return errs;
}

export const jobDefinition = defineKind({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  tableColumns: jobColumns,
  namespaced: true,
  categories: ['all'],
  subresources: ['status'],
  tracksGeneration: true,
  schema: objectSchema({
    spec: jobSpecSchema(),
    status: openObj({ conditions: conditions(), startTime: time(), completionTime: time(), active: int32(), succeeded: int32(), failed: int32() }),
  }),
  fields: (o) => ({ 'status.successful': fieldString(o, 'status', 'succeeded') || '0' }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    // Unless the user manages the selector, a job selects its own pods by its uid.
    const uid = o.metadata.uid;
    if (spec['manualSelector'] !== true && uid && (spec['selector'] === undefined || spec['selector'] === null)) {
      spec['selector'] = { matchLabels: { 'controller-uid': uid } };
      const tmpl = asRecord(spec['template']);
      spec['template'] = tmpl;
      const meta = asRecord(tmpl['metadata']);
      tmpl['metadata'] = meta;
      meta['labels'] = { ...asRecord(meta['labels']), 'controller-uid': uid, 'job-name': o.metadata.name ?? '' };
    }
    defaultJobSpec(spec);
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validateJobSpec(spec, 'spec');
    errs.push(...validateSelectorAndTemplate(spec, 'job'));
    if (old) {
      const oldSpec = asRecord(old.spec);
      errs.push(...immutable('spec.completions', spec['completions'], oldSpec['completions']));
      errs.push(...immutable('spec.selector', spec['selector'], oldSpec['selector']));
      errs.push(...immutable('spec.template', spec['template'], oldSpec['template']));
    }
    return errs;
  },
});
