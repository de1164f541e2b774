/** Namespaces (core/v1, cluster-scoped): DNS-1123 label names; spec.finalizers ["svc"], phase Active. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, oneOf } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { asArray, defineKind, fieldString, peek, section } from '../define.js';
import { conditions, obj, objectSchema, openObj, setList, str } from '../schema-dsl.js';
import { namespaceColumns } from '../columns/core.js';

/** The finalizer the namespace controller removes once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'svc';

export const namespaceDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  tableColumns: namespaceColumns,
  namespaced: false,
  shortNames: ['ns'],
  nameRule: 'label',
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({ finalizers: setList() }),
    status: openObj({ phase: str(), conditions: conditions() }),
  }),
  fields: (o) => ({ 'status.phase': fieldString(o, 'status', 'phase') }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    if (spec['finalizers'] === undefined || spec['finalizers'] === null) spec['finalizers'] = [NAMESPACE_FINALIZER];
    const status = section(o, 'status');
    if (!status['phase']) status['phase'] = 'Active';
  },
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    asArray(peek(o, 'spec')?.['finalizers']).forEach((f, i) => {
      errs.push(...invalidEach(`spec.finalizers[${i}]`, f, typeof f === 'string' ? isQualifiedName(f) : ['must be a string']));
    });
    errs.push(...oneOf('status.phase', peek(o, 'status')?.['phase'], ['Active', 'Terminating']));
    return errs;
  },
});
