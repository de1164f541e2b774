/**
 * CustomResourceDefinition (apiextensions.svc.io/v1, cluster-scoped): declares a new resource the
 * API server serves at run time (src/api/crd-definition.ts turns one into ResourceDefinitions).
 *
 * The object is checked here as established: `metadata.name` is `<plural>.<group>`, names are DNS
 * labels, exactly one version is the storage version, and the OpenAPI schema uses known types and
 * merge markers and compiles. Conditions in `status` are written by the API server's CRD controller.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, fieldForbidden, invalidEach, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.js';
import { linearRegExpError } from '../../validation/linear-regexp.js';
import { schemaCompileError } from '../../validation/schema.js';
import { customResourceSchema } from '../../crd-definition.js';
import { asArray, asRecord, defineKind, peek, section, setDefault } from '../define.js';
import { atomicList, bool, conditions, freeform, int32, mapList, obj, objectSchema, openObj, str } from '../schema-dsl.js';

export const APIEXTENSIONS_GROUP = 'apiextensions.svc.io';
/** Held by every CRD until the API server has deleted all of its custom objects. */
export const CRD_CLEANUP_FINALIZER = `customresourcecleanup.${APIEXTENSIONS_GROUP}`;

export const PRINTER_COLUMN_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;
const SCHEMA_TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];

/** The CRD's names, as given in spec.names (and echoed in status.acceptedNames). */
export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface CrdPrinterColumn {
  name: string;
  type: (typeof PRINTER_COLUMN_TYPES)[number];
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, unknown>; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: CrdPrinterColumn[];
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
}

const names = () =>
  obj({ plural: str(), singular: str(), kind: str(), listKind: str(), shortNames: atomicList(str()), categories: atomicList(str()) });

const versionSchema = () =>
  obj({
    name: str(),
    served: bool(),
    storage: bool(),
    deprecated: bool(),
    deprecationWarning: str(),
    schema: obj({ openAPIV3Schema: freeform() }),
    subresources: obj({
      status: freeform(),
      scale: obj({ specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str() }),
    }),
    additionalPrinterColumns: atomicList(obj({ name: str(), type: str(), format: str(), description: str(), priority: int32(), jsonPath: str() })),
  });

/** `.spec.replicas` style paths (a leading dot, then dotted names). */
const SIMPLE_PATH = /^(\.[A-Za-z0-9_-]+)+$/;

function validateNames(n: Record<string, unknown>, p: string, errs: FieldError[]): void {
  for (const key of ['plural', 'singular'] as const) {
    const v = n[key];
    if (typeof v !== 'string' || v === '') {
      if (key === 'plural') errs.push(required(`${p}.plural`));
      continue;
    }
    errs.push(...invalidEach(`${p}.${key}`, v, isDNS1123Label(v)));
  }
  const kind = n['kind'];
  if (typeof kind !== 'string' || kind === '') errs.push(required(`${p}.kind`));
  else if (isDNS1123Label(kind.toLowerCase()).length) {
    errs.push(invalidValue(`${p}.kind`, kind, "may have mixed case, but should otherwise match: ^[a-z]([-a-z0-9]*[a-z0-9])?$"));
  }
  const listKind = n['listKind'];
  if (typeof listKind === 'string' && listKind !== '') {
    if (listKind === kind) errs.push(invalidValue(`${p}.listKind`, listKind, 'kind and listKind may not be the same'));
    else if (isDNS1123Label(listKind.toLowerCase()).length) {
      errs.push(invalidValue(`${p}.listKind`, listKind, "may have mixed case, but should otherwise match: ^[a-z]([-a-z0-9]*[a-z0-9])?$"));
    }
  }
  for (const key of ['shortNames', 'categories'] as const) {
    asArray(n[key]).forEach((v, i) => {
      if (typeof v !== 'string') errs.push(invalidValue(`${p}.${key}[${i}]`, v, 'must be a string'));
      else errs.push(...invalidEach(`${p}.${key}[${i}]`, v, isDNS1123Label(v)));
    });
  }
}

