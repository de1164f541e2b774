/**
 * The metadata rules every kind shares: what the server sets on create, what an update may not
 * change, when `generation` moves, and how the status subresource splits an object. Kind-specific
 * defaulting and validation come from the kind's ResourceDefinition.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, type FieldError, invalid } from '../api/status.js';
import { groupVersion, type ResourceDefinition, type SvcObject } from '../api/types.js';
import { cloneJson, stringifyJson, validateAgainstSchema, validateObjectMeta } from '../api/index.js';
import { checkMetadataTypes } from './input-limits.js';

/** Time in the established RFC 3339 form with second precision. */
export function timestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}
// Writes arrive thousands per second: format each second once.
let lastSecond = -1;
let lastStamp = '';

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters from the established alphabet (no vowels, no look-alikes). */
export function generatedName(prefix: string): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += NAME_ALPHABET[b % NAME_ALPHABET.length];
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  return base + s;
}

function stripSpecAndStatus(obj: SvcObject): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return stringifyJson(rest);
}

/** Checks the body's kind/apiVersion against the path and fills them when absent. */
export function checkTypeMeta(def: ResourceDefinition, obj: SvcObject, expectedKind = def.kind): void {
  const gv = groupVersion(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (obj.kind !== undefined && obj.kind !== expectedKind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectedKind})`);
  }
  // apiVersion and kind lead the object, as clients print it.
  const rest = { ...obj };
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, { apiVersion: gv, kind: expectedKind }, rest, { apiVersion: gv, kind: expectedKind });
}

/** Ensures the body is a JSON object with an object `metadata` whose fields have their types (400 otherwise). */
export function asObject(body: unknown, what = 'object'): SvcObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object (a ${what}), not ${Array.isArray(body) ? 'an array' : typeof body}`);
  }
  const obj = body as SvcObject;
  if (obj.metadata === undefined) obj.metadata = {};
  if (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) {
    throw badRequest('metadata must be an object');
  }
  checkMetadataTypes(obj.metadata as Record<string, unknown>);
  return obj;
}

/** Makes the body's namespace agree with the path's (400 when they differ). */
export function reconcileNamespace(def: ResourceDefinition, obj: SvcObject, pathNamespace: string): void {
  if (!def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const ns = obj.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== pathNamespace) {
    throw badRequest(
      `the namespace of the provided object (${ns}) does not match the namespace sent on the request (${pathNamespace})`,
    );
  }
  obj.metadata.namespace = pathNamespace;
}

/** Server-set metadata on create, then defaults. */
export function prepareForCreate(def: ResourceDefinition, obj: SvcObject, now: number): void {
  const m = obj.metadata;
  if (m.resourceVersion !== undefined && m.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  delete m.resourceVersion;
  if ((!m.name || m.name === '') && m.generateName) m.name = generatedName(m.generateName);
  m.uid = randomUUID();
  m.creationTimestamp = timestamp(now);
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (def.tracksGeneration) m.generation = 1;
  else delete m.generation;
  if (def.hasStatus && !def.statusSetOnCreate) delete obj.status;
  def.defaults?.(obj);
}

/**
 * Carries over what an update of the main resource may not change, keeps the status (it has its
 * own subresource), and bumps generation when the spec changed.
 */
export function prepareForUpdate(def: ResourceDefinition, next: SvcObject, old: SvcObject): void {
  const m = next.metadata;
  const o = old.metadata;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.name = o.name;
  if (def.namespaced) m.namespace = o.namespace;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (m.generateName === undefined && o.generateName !== undefined) m.generateName = o.generateName;
  if (def.hasStatus) {
    if (old.status === undefined) delete next.status;
    else next.status = cloneJson(old.status);
  }
  def.defaults?.(next);
  if (def.tracksGeneration) {
    const gen = o.generation ?? 1;
    m.generation = stripSpecAndStatus(next) !== stripSpecAndStatus(old) ? gen + 1 : gen;
  } else delete m.generation;
}

/** The status subresource: everything but status (and the version) comes from the stored object. */
export function prepareStatusUpdate(next: SvcObject, old: SvcObject): SvcObject {
  const merged = cloneJson(old);
  if (next.status === undefined) delete merged.status;
  else merged.status = next.status;
  return merged;
}

/** Rules about finalizers while an object is being deleted. */
function finalizerRules(next: SvcObject, old: SvcObject | undefined): FieldError[] {
  if (!old?.metadata.deletionTimestamp) return [];
  // Types were checked on the way in (checkMetadataTypes); stay safe for objects stored before that.
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const had = new Set(list(old.metadata.finalizers));
  const added = list(next.metadata.finalizers).filter((f) => !had.has(f));
  return added.length
    ? [{ field: 'metadata.finalizers', type: 'FieldValueForbidden', message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` }]
    : [];
}

/** Generic metadata rules + the kind's schema + the kind's own rules; throws 422 Invalid. */
export function validateOrThrow(def: ResourceDefinition, obj: SvcObject, old?: SvcObject): void {
  const errors = [...validateObjectMeta(obj, def, { isCreate: old === undefined }), ...validateAgainstSchema(def, obj), ...finalizerRules(obj, old), ...(def.validate?.(obj, old) ?? [])];
  if (errors.length) throw invalid(def.kind, obj.metadata.name ?? obj.metadata.generateName ?? '', def.group, errors);
}

/**
 * validateOrThrow for the write path: with `pause` (a large object) other requests get a turn
 * between the schema check and the kind's own rules, which for a CRD compile its schema.
 */
export async function validateOrThrowPausing(def: ResourceDefinition, obj: SvcObject, old: SvcObject | undefined, pause: (() => Promise<void>) | undefined): Promise<void> {
  if (!pause) return validateOrThrow(def, obj, old);
  const errors: FieldError[] = [...validateObjectMeta(obj, def, { isCreate: old === undefined }), ...validateAgainstSchema(def, obj)];
  await pause();
  errors.push(...finalizerRules(obj, old), ...(def.validate?.(obj, old) ?? []));
  if (errors.length) throw invalid(def.kind, obj.metadata.name ?? obj.metadata.generateName ?? '', def.group, errors);
}
