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
 * path. Linear in the sizes of the object and the patch: list items are found through an index on
 * their merge key (or value), never by a scan per item, so 100,000 env entries or finalizers cost
 * about what a JSON merge patch of the same body costs. The merge runs as a generator that yields
 * after each unit of work (a list item, an object key): applyStrategicMergePatch runs it through at
 * once, applyStrategicMergePatchPausing lets other requests have a turn every few milliseconds, so
 * a large patch neither holds /readyz nor keeps the request deadline from firing. Custom resources refuse this media type (415), as established: their schemas carry no
 * merge keys.
 */
import { badRequest } from '../api/status.js';
import type { SchemaNode } from '../api/types.js';
import { fieldSchema, isPlainObject, listTypeOf } from './apply/object-fields.js';
import { ValueIndex } from './value-index.js';

export const STRATEGIC_MERGE_PATCH_MEDIA_TYPE = 'application/strategic-merge-patch+json';

type Plain = Record<string, unknown>;

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

/** Marks "delete this key" on the way back up from a `$patch: delete` object. */
const DELETED: unique symbol = Symbol('deleted');

/** A step of the merge: yields (nothing) after each unit of work, returns the merged value. */
type Work<T> = Generator<void, T, void>;

/** How long the pausing merge runs before other requests get a turn, and how often it looks at the clock. */
const SLICE_MS = 20;
const UNITS_PER_CLOCK_CHECK = 256;

