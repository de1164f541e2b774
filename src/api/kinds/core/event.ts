/** Events (core/v1): reports about other objects; selectable by involvedObject, reason, source and type. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, required } from '../../validation/field-errors.js';
import { asRecord, defineKind, fieldString, peek } from '../define.js';
import { freeform, int32, obj, objectReference, objectSchema, str, time } from '../schema-dsl.js';
import { eventColumns } from '../columns/core.js';

export const eventDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  tableColumns: eventColumns,
  namespaced: true,
  shortNames: ['ev'],
  schema: objectSchema({
    involvedObject: objectReference(),
    reason: str(),
    message: str(),
    source: obj({ component: str(), host: str() }),
    firstTimestamp: time(),
    lastTimestamp: time(),
    count: int32(),
    type: str(),
    eventTime: time(),
    series: freeform(),
    action: str(),
    related: objectReference(),
    reportingComponent: str(),
    reportingInstance: str(),
  }),
  fields: (o) => ({
    'involvedObject.kind': fieldString(o, 'involvedObject', 'kind'),
    'involvedObject.namespace': fieldString(o, 'involvedObject', 'namespace'),
    'involvedObject.name': fieldString(o, 'involvedObject', 'name'),
    'involvedObject.uid': fieldString(o, 'involvedObject', 'uid'),
    'involvedObject.apiVersion': fieldString(o, 'involvedObject', 'apiVersion'),
    'involvedObject.resourceVersion': fieldString(o, 'involvedObject', 'resourceVersion'),
    'involvedObject.fieldPath': fieldString(o, 'involvedObject', 'fieldPath'),
    reason: fieldString(o, 'reason'),
    reportingComponent: fieldString(o, 'reportingComponent'),
    source: fieldString(o, 'source', 'component'),
    type: fieldString(o, 'type'),
  }),
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const inv = peek(o, 'involvedObject');
    if (!inv) errs.push(required('involvedObject'));
    else {
      const ns = asRecord(inv)['namespace'];
      if (typeof ns === 'string' && ns !== '' && ns !== o.metadata.namespace && o.metadata.namespace !== 'default') {
        errs.push(invalidValue('involvedObject.namespace', ns, 'does not match event.namespace'));
      }
    }
    errs.push(...nonNegative('count', o['count']));
    return errs;
  },
});
