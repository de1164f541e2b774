/**
 * events.svc.io/v1 Events (alias events.k8s.io/v1): the same stored objects as core v1 Events,
 * served with the newer field names (`regarding`, `note`, `reportingController`, `deprecated*`)
 * and the newer rules on create (an event time, a reporting controller and instance, an action).
 * Converted as established: regarding <-> involvedObject, note <-> message, reportingController <->
 * reportingComponent, deprecatedSource/FirstTimestamp/LastTimestamp/Count <-> source,
 * firstTimestamp, lastTimestamp, count.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, invalidValue, required } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { asRecord } from '../define.js';
import { int32, obj, objectReference, objectSchema, str, time } from '../schema-dsl.js';
import { eventDefinition } from '../core/event.js';
import { servedVersion } from '../../versions.js';

/** events.svc.io/v1 field -> core v1 field. */
const RENAMES: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(o: SvcObject, pairs: readonly (readonly [string, string])[]): void {
  for (const [from, to] of pairs) {
    if (o[from] === undefined) continue;
    o[to] = o[from];
    delete o[from];
  }
}

const toCore = (o: SvcObject): void => rename(o, RENAMES);
const fromCore = (o: SvcObject): void => rename(o, RENAMES.map(([a, b]) => [b, a] as const));

/** A core-shaped copy of an events.svc.io/v1 Event (for the shared Table columns and field selectors). */
function asCoreEvent(o: SvcObject): SvcObject {
  const copy = { ...o };
  toCore(copy);
  return copy;
}

const LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

function tooLongValue(field: string, value: unknown, limit: number): FieldError[] {
  return typeof value === 'string' && value.length > limit ? [invalidValue(field, '', `can have at most ${limit} characters`)] : [];
}

export const eventsV1EventDefinition = servedVersion(eventDefinition, {
  group: 'events.svc.io',
  version: 'v1',
  shortNames: [],
  schema: objectSchema({
    eventTime: time(),
    series: obj({ count: int32(), lastObservedTime: time() }),
    reportingController: str(),
    reportingInstance: str(),
    action: str(),
    reason: str(),
    regarding: objectReference(),
    related: objectReference(),
    note: str(),
    type: str(),
    deprecatedSource: obj({ component: str(), host: str() }),
    deprecatedFirstTimestamp: time(),
    deprecatedLastTimestamp: time(),
    deprecatedCount: int32(),
  }),
  selectableFields: (o) => eventDefinition.selectableFields(asCoreEvent(o)),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs = eventDefinition.validate?.(asCoreEvent(o), old && asCoreEvent(old)).map((e) => ({ ...e, field: e.field.replace(/^involvedObject/, 'regarding').replace(/^count/, 'deprecatedCount') })) ?? [];
    if (old) return errs;
    // The rules the established server applies to events created through events/v1.
    if (!o['eventTime']) errs.push(required('eventTime'));
    if (o['type'] !== 'Normal' && o['type'] !== 'Warning') errs.push(invalidValue('type', '', `has invalid value: ${String(o['type'] ?? '')}`));
    for (const k of ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']) {
      if (o[k] !== undefined && o[k] !== null && o[k] !== 0) errs.push(invalidValue(k, '', 'needs to be unset'));
    }
    const source = asRecord(o['deprecatedSource']);
    if (source['component'] || source['host']) errs.push(invalidValue('deprecatedSource', '', 'needs to be unset'));
    const controller = o['reportingController'];
    if (typeof controller !== 'string' || controller === '') errs.push(required('reportingController'));
    else errs.push(...invalidEach('reportingController', controller, isQualifiedName(controller)));
    if (!o['reportingInstance']) errs.push(required('reportingInstance'));
    errs.push(...tooLongValue('reportingInstance', o['reportingInstance'], LENGTH_LIMIT));
    if (!o['action']) errs.push(required('action'));
    errs.push(...tooLongValue('action', o['action'], LENGTH_LIMIT));
    if (!o['reason']) errs.push(required('reason'));
    errs.push(...tooLongValue('reason', o['reason'], LENGTH_LIMIT));
    errs.push(...tooLongValue('note', o['note'], NOTE_LENGTH_LIMIT));
    return errs;
  },
  toStorage: toCore,
  fromStorage: fromCore,
});
