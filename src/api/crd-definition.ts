/**
 * Turns a CustomResourceDefinition into the same `ResourceDefinition` shape the built-in kinds have
 * (one per served version), so discovery, routing, validation, apply and storage treat custom
 * resources like any kind.
 *
 * Without an OpenAPI schema the object is unstructured: every key is a struct field, every list
 * atomic, unknown fields kept. With one, the schema (and its `x-svc-*` markers) drives validation,
 * pruning of unknown fields, defaulting and apply.
 */
import type { CrdPrinterColumn, CrdSpec, CrdVersion } from './kinds/apiextensions/customresourcedefinition.js';
import { column, NAME_COLUMN, since } from './kinds/columns/cells.js';
import { ALL_VERBS } from './kinds/define.js';
import { objectMeta, str } from './kinds/schema-dsl.js';
import type { ResourceDefinition, SchemaNode, SubresourceName, SvcObject, TableCell, TableColumns } from './types.js';

const NODE_NUMBERS = ['minimum', 'maximum', 'maxLength', 'minLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'multipleOf'] as const;
const JUNCTORS = ['oneOf', 'anyOf', 'allOf'] as const;
const NODE_FLAGS = ['exclusiveMinimum', 'exclusiveMaximum', 'uniqueItems', 'x-svc-int-or-string', 'x-svc-preserve-unknown-fields'] as const;

/**
 * A user's openAPIV3Schema node -> SchemaNode. Keeps what validation, pruning, defaulting and apply
 * read; an object with neither properties nor additionalProperties nor preserve-unknown-fields is
 * structural and empty, so its unknown fields are pruned (as established).
 */
export function schemaNodeFrom(raw: unknown): SchemaNode {
  const n = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out: SchemaNode = {};
  if (typeof n['type'] === 'string') out.type = n['type'] as SchemaNode['type'];
  if (typeof n['format'] === 'string') out.format = n['format'];
  if (typeof n['description'] === 'string') out.description = n['description'];
  if (typeof n['pattern'] === 'string') out.pattern = n['pattern'];
  for (const k of NODE_NUMBERS) if (typeof n[k] === 'number') out[k] = n[k] as number;
  for (const k of NODE_FLAGS) if (n[k] === true) out[k] = true;
  out.nullable = n['nullable'] === true;
  if (Array.isArray(n['enum'])) out.enum = [...n['enum']];
  if (Array.isArray(n['required'])) out.required = n['required'].filter((r): r is string => typeof r === 'string');
  if (n['default'] !== undefined) out.default = structuredClone(n['default']);
  const listType = n['x-svc-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') out['x-svc-list-type'] = listType;
  if (Array.isArray(n['x-svc-list-map-keys'])) out['x-svc-list-map-keys'] = n['x-svc-list-map-keys'].map(String);
  const mapType = n['x-svc-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') out['x-svc-map-type'] = mapType;
  if (n['items'] !== undefined) out.items = schemaNodeFrom(n['items']);
  const props = n['properties'];
  if (props !== null && typeof props === 'object' && !Array.isArray(props)) {
    out.properties = {};
    for (const [k, v] of Object.entries(props)) out.properties[k] = schemaNodeFrom(v);
  }
  for (const k of JUNCTORS) if (Array.isArray(n[k])) out[k] = (n[k] as unknown[]).map(schemaNodeFrom);
  if (n['not'] !== null && typeof n['not'] === 'object') out.not = schemaNodeFrom(n['not']);
  const ap = n['additionalProperties'];
  if (typeof ap === 'boolean') out.additionalProperties = ap;
  else if (ap !== null && typeof ap === 'object') out.additionalProperties = schemaNodeFrom(ap);
  if (out.type === 'object' && !out.properties && out.additionalProperties === undefined && !out['x-svc-preserve-unknown-fields']) out.properties = {};
  return out;
}

/** The schema of a whole custom object: type meta and metadata are the server's, the rest the CRD's. */
export function customResourceSchema(openAPIV3Schema: unknown): SchemaNode {
  const base: Record<string, SchemaNode> = { apiVersion: str(), kind: str(), metadata: objectMeta() };
  if (openAPIV3Schema === undefined || openAPIV3Schema === null) {
    return { type: 'object', properties: base, 'x-svc-preserve-unknown-fields': true };
  }
  const root = schemaNodeFrom(openAPIV3Schema);
  const { metadata: _userMetadata, ...own } = root.properties ?? {};
  const out: SchemaNode = { ...root, type: 'object', properties: { ...own, ...base } };
  if (out.required) out.required = out.required.filter((r) => r !== 'metadata' && r !== 'apiVersion' && r !== 'kind');
  return out;
}

/**
 * Fills absent fields that declare a `default`, walking objects and list items that exist. A null
 * in a field that is not `nullable` counts as absent when the field has a default (as established).
 */
export function applySchemaDefaults(value: unknown, schema: SchemaNode | undefined): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) applySchemaDefaults(item, schema.items);
    return;
  }
  const rec = value as Record<string, unknown>;
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    const absent = rec[k] === undefined || (rec[k] === null && prop.nullable === false);
    if (absent && prop.default !== undefined) rec[k] = structuredClone(prop.default);
    applySchemaDefaults(rec[k], prop);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const [k, v] of Object.entries(rec)) if (!schema.properties?.[k]) applySchemaDefaults(v, schema.additionalProperties);
  }
}

