/**
 * Walks an object against its kind's schema to find its field paths, following the merge markers:
 * `x-svc-list-type` (atomic | set | map with `x-svc-list-map-keys`) and `x-svc-map-type`
 * (atomic | granular). Atomic lists and maps are one leaf. Without a schema (free-form or
 * preserve-unknown parts) every key is a struct field and every list is atomic.
 */
import type { SchemaNode } from '../../api/types.js';
import { canonicalJson } from '../../api/json-walk.js';
import { type FieldPath, FieldSet, fieldElement, indexElement, keyElement, type PathElement, valueElement } from './field-set.js';

type Plain = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is Plain => v !== null && typeof v === 'object' && !Array.isArray(v);

/** How a child of an object relates to it: a declared struct field, a map entry, or free-form. */
export interface Child {
  element: PathElement;
  value: unknown;
  schema: SchemaNode | undefined;
  /** List items and map entries are members themselves (FieldsV1 `.`); struct fields only as leaves. */
  selfMember: boolean;
}

export type ListType = 'atomic' | 'set' | 'map';

export function listTypeOf(schema: SchemaNode | undefined): ListType {
  return schema?.['x-svc-list-type'] ?? 'atomic';
}

/** Whether a value is one leaf under this schema (scalar, null, atomic list/map, empty object). */
export function isLeaf(value: unknown, schema: SchemaNode | undefined): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (schema?.['x-svc-int-or-string']) return true;
  if (Array.isArray(value)) return !schema || schema.type !== 'array' || listTypeOf(schema) === 'atomic';
  if (schema && (schema.type === 'array' || schema['x-svc-map-type'] === 'atomic')) return true;
  return Object.keys(value).length === 0;
}

/** The schema of a key inside an object: declared property, map value, or none (free-form). */
export function fieldSchema(schema: SchemaNode | undefined, key: string): { schema: SchemaNode | undefined; mapEntry: boolean } {
  if (!schema) return { schema: undefined, mapEntry: false };
  const prop = schema.properties?.[key];
  if (prop) return { schema: prop, mapEntry: false };
  const ap = schema.additionalProperties;
  if (ap && typeof ap === 'object') return { schema: ap, mapEntry: true };
  return { schema: undefined, mapEntry: false };
}

/** The path element of a list item: `k:` for a keyed map list, `v:` for a set, `i:` otherwise. */
export function itemElement(item: unknown, index: number, schema: SchemaNode | undefined): PathElement {
  const type = listTypeOf(schema);
  if (type === 'set') return valueElement(item);
  if (type === 'map' && isPlainObject(item)) {
    const keys: Plain = {};
    // A key the item leaves out takes its schema default, as the stored (defaulted) item will hold it.
    for (const k of schema?.['x-svc-list-map-keys'] ?? []) {
      const v = item[k] ?? schema?.items?.properties?.[k]?.default;
      if (v !== undefined) keys[k] = v;
    }
    if (Object.keys(keys).length > 0) return keyElement(keys);
  }
  return indexElement(index);
}

/** The children of a non-leaf value. */
export function childrenOf(value: unknown, schema: SchemaNode | undefined): Child[] {
  if (Array.isArray(value)) {
    const items = schema?.items;
    return value.map((item, i) => ({ element: itemElement(item, i, schema), value: item, schema: items, selfMember: true }));
  }
  if (!isPlainObject(value)) return [];
  const out: Child[] = [];
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (v === undefined) continue;
    const f = fieldSchema(schema, k);
    out.push({ element: fieldElement(k), value: v, schema: f.schema, selfMember: f.mapEntry });
  }
  return out;
}

/** One path of an object: leaves carry their value so two versions can be compared. */
export interface FieldEntry {
  path: FieldPath;
  leaf: boolean;
  value?: unknown;
}

/** Decides which top-level parts of an object ownership ignores (server-set metadata, status ...). */
export type IgnoreRule = (path: FieldPath) => boolean;

