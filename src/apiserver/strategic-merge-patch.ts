/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds, driven by the
 * kind's one schema: a list marked `x-svc-list-type: map` merges item by item on its first key (the
 * established patch merge key: containers by name, ports by containerPort, ownerReferences by uid),
 * a `set` list of scalars merges as a union (finalizers), any other list is replaced; objects and
 * maps merge key by key and `null` deletes, as in a JSON merge patch.
 *
 * Directives, as the established clients send them:
 *   `$patch: replace` (an object: replace it whole; a list item: replace the list with the other items),
 *   `$patch: delete` (an object: delete it; a list item: delete the item with that key),
 *   `$retainKeys: [...]` (drop the original's keys not listed: union types such as a Deployment's strategy),
 *   `$deleteFromPrimitiveList/<field>: [...]` (remove these values from a set list),
 *   `$setElementOrder/<field>: [...]` (the order of the merged list's items).
 *
 * Contract: pure (neither argument is changed); a patch that breaks these rules is a 400 naming the
 * path. Custom resources refuse this media type (415), as established: their schemas carry no
 * merge keys.
 */
import { badRequest } from '../api/status.js';
import type { SchemaNode } from '../api/types.js';
import { fieldSchema, isPlainObject, listTypeOf } from './apply/object-fields.js';

export const STRATEGIC_MERGE_PATCH_MEDIA_TYPE = 'application/strategic-merge-patch+json';

type Plain = Record<string, unknown>;

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

/** Marks "delete this key" on the way back up from a `$patch: delete` object. */
const DELETED: unique symbol = Symbol('deleted');

/** Applies a strategic merge patch to `original` under `schema`; returns the patched object. */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: SchemaNode | undefined): Plain {
  if (!isPlainObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  const out = mergeObject(isPlainObject(original) ? original : undefined, patch, schema, '');
  if (out === DELETED) throw badRequest('a strategic merge patch cannot delete the whole object ($patch: delete at the top)');
  return out;
}

function directiveOf(patch: Plain, path: string): 'replace' | 'delete' | undefined {
  const d = patch[PATCH];
  if (d === undefined) return undefined;
  if (d === 'replace' || d === 'delete') return d;
  throw badRequest(`${path || 'the patch'}: unknown $patch directive ${JSON.stringify(d)}; use "replace" or "delete"`);
}

/** A value from the patch with every directive removed (what a new item or a replacement stores). */
function stripDirectives(value: unknown, schema: SchemaNode | undefined, path: string): unknown {
  if (Array.isArray(value)) {
    const itemSchema = schema?.type === 'array' ? schema.items : undefined;
    return value.filter((x) => !(isPlainObject(x) && x[PATCH] !== undefined && Object.keys(x).length === 1)).map((x, i) => stripDirectives(x, itemSchema, `${path}[${i}]`));
  }
  if (!isPlainObject(value)) return value;
  const out = mergeObject(undefined, value, schema, path);
  return out === DELETED ? undefined : out;
}

function mergeObject(original: Plain | undefined, patch: Plain, schema: SchemaNode | undefined, path: string): Plain | typeof DELETED {
  const directive = directiveOf(patch, path);
  if (directive === 'delete') return DELETED;
  if (directive === 'replace') {
    const rest: Plain = { ...patch };
    delete rest[PATCH];
    return mergeObject(undefined, rest, schema, path);
  }
  const out: Plain = original ? { ...original } : {};
  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) throw badRequest(`${path || 'the patch'}: $retainKeys must be a list of field names`);
    for (const key of Object.keys(patch)) {
      if (!key.startsWith('$') && !retain.includes(key)) throw badRequest(`${join(path, key)}: the field is not listed in $retainKeys ${JSON.stringify(retain)}`);
    }
    for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (key.startsWith('$')) throw badRequest(`${join(path, key)}: unknown strategic merge patch directive`);
    const child = fieldSchema(schema, key).schema;
    const childPath = join(path, key);
    if (value === null) {
      delete out[key];
    } else if (isPlainObject(value) && child?.type !== 'array' && !child?.['x-svc-int-or-string']) {
      const merged = mergeObject(isPlainObject(out[key]) ? (out[key] as Plain) : undefined, value, child, childPath);
      if (merged === DELETED) delete out[key];
      else out[key] = merged;
    } else if (Array.isArray(value)) {
      out[key] = mergeList(Array.isArray(out[key]) ? (out[key] as unknown[]) : undefined, value, child, childPath);
    } else {
      out[key] = value;
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      if (!Array.isArray(value)) throw badRequest(`${join(path, key)}: must be a list of values`);
      const current = out[field];
      if (Array.isArray(current)) out[field] = current.filter((x) => !value.some((v) => sameValue(v, x)));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      const field = key.slice(SET_ELEMENT_ORDER.length);
      if (!Array.isArray(value)) throw badRequest(`${join(path, key)}: must be a list`);
      const current = out[field];
      if (Array.isArray(current)) out[field] = reorder(current, value, fieldSchema(schema, field).schema);
    }
  }
  return out;
}

function mergeList(original: unknown[] | undefined, patch: unknown[], schema: SchemaNode | undefined, path: string): unknown[] {
  const type = schema?.type === 'array' ? listTypeOf(schema) : 'atomic';
  const itemSchema = schema?.type === 'array' ? schema.items : undefined;
  if (type === 'set') {
    const out = [...(original ?? [])];
    for (const v of patch) if (!out.some((x) => sameValue(x, v))) out.push(v);
    return out;
  }
  if (type !== 'map') return stripDirectives(patch, schema, path) as unknown[];
  const key = schema?.['x-svc-list-map-keys']?.[0];
  if (key === undefined) return stripDirectives(patch, schema, path) as unknown[];
  // `{$patch: replace}` as an item: the list becomes the patch's other items.
  if (patch.some((x) => isPlainObject(x) && x[PATCH] === 'replace')) return stripDirectives(patch, schema, path) as unknown[];
  let out = [...(original ?? [])];
  patch.forEach((item, i) => {
    const itemPath = `${path}[${i}]`;
    if (!isPlainObject(item)) throw badRequest(`${itemPath}: the list merges on "${key}": every item must be an object`);
    if (!(key in item)) throw badRequest(`${itemPath}: the item does not contain the list's merge key "${key}"`);
    const at = out.findIndex((x) => isPlainObject(x) && sameValue(x[key], item[key]));
    if (directiveOf(item, itemPath) === 'delete') {
      if (at >= 0) out = out.filter((_, j) => j !== at);
      return;
    }
    const merged = mergeObject(at >= 0 ? (out[at] as Plain) : undefined, item, itemSchema, itemPath);
    if (merged === DELETED) return;
    if (at >= 0) out[at] = merged;
    else out.push(merged);
  });
  return out;
}

/** The items named by `order` first, in its order; the rest after them, as they were. */
function reorder(list: unknown[], order: unknown[], schema: SchemaNode | undefined): unknown[] {
  const key = schema?.type === 'array' && listTypeOf(schema) === 'map' ? schema['x-svc-list-map-keys']?.[0] : undefined;
  const identity = (x: unknown) => (key !== undefined && isPlainObject(x) ? x[key] : x);
  const rank = (x: unknown) => {
    const i = order.findIndex((o) => sameValue(identity(o), identity(x)));
    return i < 0 ? order.length : i;
  };
  return list.map((x, i) => ({ x, i, r: rank(x) })).sort((a, b) => a.r - b.r || a.i - b.i).map((e) => e.x);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