/** Applies a strategic merge patch to `original` under `schema`; returns the patched object. */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: SchemaNode | undefined): Plain {
  const work = mergeTop(original, patch, schema);
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/**
 * applyStrategicMergePatch for a large patch: every ~20 ms of work it awaits `pause` (which gives
 * other requests their turn, and may throw to abandon a request whose deadline has passed).
 */
export async function applyStrategicMergePatchPausing(original: unknown, patch: unknown, schema: SchemaNode | undefined, pause: () => Promise<void>): Promise<Plain> {
  const work = mergeTop(original, patch, schema);
  let since = performance.now();
  for (let units = 1; ; units++) {
    const step = work.next();
    if (step.done) return step.value;
    if (units % UNITS_PER_CLOCK_CHECK === 0 && performance.now() - since >= SLICE_MS) {
      await pause();
      since = performance.now();
    }
  }
}

function* mergeTop(original: unknown, patch: unknown, schema: SchemaNode | undefined): Work<Plain> {
  if (!isPlainObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  const out = yield* mergeObject(isPlainObject(original) ? original : undefined, patch, schema, '');
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
function* stripDirectives(value: unknown, schema: SchemaNode | undefined, path: string): Work<unknown> {
  if (Array.isArray(value)) {
    const itemSchema = schema?.type === 'array' ? schema.items : undefined;
    const out: unknown[] = [];
    for (const x of value) {
      if (isPlainObject(x) && x[PATCH] !== undefined && Object.keys(x).length === 1) continue;
      out.push(yield* stripDirectives(x, itemSchema, `${path}[${out.length}]`));
      yield;
    }
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out = yield* mergeObject(undefined, value, schema, path);
  return out === DELETED ? undefined : out;
}

function* mergeObject(original: Plain | undefined, patch: Plain, schema: SchemaNode | undefined, path: string): Work<Plain | typeof DELETED> {
  const directive = directiveOf(patch, path);
  if (directive === 'delete') return DELETED;
  if (directive === 'replace') {
    const rest: Plain = { ...patch };
    delete rest[PATCH];
    return yield* mergeObject(undefined, rest, schema, path);
  }
  const out: Plain = original ? { ...original } : {};
  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) throw badRequest(`${path || 'the patch'}: $retainKeys must be a list of field names`);
    const retained = new Set<string>(retain as string[]);
    for (const key of Object.keys(patch)) {
      if (!key.startsWith('$') && !retained.has(key)) throw badRequest(`${join(path, key)}: the field is not listed in $retainKeys ${JSON.stringify(retain)}`);
    }
    for (const key of Object.keys(out)) if (!retained.has(key)) delete out[key];
  }
  // Directives on lists run after the merge, deletions before ordering; collected on the one pass.
  let deletions: [string, unknown][] | undefined;
  let orders: [string, unknown][] | undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (key.charCodeAt(0) === 36 /* $ */) {
      if (key === PATCH || key === RETAIN_KEYS) continue;
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) (deletions ??= []).push([key, value]);
      else if (key.startsWith(SET_ELEMENT_ORDER)) (orders ??= []).push([key, value]);
      else throw badRequest(`${join(path, key)}: unknown strategic merge patch directive`);
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    if (typeof value !== 'object') {
      // A scalar replaces: no schema to look up (the common case, item by item in large lists).
      out[key] = value;
      continue;
    }
    const child = fieldSchema(schema, key).schema;
    const childPath = join(path, key);
    if (isPlainObject(value) && child?.type !== 'array' && !child?.['x-svc-int-or-string']) {
      const merged = yield* mergeObject(isPlainObject(out[key]) ? (out[key] as Plain) : undefined, value, child, childPath);
      if (merged === DELETED) delete out[key];
      else out[key] = merged;
    } else if (Array.isArray(value)) {
      out[key] = yield* mergeList(Array.isArray(out[key]) ? (out[key] as unknown[]) : undefined, value, child, childPath);
    } else {
      out[key] = value;
    }
    yield;
  }
  for (const [key, value] of deletions ?? []) {
    const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    if (!Array.isArray(value)) throw badRequest(`${join(path, key)}: must be a list of values`);
    const current = out[field];
    if (Array.isArray(current)) {
      const doomed = new ValueIndex<true>();
      for (const v of value) doomed.setIfAbsent(v, true);
      out[field] = current.filter((x) => !doomed.has(x));
      yield;
    }
  }
  for (const [key, value] of orders ?? []) {
    const field = key.slice(SET_ELEMENT_ORDER.length);
    if (!Array.isArray(value)) throw badRequest(`${join(path, key)}: must be a list`);
    const current = out[field];
    if (Array.isArray(current)) {
      out[field] = reorder(current, value, fieldSchema(schema, field).schema);
      yield;
    }
  }
  return out;
}

function* mergeList(original: unknown[] | undefined, patch: unknown[], schema: SchemaNode | undefined, path: string): Work<unknown[]> {
  const type = schema?.type === 'array' ? listTypeOf(schema) : 'atomic';
  const itemSchema = schema?.type === 'array' ? schema.items : undefined;
  if (type === 'set') {
    // The union: the original's items as they are (repeats included), then the patch's new values once each.
    const out = [...(original ?? [])];
    const present = new ValueIndex<true>();
    for (const x of out) present.setIfAbsent(x, true);
    for (const v of patch) {
      if (present.setIfAbsent(v, true)) out.push(v);
      yield;
    }
    return out;
  }
  if (type !== 'map') return (yield* stripDirectives(patch, schema, path)) as unknown[];
  const key = schema?.['x-svc-list-map-keys']?.[0];
  if (key === undefined) return (yield* stripDirectives(patch, schema, path)) as unknown[];
  // `{$patch: replace}` as an item: the list becomes the patch's other items.
  if (patch.some((x) => isPlainObject(x) && x[PATCH] === 'replace')) return (yield* stripDirectives(patch, schema, path)) as unknown[];
  // Slots of the result, a deleted one left empty until the end; for each merge-key value, the
  // slots holding it in order (a patch item merges into the first, a delete removes the first).
  const out: (unknown | typeof DELETED)[] = [...(original ?? [])];
  const slots = new ValueIndex<number[]>();
  out.forEach((x, i) => {
    if (isPlainObject(x)) slots.getOrSet(x[key], () => []).push(i);
  });
  let deleted = false;
  for (let i = 0; i < patch.length; i++) {
    const item = patch[i];
    const itemPath = `${path}[${i}]`;
    if (!isPlainObject(item)) throw badRequest(`${itemPath}: the list merges on "${key}": every item must be an object`);
    if (!(key in item)) throw badRequest(`${itemPath}: the item does not contain the list's merge key "${key}"`);
    const holding = slots.get(item[key]);
    const at = holding?.length ? holding[0]! : -1;
    if (directiveOf(item, itemPath) === 'delete') {
      if (at >= 0) {
        out[at] = DELETED;
        holding!.shift();
        deleted = true;
      }
      yield;
      continue;
    }
    const merged = yield* mergeObject(at >= 0 ? (out[at] as Plain) : undefined, item, itemSchema, itemPath);
    if (merged !== DELETED) {
      if (at >= 0) out[at] = merged;
      else {
        out.push(merged);
        slots.getOrSet(item[key], () => []).push(out.length - 1);
      }
    }
    yield;
  }
  return deleted ? out.filter((x) => x !== DELETED) : out;
}

/** The items named by `order` first, in its order; the rest after them, as they were. */
function reorder(list: unknown[], order: unknown[], schema: SchemaNode | undefined): unknown[] {
  const key = schema?.type === 'array' && listTypeOf(schema) === 'map' ? schema['x-svc-list-map-keys']?.[0] : undefined;
  const identity = (x: unknown) => (key !== undefined && isPlainObject(x) ? x[key] : x);
  const ranks = new ValueIndex<number>();
  order.forEach((o, i) => ranks.setIfAbsent(identity(o), i));
  const rank = (x: unknown) => ranks.get(identity(x)) ?? order.length;
  return list.map((x, i) => ({ x, i, r: rank(x) })).sort((a, b) => a.r - b.r || a.i - b.i).map((e) => e.x);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
