/** ControllerRevisions (apps/v1): immutable snapshots of a workload's template, by revision number. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { immutable, nonNegative, required } from '../../validation/field-errors.js';
import { defineKind } from '../define.js';
import { freeform, int64, objectSchema } from '../schema-dsl.js';

export const controllerRevisionDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  namespaced: true,
  schema: objectSchema({ data: freeform(), revision: int64() }),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    if (o['revision'] === undefined || o['revision'] === null) errs.push(required('revision'));
    errs.push(...nonNegative('revision', o['revision']));
    if (old) errs.push(...immutable('data', o['data'], old['data']));
    return errs;
  },
});
