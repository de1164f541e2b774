/**
 * CronJobs: jobs on a schedule. +status. Names are at most 52 characters. Stored as batch/v1 (the
 * established storage and preferred version); batch/v1beta1, the spec's version, serves the same
 * objects with the same fields.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, oneOf, required } from '../../validation/field-errors.js';
import { asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, bool, int32, int64, obj, objectMeta, objectReference, objectSchema, openObj, str, time } from '../schema-dsl.js';
import { defaultJobSpec, jobSpecSchema, validateJobSpec } from './job.js';
import { cronJobColumns } from '../columns/workloads.js';
import { servedVersion } from '../../versions.js';

/** Generated job names append an 11-character suffix to the cronjob name. */
export const CRONJOB_NAME_MAX_LENGTH = 52;

const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Five fields of `*`, numbers, ranges, lists, steps and month/day names; or a macro; or `@every <duration>`. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const s = schedule.trim().replace(/^(CRON_)?TZ=\S+\s+/, '');
  if (CRON_MACROS.includes(s) || /^@every\s+(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s)) return undefined;
  const parts = s.split(/\s+/);
  if (parts.length !== 5) return `Expected exactly 5 fields, found ${parts.length}: ${schedule}`;
  const field = /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?$/;
  for (const p of parts) for (const item of p.split(',')) if (!field.test(item)) return `unparseable field ${JSON.stringify(item)} in ${JSON.stringify(schedule)}`;
  return undefined;
}

export const cronJobDefinition = defineKind({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  tableColumns: cronJobColumns,
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  subresources: ['status'],
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      schedule: str(),
      startingDeadlineSeconds: int64(),
      concurrencyPolicy: str(),
      suspend: bool(),
      jobTemplate: obj({ metadata: objectMeta(), spec: jobSpecSchema() }),
      successfulJobsHistoryLimit: int32(),
      failedJobsHistoryLimit: int32(),
    }),
    status: openObj({ active: atomicList(objectReference()), lastScheduleTime: time(), lastSuccessfulTime: time() }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'concurrencyPolicy', 'Allow');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'successfulJobsHistoryLimit', 3);
    setDefault(spec, 'failedJobsHistoryLimit', 1);
    const jt = asRecord(spec['jobTemplate']);
    if (spec['jobTemplate'] !== undefined) {
      setDefault(jt, 'spec', {});
      defaultJobSpec(asRecord(jt['spec']));
    }
  },
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const name = o.metadata.name ?? '';
    if (name.length > CRONJOB_NAME_MAX_LENGTH) errs.push(invalidValue('metadata.name', name, `must be no more than ${CRONJOB_NAME_MAX_LENGTH} characters`));
    const spec = asRecord(o.spec);
    const schedule = spec['schedule'];
    if (typeof schedule !== 'string' || schedule === '') errs.push(required('spec.schedule'));
    else {
      const problem = cronScheduleProblem(schedule);
      if (problem) errs.push(invalidValue('spec.schedule', schedule, problem));
    }
    errs.push(...oneOf('spec.concurrencyPolicy', spec['concurrencyPolicy'], ['Allow', 'Forbid', 'Replace']));
    for (const k of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) errs.push(...nonNegative(`spec.${k}`, spec[k]));
    const jt = spec['jobTemplate'];
    if (jt === undefined || jt === null) errs.push(required('spec.jobTemplate'));
    else errs.push(...validateJobSpec(asRecord(asRecord(jt)['spec']), 'spec.jobTemplate.spec'));
    return errs;
  },
});

/** batch/v1beta1 CronJobs: the spec's version, the same fields as batch/v1. */
export const cronJobV1beta1Definition = servedVersion(cronJobDefinition, { version: 'v1beta1' });
