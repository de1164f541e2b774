/** ServiceAccounts (core/v1): identities for pods. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, required } from '../../validation/field-errors.js';
import { isDNS1123Subdomain } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { bool, localObjectReference, mapList, objectReference, objectSchema } from '../schema-dsl.js';
import { serviceAccountColumns } from '../columns/core.js';

export const serviceAccountDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  tableColumns: serviceAccountColumns,
  namespaced: true,
  shortNames: ['sa'],
  schema: objectSchema({
    secrets: mapList(['name'], objectReference()),
    imagePullSecrets: mapList(['name'], localObjectReference()),
    automountServiceAccountToken: bool(),
  }),
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    for (const key of ['secrets', 'imagePullSecrets'] as const) {
      asArray(o[key]).forEach((raw, i) => {
        const name = asRecord(raw)['name'];
        if (typeof name !== 'string' || name === '') errs.push(required(`${key}[${i}].name`));
        else errs.push(...invalidEach(`${key}[${i}].name`, name, isDNS1123Subdomain(name)));
      });
    }
    return errs;
  },
});
