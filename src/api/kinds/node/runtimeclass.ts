/**
 * RuntimeClasses (node.svc.io, alias node.k8s.io): named container runtime configurations pods
 * select with `runtimeClassName`. Stored as v1 (the established storage and preferred version);
 * v1beta1, the spec's version, has the same fields. The simulated nodes run every class alike.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, required } from '../../validation/field-errors.js';
import { isDNS1123Label } from '../../validation/names.js';
import { asRecord, defineKind } from '../define.js';
import { atomicList, int64, obj, objectSchema, resourceList, str, stringMap } from '../schema-dsl.js';
import { runtimeClassColumns } from '../columns/networking.js';
import { servedVersion } from '../../versions.js';

export const runtimeClassDefinition = defineKind({
  group: 'node.svc.io',
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  namespaced: false,
  tableColumns: runtimeClassColumns,
  schema: objectSchema({
    handler: str(),
    overhead: obj({ podFixed: resourceList() }),
    scheduling: obj({
      nodeSelector: stringMap(),
      tolerations: atomicList(obj({ key: str(), operator: str(), value: str(), effect: str(), tolerationSeconds: int64() })),
    }),
  }),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const handler = o['handler'];
    const errs: FieldError[] = [];
    if (typeof handler !== 'string' || handler === '') errs.push(required('handler'));
    else errs.push(...invalidEach('handler', handler, isDNS1123Label(handler)));
    if (old && old['handler'] !== handler) errs.push({ field: 'handler', type: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(handler)}: field is immutable` });
    const overhead = asRecord(asRecord(o['overhead'])['podFixed']);
    for (const [k, v] of Object.entries(overhead)) {
      if (typeof v === 'string' && v.startsWith('-')) errs.push({ field: `overhead.podFixed[${k}]`, type: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(v)}: must be greater than or equal to 0` });
    }
    return errs;
  },
});

/** node.svc.io/v1beta1: the spec's version, the same fields. */
export const runtimeClassV1beta1Definition = servedVersion(runtimeClassDefinition, { version: 'v1beta1' });
