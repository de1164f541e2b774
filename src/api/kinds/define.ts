/**
 * `defineKind` fills the parts of a ResourceDefinition that follow from the rest (listKind,
 * singular, verbs, the metadata selectable fields), so each kind file states only what is its own.
 * Definitions stay data plus pure functions, so a custom resource can produce the same shape later.
 */
import type { FieldError } from '../status.js';
import type { NameRule, ResourceDefinition, ScaleMapping, SchemaNode, SubresourceName, SvcObject, TableColumns, Verb } from '../types.js';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface KindSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  schema: SchemaNode;
  shortNames?: string[];
  categories?: string[];
  verbs?: Verb[];
  subresources?: SubresourceName[];
  scale?: ScaleMapping;
  /** Default 'subdomain'. */
  nameRule?: NameRule;
  /** Selectable fields beyond metadata.name / metadata.namespace. */
  fields?: (obj: SvcObject) => Record<string, string>;
  defaults?: (obj: SvcObject) => void;
  validate?: (obj: SvcObject, old?: SvcObject) => FieldError[];
  watchCacheSize?: number;
  tracksGeneration?: boolean;
  /** Table columns (src/api/kinds/columns/); absent: the default Name and Created At. */
  tableColumns?: TableColumns;
  /** A create keeps the status it is given (as established for Nodes). */
  statusSetOnCreate?: boolean;
}

export function defineKind(k: KindSpec): ResourceDefinition {
  const subresources = k.subresources ?? [];
  const extra = k.fields;
  const def: ResourceDefinition = {
    group: k.group,
    version: k.version,
    kind: k.kind,
    listKind: `${k.kind}List`,
    plural: k.plural,
    singular: k.kind.toLowerCase(),
    namespaced: k.namespaced,
    shortNames: k.shortNames ?? [],
    categories: k.categories ?? [],
    verbs: k.verbs ?? [...ALL_VERBS],
    subresources,
    nameRule: k.nameRule ?? 'subdomain',
    schema: k.schema,
    selectableFields(obj: SvcObject): Record<string, string> {
      const m = obj.metadata ?? {};
      const out: Record<string, string> = { 'metadata.name': m.name ?? '' };
      if (k.namespaced) out['metadata.namespace'] = m.namespace ?? '';
      return extra ? { ...out, ...extra(obj) } : out;
    },
    tracksGeneration: k.tracksGeneration ?? false,
    hasStatus: subresources.includes('status'),
  };
  if (k.scale) def.scale = k.scale;
  if (k.defaults) def.defaults = k.defaults;
  if (k.validate) def.validate = k.validate;
  if (k.watchCacheSize !== undefined) def.watchCacheSize = k.watchCacheSize;
  if (k.tableColumns) def.tableColumns = k.tableColumns;
  if (k.statusSetOnCreate) def.statusSetOnCreate = true;
  return def;
}

/** Reads a nested field as a string for selectable fields ('' when absent). */
export function fieldString(obj: SvcObject, ...path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur === undefined || cur === null ? '' : String(cur);
}

/** The `spec` (or another top-level field) as a mutable record, created when absent. */
export function section(obj: SvcObject, key = 'spec'): Record<string, unknown> {
  const v = obj[key];
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    const fresh: Record<string, unknown> = {};
    obj[key] = fresh;
    return fresh;
  }
  return v as Record<string, unknown>;
}

/** Reads a top-level field as a record without creating it. */
export function peek(obj: unknown, key: string): Record<string, unknown> | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
