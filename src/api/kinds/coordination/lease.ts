/** Leases (coordination.svc.io/v1): leader election locks and node heartbeats. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, positive } from '../../validation/field-errors.js';
import { asRecord, defineKind } from '../define.js';
import { int32, obj, objectSchema, str } from '../schema-dsl.js';
import { leaseColumns } from '../columns/core.js';

/** Lease times are RFC 3339 with microseconds (MicroTime). */
const MICRO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export const leaseDefinition = defineKind({
  group: 'coordination.svc.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  tableColumns: leaseColumns,
  namespaced: true,
  schema: objectSchema({
    spec: obj({
      holderIdentity: str(),
      leaseDurationSeconds: int32(),
      acquireTime: str({ format: 'date-time' }),
      renewTime: str({ format: 'date-time' }),
      leaseTransitions: int32(),
    }),
  }),
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = [...positive('spec.leaseDurationSeconds', spec['leaseDurationSeconds']), ...nonNegative('spec.leaseTransitions', spec['leaseTransitions'])];
    for (const k of ['acquireTime', 'renewTime']) {
      const v = spec[k];
      if (typeof v === 'string' && !MICRO_TIME_RE.test(v)) errs.push(invalidValue(`spec.${k}`, v, 'must be an RFC 3339 time, e.g. 2006-01-02T15:04:05.000000Z'));
    }
    return errs;
  },
});
