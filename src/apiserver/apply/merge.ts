/**
 * Merges an applied configuration into the live object by the schema's merge markers: structs and
 * granular maps merge key by key, list-type maps merge item by item on their keys, sets take the
 * union, atomic lists and maps are replaced whole. Where both hold a value the applied one wins.
 */
import type { SchemaNode } from '../../api/types.js';
import { canonicalJson } from '../../api/json-walk.js';
import { fieldSchema, isPlainObject, itemElement, listTypeOf } from './object-fields.js';

/**
 * The merged value. It shares unchanged parts with `live` and `applied` (no copy per level):
 * callers that go on to change the result in place clone it once.
 */
export function mergeApplied(live: unknown, applied: unknown, schema: SchemaNode | undefined): unknown {
  if (applied === undefined) return live;
  if (live === undefined || live === null || applied === null) return applied;
  if (schema?.['x-svc-int-or-string']) return applied;
  if (Array.isArray(applied)) {
    if (!Array.isArray(live) || !schema || schema.type !== 'array') return applied;
    const type = listTypeOf(schema);
    if (type === 'set') return mergeSet(live, applied);
    if (type === 'map') return mergeMapList(live, applied, schema);
    return applied;
  }
  if (isPlainObject(applied)) {
    if (!isPlainObject(live) || schema?.['x-svc-map-type'] === 'atomic' || schema?.type === 'array') return applied;
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      if (v === undefined) continue;
      out[k] = mergeApplied(live[k], v, fieldSchema(schema, k).schema);
    }
    return out;
  }
  return applied;
}

/** Live order first, then the applied values not yet present. */
function mergeSet(live: unknown[], applied: unknown[]): unknown[] {
  const seen = new Set(live.map(canonicalJson));
  const out = [...live];
  for (const v of applied) {
    const k = canonicalJson(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

/** Items matched on the list's keys; live order first, then new applied items in their order. */
function mergeMapList(live: unknown[], applied: unknown[], schema: SchemaNode): unknown[] {
  const byKey = new Map<string, unknown>();
  applied.forEach((item, i) => byKey.set(itemElement(item, i, schema), item));
  const used = new Set<string>();
  const out = live.map((item, i) => {
    const k = itemElement(item, i, schema);
    if (!byKey.has(k) || k.startsWith('i:')) return item;
    used.add(k);
    return mergeApplied(item, byKey.get(k), schema.items);
  });
  applied.forEach((item, i) => {
    const k = itemElement(item, i, schema);
    if (!used.has(k)) out.push(item);
  });
  return out;
}

/** Drops `null` values from an applied configuration: setting a field to null means not setting it. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out;
}
