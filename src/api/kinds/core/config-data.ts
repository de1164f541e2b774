/** ConfigMaps and Secrets (core/v1): named data keyed by `[-._a-zA-Z0-9]+` keys. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, immutable, invalidEach, invalidValue, tooLong } from '../../validation/field-errors.js';
import { isConfigMapKey } from '../../validation/names.js';
import { asRecord, defineKind, fieldString } from '../define.js';
import { bool, bytes, mapOf, objectSchema, str, stringMap } from '../schema-dsl.js';
import { configMapColumns, secretColumns } from '../columns/core.js';

/** The established cap on a configmap's or secret's total data. */
export const MAX_DATA_BYTES = 1024 * 1024;

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function validateKeys(map: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(asRecord(map))) errs.push(...invalidEach(`${field}[${k}]`, k, isConfigMapKey(k)));
  return errs;
}

function immutableRules(o: SvcObject, old: SvcObject | undefined, keys: string[]): FieldError[] {
  if (!old || old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (o['immutable'] !== true) errs.push(invalidValue('immutable', o['immutable'] ?? null, 'field is immutable when `immutable` is set'));
  for (const k of keys) if (JSON.stringify(o[k] ?? {}) !== JSON.stringify(old[k] ?? {})) errs.push({ field: k, type: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set' });
  return errs;
}

export const configMapDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  tableColumns: configMapColumns,
  namespaced: true,
  shortNames: ['cm'],
  schema: objectSchema({ data: stringMap(), binaryData: mapOf(bytes()), immutable: bool() }),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs = [...validateKeys(o['data'], 'data'), ...validateKeys(o['binaryData'], 'binaryData')];
    const data = asRecord(o['data']);
    let total = 0;
    for (const [k, v] of Object.entries(asRecord(o['binaryData']))) {
      if (k in data) errs.push(duplicate(`data[${k}]`, k));
      if (typeof v === 'string' && !BASE64_RE.test(v)) errs.push(invalidValue(`binaryData[${k}]`, '<binary>', 'must be base64-encoded'));
      total += k.length + (typeof v === 'string' ? Math.floor((v.length * 3) / 4) : 0);
    }
    for (const [k, v] of Object.entries(data)) total += k.length + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
    if (total > MAX_DATA_BYTES) errs.push(tooLong('', MAX_DATA_BYTES, 'bytes'));
    errs.push(...immutableRules(o, old, ['data', 'binaryData']));
    return errs;
  },
});

export const secretDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  tableColumns: secretColumns,
  namespaced: true,
  schema: objectSchema({ data: mapOf(bytes()), stringData: stringMap(), type: str(), immutable: bool() }),
  fields: (o) => ({ type: fieldString(o, 'type') }),
  defaults(o: SvcObject): void {
    if (!o['type']) o['type'] = 'Opaque';
    // stringData is write-only: merged into data (base64) and never stored.
    const sd = o['stringData'];
    if (sd && typeof sd === 'object') {
      const data = asRecord(o['data']);
      for (const [k, v] of Object.entries(sd as Record<string, unknown>)) if (typeof v === 'string') data[k] = Buffer.from(v).toString('base64');
      o['data'] = data;
    }
    delete o['stringData'];
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs = validateKeys(o['data'], 'data');
    let total = 0;
    for (const [k, v] of Object.entries(asRecord(o['data']))) {
      if (typeof v !== 'string') continue;
      if (!BASE64_RE.test(v)) errs.push(invalidValue(`data[${k}]`, '<secret contents redacted>', 'illegal base64 data: must be base64-encoded'));
      total += Math.floor((v.length * 3) / 4);
    }
    if (total > MAX_DATA_BYTES) errs.push(tooLong('data', MAX_DATA_BYTES, 'bytes'));
    const data = asRecord(o['data']);
    if (o['type'] === 'svc.io/service-account-token') {
      const ann = o.metadata.annotations ?? {};
      if (!ann['svc.io/service-account.name']) errs.push({ field: 'metadata.annotations[svc.io/service-account.name]', type: 'FieldValueRequired', message: 'Required value' });
    } else if (o['type'] === 'svc.io/dockerconfigjson' && data['.dockerconfigjson'] === undefined) {
      errs.push({ field: 'data[.dockerconfigjson]', type: 'FieldValueRequired', message: 'Required value' });
    } else if (o['type'] === 'svc.io/tls') {
      for (const k of ['tls.crt', 'tls.key']) if (data[k] === undefined) errs.push({ field: `data[${k}]`, type: 'FieldValueRequired', message: 'Required value' });
    }
    if (old) errs.push(...immutable('type', o['type'], old['type']));
    errs.push(...immutableRules(o, old, ['data']));
    return errs;
  },
});