/** Types, list/map markers and shapes of an openAPIV3Schema node, recursively. */
function validateSchemaNode(node: unknown, p: string, errs: FieldError[]): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    errs.push(invalidValue(p, node, 'must be an object (a JSON schema)'));
    return;
  }
  const n = node as Record<string, unknown>;
  if (n['type'] !== undefined && !SCHEMA_TYPES.includes(n['type'] as string)) errs.push(notSupported(`${p}.type`, n['type'], SCHEMA_TYPES));
  const listType = n['x-svc-list-type'];
  if (listType !== undefined) {
    if (!['atomic', 'set', 'map'].includes(listType as string)) errs.push(notSupported(`${p}.x-svc-list-type`, listType, ['atomic', 'set', 'map']));
    else if (n['type'] !== 'array') errs.push(invalidValue(`${p}.type`, n['type'] ?? '', 'must be array if x-svc-list-type is specified'));
  }
  const keys = n['x-svc-list-map-keys'];
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) errs.push(required(`${p}.x-svc-list-map-keys`, 'must not be empty if x-svc-list-type is map'));
    const items = asRecord(n['items']);
    if (items['type'] !== 'object') errs.push(invalidValue(`${p}.items.type`, items['type'] ?? '', 'must be object if x-svc-list-type is map'));
  } else if (keys !== undefined) {
    errs.push(fieldForbidden(`${p}.x-svc-list-map-keys`, 'may only be set if x-svc-list-type is map'));
  }
  const pattern = n['pattern'];
  if (pattern !== undefined) {
    // Patterns run on RE2 (linear time): one it cannot compile is refused here, with its reason.
    const problem = typeof pattern === 'string' ? linearRegExpError(pattern) : 'must be a string';
    if (problem) errs.push(invalidValue(`${p}.pattern`, pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  const mapType = n['x-svc-map-type'];
  if (mapType !== undefined && !['atomic', 'granular'].includes(mapType as string)) {
    errs.push(notSupported(`${p}.x-svc-map-type`, mapType, ['atomic', 'granular']));
  }
  const props = n['properties'];
  if (props !== undefined) {
    if (props === null || typeof props !== 'object' || Array.isArray(props)) errs.push(invalidValue(`${p}.properties`, props, 'must be an object'));
    else for (const [k, v] of Object.entries(props)) validateSchemaNode(v, `${p}.properties[${k}]`, errs);
  }
  if (n['items'] !== undefined) validateSchemaNode(n['items'], `${p}.items`, errs);
  for (const k of ['oneOf', 'anyOf', 'allOf']) {
    const branches = n[k];
    if (branches === undefined) continue;
    if (!Array.isArray(branches)) errs.push(invalidValue(`${p}.${k}`, branches, 'must be a list of schemas'));
    else branches.forEach((b, i) => validateSchemaNode(b, `${p}.${k}[${i}]`, errs));
  }
  if (n['not'] !== undefined) validateSchemaNode(n['not'], `${p}.not`, errs);
  const ap = n['additionalProperties'];
  if (ap !== undefined && typeof ap !== 'boolean') validateSchemaNode(ap, `${p}.additionalProperties`, errs);
  if (n['required'] !== undefined && (!Array.isArray(n['required']) || n['required'].some((r) => typeof r !== 'string'))) {
    errs.push(invalidValue(`${p}.required`, n['required'], 'must be a list of strings'));
  }
}

function validateVersion(v: Record<string, unknown>, p: string, errs: FieldError[]): void {
  const name = v['name'];
  if (typeof name !== 'string' || name === '') errs.push(required(`${p}.name`));
  else errs.push(...invalidEach(`${p}.name`, name, isDNS1123Label(name)));
  const schema = peek(v, 'schema');
  if (schema?.['openAPIV3Schema'] !== undefined) {
    const root = schema['openAPIV3Schema'];
    const rp = `${p}.schema.openAPIV3Schema`;
    const before = errs.length;
    validateSchemaNode(root, rp, errs);
    if (asRecord(root)['type'] !== 'object') errs.push(invalidValue(`${rp}.type`, asRecord(root)['type'] ?? '', 'must be object at the root'));
    // Only a schema that passed the checks above is compiled (ajv's own messages are less clear).
    const compileError = errs.length === before ? schemaCompileError(customResourceSchema(root)) : undefined;
    if (compileError) errs.push(invalidValue(rp, '', `the schema cannot be used: ${compileError}`));
  }
  const scale = peek(peek(v, 'subresources'), 'scale');
  if (scale) {
    const sp = `${p}.subresources.scale`;
    const spec = scale['specReplicasPath'];
    const status = scale['statusReplicasPath'];
    const selector = scale['labelSelectorPath'];
    if (typeof spec !== 'string' || spec === '') errs.push(required(`${sp}.specReplicasPath`));
    else if (!SIMPLE_PATH.test(spec) || !spec.startsWith('.spec.')) errs.push(invalidValue(`${sp}.specReplicasPath`, spec, 'should be a json path under .spec'));
    if (typeof status !== 'string' || status === '') errs.push(required(`${sp}.statusReplicasPath`));
    else if (!SIMPLE_PATH.test(status) || !status.startsWith('.status.')) errs.push(invalidValue(`${sp}.statusReplicasPath`, status, 'should be a json path under .status'));
    if (selector !== undefined && selector !== '' && (typeof selector !== 'string' || !SIMPLE_PATH.test(selector) || !/^\.(spec|status)\./.test(selector))) {
      errs.push(invalidValue(`${sp}.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
    }
  }
  const seen = new Set<string>();
  asArray(v['additionalPrinterColumns']).forEach((raw, i) => {
    const c = asRecord(raw);
    const cp = `${p}.additionalPrinterColumns[${i}]`;
    if (typeof c['name'] !== 'string' || c['name'] === '') errs.push(required(`${cp}.name`));
    else if (seen.has(c['name'])) errs.push(duplicate(`${cp}.name`, c['name']));
    else seen.add(c['name']);
    if (!PRINTER_COLUMN_TYPES.includes(c['type'] as CrdPrinterColumn['type'])) errs.push(notSupported(`${cp}.type`, c['type'] ?? '', PRINTER_COLUMN_TYPES));
    if (typeof c['jsonPath'] !== 'string' || c['jsonPath'] === '') errs.push(required(`${cp}.jsonPath`));
    else if (!c['jsonPath'].startsWith('.')) errs.push(invalidValue(`${cp}.jsonPath`, c['jsonPath'], 'must be a simple json path starting with .'));
    if (c['priority'] !== undefined && (typeof c['priority'] !== 'number' || c['priority'] < 0)) {
      errs.push(invalidValue(`${cp}.priority`, c['priority'], 'must be greater than or equal to 0'));
    }
  });
}

export function validateCustomResourceDefinition(o: SvcObject, old?: SvcObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(o['spec']);
  const group = spec['group'];
  if (typeof group !== 'string' || group === '') errs.push(required('spec.group'));
  else {
    errs.push(...invalidEach('spec.group', group, isDNS1123Subdomain(group)));
    if (!group.includes('.')) errs.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  }
  const n = asRecord(spec['names']);
  validateNames(n, 'spec.names', errs);
  if (typeof n['plural'] === 'string' && typeof group === 'string' && o.metadata.name !== `${n['plural']}.${group}`) {
    errs.push(invalidValue('metadata.name', o.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  const scope = spec['scope'];
  if (scope === undefined || scope === '') errs.push(required('spec.scope'));
  else if (scope !== 'Namespaced' && scope !== 'Cluster') errs.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  const versions = asArray(spec['versions']);
  if (versions.length === 0) errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((raw, i) => {
    const v = asRecord(raw);
    validateVersion(v, `spec.versions[${i}]`, errs);
    if (typeof v['name'] === 'string') {
      if (seen.has(v['name'])) errs.push(duplicate(`spec.versions[${i}].name`, v['name']));
      seen.add(v['name']);
    }
    if (v['storage'] === true) storage++;
  });
  if (versions.length > 0 && storage !== 1) {
    errs.push(invalidValue('spec.versions', versions.map((v) => asRecord(v)['name']), 'must have exactly one version marked as storage version'));
  }
  if (old) {
    const oldScope = asRecord(old['spec'])['scope'];
    if (oldScope !== undefined && scope !== oldScope) errs.push(invalidValue('spec.scope', scope ?? '', 'field is immutable'));
  }
  return errs;
}

function defaultCustomResourceDefinition(o: SvcObject): void {
  const spec = section(o);
  const n = asRecord(spec['names']);
  if (typeof n['kind'] === 'string' && n['kind'] !== '') {
    setDefault(n, 'singular', n['kind'].toLowerCase());
    setDefault(n, 'listKind', `${n['kind']}List`);
  }
  if (spec['names'] !== undefined) spec['names'] = n;
  const conversion = asRecord(spec['conversion']);
  setDefault(conversion, 'strategy', 'None');
  spec['conversion'] = conversion;
  for (const raw of asArray(spec['versions'])) {
    const v = asRecord(raw);
    setDefault(v, 'served', false);
    setDefault(v, 'storage', false);
  }
  // The finalizer lets the API server remove every custom object before the CRD itself goes.
  const m = o.metadata;
  if (!m.deletionTimestamp && !(m.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) m.finalizers = [...(m.finalizers ?? []), CRD_CLEANUP_FINALIZER];
}

export const customResourceDefinitionDefinition = defineKind({
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: ['status'],
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      group: str(),
      names: names(),
      scope: str(),
      versions: mapList(['name'], versionSchema()),
      conversion: openObj({ strategy: str() }),
      preserveUnknownFields: bool(),
    }),
    status: obj({ conditions: conditions(), acceptedNames: names(), storedVersions: atomicList(str()) }),
  }),
  defaults: defaultCustomResourceDefinition,
  validate: validateCustomResourceDefinition,
  watchCacheSize: 100,
});