/** A granular map (`map[string]V`), as opposed to a struct with declared fields. */
const isGranularMap = (s: SchemaNode | undefined): boolean => !!s && !s.properties && typeof s.additionalProperties === 'object';

/**
 * Every member path of `obj` keyed by its path text; `ignore` prunes whole subtrees. With
 * `mapsAsMembers` a non-empty granular map is a member itself (how updates record a map they
 * created, `f:labels: {".": {}}`); an applied configuration only owns the map's entries.
 */
export function objectFields(obj: unknown, schema: SchemaNode | undefined, ignore: IgnoreRule = () => false, mapsAsMembers = true): Map<string, FieldEntry> {
  const out = new Map<string, FieldEntry>();
  // `key` is the path joined by newlines: JSON in k:/v: elements never holds a raw one, and field
  // names with a newline are not valid API field names.
  const walk = (value: unknown, s: SchemaNode | undefined, path: PathElement[], key: string, selfMember: boolean): void => {
    if (path.length > 0 && path.length <= 2 && ignore(path)) return;
    if (path.length > 0 && isLeaf(value, s)) {
      out.set(key, { path, leaf: true, value });
      return;
    }
    if (selfMember || (mapsAsMembers && path.length > 0 && isGranularMap(s))) out.set(key, { path, leaf: false });
    for (const c of childrenOf(value, s)) walk(c.value, c.schema, [...path, c.element], key ? `${key}\n${c.element}` : c.element, c.selfMember);
  };
  walk(obj, schema, [], '', false);
  return out;
}

export function fieldSetOf(fields: Map<string, FieldEntry>): FieldSet {
  return FieldSet.of([...fields.values()].map((e) => e.path));
}

/** Leaf values compared as JSON: scalars directly, atomic lists and maps by their canonical text. */
function sameLeaf(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

/** What changed between two versions: `changed` (added or modified) and `removed` paths. */
export function compareFields(before: Map<string, FieldEntry>, after: Map<string, FieldEntry>): { changed: FieldSet; removed: FieldSet } {
  const changed: FieldPath[] = [];
  const removed: FieldPath[] = [];
  for (const [k, a] of after) {
    const b = before.get(k);
    if (!b) changed.push(a.path);
    else if (a.leaf && b.leaf && !sameLeaf(a.value, b.value)) changed.push(a.path);
    else if (a.leaf !== b.leaf) changed.push(a.path);
  }
  for (const [k, b] of before) if (!after.has(k)) removed.push(b.path);
  return { changed: FieldSet.of(changed), removed: FieldSet.of(removed) };
}

/** An item of a list-type map that stays keeps its key fields, or it would no longer be that item. */
function withoutKeyFields(set: FieldSet, list: SchemaNode | undefined): FieldSet {
  const keys = listTypeOf(list) === 'map' ? (list?.['x-svc-list-map-keys'] ?? []) : [];
  return keys.length ? set.difference(FieldSet.of(keys.map((k) => [fieldElement(k)]))) : set;
}

/** Removes from `obj` (in place) every path member of `set`, with everything below it. */
export function removeFields(obj: unknown, schema: SchemaNode | undefined, set: FieldSet): void {
  if (set.isEmpty()) return;
  const walk = (value: unknown, s: SchemaNode | undefined, sub: FieldSet): void => {
    if (Array.isArray(value)) {
      const children = childrenOf(value, s);
      const keep: unknown[] = [];
      children.forEach((c) => {
        if (sub.has([c.element])) return;
        if (sub.covers([c.element])) walk(c.value, c.schema, withoutKeyFields(sub.childrenOf([c.element]), s));
        keep.push(c.value);
      });
      value.splice(0, value.length, ...keep);
      return;
    }
    if (!isPlainObject(value)) return;
    for (const c of childrenOf(value, s)) {
      const name = c.element.slice(2);
      if (sub.has([c.element])) delete value[name];
      else if (sub.covers([c.element])) walk(c.value, c.schema, sub.childrenOf([c.element]));
    }
  };
  walk(obj, schema, set);
}
