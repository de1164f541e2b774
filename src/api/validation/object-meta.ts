/**
 * Metadata rules every kind shares: name (per the kind's name rule) or generateName, namespace
 * presence, labels, annotations (keys and total size), finalizers and ownerReferences.
 */
import type { FieldError } from '../status.js';
import type { ObjectMeta, ResourceDefinition, SvcObject } from '../types.js';
import { duplicate, fieldForbidden, invalidEach, invalidValue, required, tooLong } from './field-errors.js';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, nameValidatorFor } from './names.js';

/** The established limit on the summed size of all annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Finalizer names that need no domain prefix. */
// The CRD cleanup finalizer is one of these too (the established server never checks it as a core name).
export const STANDARD_FINALIZERS: readonly string[] = ['svc', 'orphan', 'foregroundDeletion', 'customresourcecleanup.apiextensions.svc.io'];

function isStringMap(v: unknown): v is Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  for (const k in v) if (typeof (v as Record<string, unknown>)[k] !== 'string') return false;
  return true;
}

export function validateLabels(labels: unknown, field: string): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (!isStringMap(labels)) return [invalidValue(field, labels, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  for (const k of Object.keys(labels)) {
    const keyProblems = isQualifiedName(k);
    if (keyProblems.length) errs.push(...invalidEach(field, k, keyProblems));
    const v = labels[k]!;
    const valueProblems = isValidLabelValue(v);
    if (valueProblems.length) errs.push(...invalidEach(field, v, valueProblems));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isStringMap(annotations)) return [invalidValue(field, annotations, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    errs.push(...invalidEach(field, k, isQualifiedName(k.toLowerCase())));
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT, 'bytes'));
  return errs;
}

export function validateFinalizerName(name: string, field: string): FieldError[] {
  const errs = invalidEach(field, name, isQualifiedName(name));
  if (errs.length) return errs;
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name)) {
    return [invalidValue(field, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

export function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [invalidValue(field, finalizers, 'must be a list of strings')];
  const errs: FieldError[] = [];
  finalizers.forEach((f: unknown, i) => {
    if (typeof f !== 'string') errs.push(invalidValue(`${field}[${i}]`, f, 'must be a string'));
    else errs.push(...validateFinalizerName(f, `${field}[${i}]`));
  });
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalidValue(field, finalizers, 'finalizers orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) return [invalidValue(field, refs, 'must be a list')];
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  const uids = new Set<string>();
  refs.forEach((raw: unknown, i) => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const p = `${field}[${i}]`;
    const gv = r['apiVersion'];
    if (typeof gv !== 'string' || gv === '') errs.push(invalidValue(`${p}.apiVersion`, gv ?? '', 'version must not be empty'));
    else if (gv.split('/').length > 2 || gv.startsWith('/') || gv.endsWith('/')) errs.push(invalidValue(`${p}.apiVersion`, gv, 'must be <version> or <group>/<version>'));
    if (typeof r['kind'] !== 'string' || r['kind'] === '') errs.push(invalidValue(`${p}.kind`, r['kind'] ?? '', 'kind must not be empty'));
    if (typeof r['name'] !== 'string' || r['name'] === '') errs.push(invalidValue(`${p}.name`, r['name'] ?? '', 'name must not be empty'));
    const uid = r['uid'];
    if (typeof uid !== 'string' || uid === '') errs.push(invalidValue(`${p}.uid`, uid ?? '', 'uid must not be empty'));
    else if (uids.has(uid)) errs.push(duplicate(`${p}.uid`, uid));
    else uids.add(uid);
    if (r['controller'] === true) controllers.push(`${String(r['kind'])}/${String(r['name'])}`);
  });
  if (controllers.length > 1) {
    errs.push(invalidValue(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`));
  }
  return errs;
}

export interface ObjectMetaOptions {
  /** On create a missing name may be generated from generateName; on update the name must be set. */
  isCreate: boolean;
}

/** All generic metadata rules, with established field paths (`metadata.name`, `metadata.labels` ...). */
export function validateObjectMeta(obj: SvcObject, def: ResourceDefinition, opts: ObjectMetaOptions): FieldError[] {
  const m = (obj.metadata ?? {}) as ObjectMeta;
  const errs: FieldError[] = [];
  const nameOk = nameValidatorFor(def.nameRule);
  if (m.generateName !== undefined && m.generateName !== '') {
    if (typeof m.generateName !== 'string') errs.push(invalidValue('metadata.generateName', m.generateName, 'must be a string'));
    else errs.push(...invalidEach('metadata.generateName', m.generateName, nameOk(m.generateName, true)));
  }
  if (m.name === undefined || m.name === '') {
    const hasGenerate = opts.isCreate && typeof m.generateName === 'string' && m.generateName !== '';
    if (!hasGenerate) errs.push(required('metadata.name', 'name or generateName is required'));
  } else if (typeof m.name !== 'string') {
    errs.push(invalidValue('metadata.name', m.name, 'must be a string'));
  } else {
    errs.push(...invalidEach('metadata.name', m.name, nameOk(m.name, false)));
  }
  if (def.namespaced) {
    if (m.namespace === undefined || m.namespace === '') errs.push(required('metadata.namespace'));
    else errs.push(...invalidEach('metadata.namespace', m.namespace, isDNS1123Label(m.namespace)));
  } else if (m.namespace !== undefined && m.namespace !== '') {
    errs.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (m.generation !== undefined && (typeof m.generation !== 'number' || m.generation < 0)) {
    errs.push(invalidValue('metadata.generation', m.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(m.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(m.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(m.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(m.finalizers, 'metadata.finalizers'));
  return errs;
}
