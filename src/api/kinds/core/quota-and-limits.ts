/** ResourceQuotas (+status) and LimitRanges (core/v1): namespace-wide resource policy. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { oneOf, required } from '../../validation/field-errors.js';
import { validateResourceList } from '../../validation/quantity.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, freeform, obj, objectSchema, openObj, resourceList, str } from '../schema-dsl.js';

export const resourceQuotaDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  namespaced: true,
  shortNames: ['quota'],
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({ hard: resourceList(), scopes: atomicList(str()), scopeSelector: freeform() }),
    status: openObj({ hard: resourceList(), used: resourceList() }),
  }),
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const status = asRecord(o['status']);
    const errs = [...validateResourceList('spec.hard', spec['hard']), ...validateResourceList('status.hard', status['hard']), ...validateResourceList('status.used', status['used'])];
    asArray(spec['scopes']).forEach((s, i) => {
      errs.push(...oneOf(`spec.scopes[${i}]`, s, ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating']));
    });
    return errs;
  },
});

export const LIMIT_TYPES = ['Container', 'PersistentVolumeClaim', 'Pod'];

export const limitRangeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  namespaced: true,
  shortNames: ['limits'],
  schema: objectSchema({
    spec: obj({
      limits: atomicList(
        obj({
          type: str(),
          max: resourceList(),
          min: resourceList(),
          default: resourceList(),
          defaultRequest: resourceList(),
          maxLimitRequestRatio: resourceList(),
        }),
      ),
    }),
  }),
  // As established for a Container item: the max is the default limit where none is given, the
  // default limit the default request, and the min the default request where still none.
  defaults(o: SvcObject): void {
    for (const raw of asArray(asRecord(o.spec)['limits'])) {
      if (!raw || typeof raw !== 'object') continue;
      const item = raw as Record<string, unknown>;
      if (item['type'] !== 'Container') continue;
      const dflt = { ...asRecord(item['default']) };
      const request = { ...asRecord(item['defaultRequest']) };
      for (const [k, v] of Object.entries(asRecord(item['max']))) if (dflt[k] === undefined) dflt[k] = v;
      for (const [k, v] of Object.entries(dflt)) if (request[k] === undefined) request[k] = v;
      for (const [k, v] of Object.entries(asRecord(item['min']))) if (request[k] === undefined) request[k] = v;
      if (Object.keys(dflt).length) item['default'] = dflt;
      if (Object.keys(request).length) item['defaultRequest'] = request;
    }
  },
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const limits = asArray(asRecord(o.spec)['limits']);
    if (o.spec === undefined) errs.push(required('spec.limits'));
    limits.forEach((raw, i) => {
      const l = asRecord(raw);
      const p = `spec.limits[${i}]`;
      if (!l['type']) errs.push(required(`${p}.type`));
      else errs.push(...oneOf(`${p}.type`, l['type'], LIMIT_TYPES));
      for (const k of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) errs.push(...validateResourceList(`${p}.${k}`, l[k]));
      if (l['type'] === 'Pod' && (l['default'] !== undefined || l['defaultRequest'] !== undefined)) {
        errs.push({ field: `${p}.default`, type: 'FieldValueForbidden', message: 'Forbidden: may not be specified when `type` is \'Pod\'' });
      }
    });
    return errs;
  },
});