/** `.spec.x`, `.items[0].y`, `.metadata.labels['app.io/x']` -> path parts; undefined when not simple. */
export function parseSimpleJsonPath(path: string): (string | number)[] | undefined {
  const p = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  const parts: (string | number)[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let i = 0;
  while (i < p.length) {
    re.lastIndex = i;
    const m = re.exec(p);
    if (!m) return undefined;
    parts.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4])!);
    i = re.lastIndex;
  }
  return parts;
}

function readPath(obj: unknown, parts: (string | number)[]): unknown {
  let cur = obj;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[part];
  }
  return cur;
}

/** A printer column's cell, typed as the column says (null when absent or of another type). */
function cellOf(col: CrdPrinterColumn, parts: (string | number)[] | undefined, obj: SvcObject, now: number): TableCell {
  const v = parts ? readPath(obj, parts) : undefined;
  if (v === undefined || v === null) return null;
  switch (col.type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? since(v, now) : null;
    default:
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

/** Name, then the version's additionalPrinterColumns; undefined (the default columns) when none. */
export function printerColumns(cols: readonly CrdPrinterColumn[] | undefined): TableColumns | undefined {
  if (!cols?.length) return undefined;
  const paths = cols.map((c) => parseSimpleJsonPath(c.jsonPath));
  return {
    columns: [
      NAME_COLUMN,
      ...cols.map((c) =>
        column(c.name, c.type, c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, {
          priority: c.priority ?? 0,
          format: c.format ?? '',
        }),
      ),
    ],
    cells: (obj, now) => [obj.metadata.name ?? '', ...cols.map((c, i) => cellOf(c, paths[i], obj, now))],
  };
}

const dropDot = (p: string): string => (p.startsWith('.') ? p.slice(1) : p);

/** One served version of a CRD as a ResourceDefinition. */
export function customResourceDefinitionFor(spec: CrdSpec, v: CrdVersion): ResourceDefinition {
  const namespaced = spec.scope === 'Namespaced';
  const subresources: SubresourceName[] = [];
  if (v.subresources?.status) subresources.push('status');
  const scale = v.subresources?.scale;
  if (scale) subresources.push('scale');
  const schema = customResourceSchema(v.schema?.openAPIV3Schema);
  const hasSchema = v.schema?.openAPIV3Schema !== undefined;
  const def: ResourceDefinition = {
    group: spec.group,
    version: v.name,
    kind: spec.names.kind,
    listKind: spec.names.listKind || `${spec.names.kind}List`,
    plural: spec.names.plural,
    singular: spec.names.singular || spec.names.kind.toLowerCase(),
    namespaced,
    shortNames: [...(spec.names.shortNames ?? [])],
    categories: [...(spec.names.categories ?? [])],
    verbs: [...ALL_VERBS],
    subresources,
    nameRule: 'subdomain',
    schema,
    selectableFields(obj: SvcObject): Record<string, string> {
      const out: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
      if (namespaced) out['metadata.namespace'] = obj.metadata.namespace ?? '';
      return out;
    },
    tracksGeneration: true,
    hasStatus: subresources.includes('status'),
  };
  if (hasSchema) def.defaults = (obj) => applySchemaDefaults(obj, schema);
  if (scale) {
    def.scale = { specReplicasPath: dropDot(scale.specReplicasPath), statusReplicasPath: dropDot(scale.statusReplicasPath) };
    if (scale.labelSelectorPath) def.scale.labelSelectorPath = dropDot(scale.labelSelectorPath);
  }
  const table = printerColumns(v.additionalPrinterColumns);
  if (table) def.tableColumns = table;
  return def;
}

/** The CRD's spec with the defaults the CRD kind fills (names.singular, listKind). */
export function crdSpecOf(crd: SvcObject): CrdSpec {
  return crd['spec'] as CrdSpec;
}

/** Every served version of a CRD, as ResourceDefinitions. */
export function customResourceDefinitions(crd: SvcObject): ResourceDefinition[] {
  const spec = crdSpecOf(crd);
  return (spec.versions ?? []).filter((v) => v.served).map((v) => customResourceDefinitionFor(spec, v));
}

/** The storage version's name. */
export function storageVersionOf(crd: SvcObject): string | undefined {
  return (crdSpecOf(crd).versions ?? []).find((v) => v.storage)?.name;
}
