/**
 * OpenAPI documents generated from the one schema per kind (built-in and custom resources):
 *
 *   /openapi/v3                      index: one entry per group version, in both spellings
 *   /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>   OpenAPI 3.0 (JSON)
 *   /openapi/v2                      Swagger 2.0 of every group version: JSON, or Protobuf when asked
 *                                    (./openapi-v2-protobuf.ts; kubectl 1.27 and 1.28 read it)
 *
 * Clients read them for three things, and each is here: `kubectl apply` finds a kind's schema by
 * its `x-kubernetes-group-version-kind` and computes strategic merge patches from
 * `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` (derived from our list markers,
 * as ./strategic-merge-patch.ts applies them); kubectl checks that PATCH operations take
 * `fieldValidation` before asking the server to validate; `kubectl explain` walks `properties`.
 * Our `x-svc-*` markers are written as the established `x-kubernetes-*` extensions.
 *
 * Contract: documents are rebuilt after any change to the registry (custom resources); a group
 * version's document names groups in the spelling its path used.
 */
import { createHash } from 'node:crypto';
import { canonicalGroup, establishedGroup } from '../api/established-spelling.js';
import type { ResourceRegistry } from '../api/index.js';
import { isBuiltinResource } from '../api/registry.js';
import type { ResourceDefinition, SchemaNode } from '../api/types.js';
import { APPLY_PATCH_MEDIA_TYPE } from './apply/apply.js';
import { STRATEGIC_MERGE_PATCH_MEDIA_TYPE } from './strategic-merge-patch.js';
import { encodeSwaggerProtobuf, OPENAPI_V2_PROTOBUF_TYPES } from './openapi-v2-protobuf.js';
import { parseAccept } from '../codec/negotiation.js';

type Json = Record<string, unknown>;

const PATCH_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
const STATUS_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const SCALE_SCHEMA = 'io.k8s.api.autoscaling.v1.Scale';

/** A served document and its Content-Type. */
export interface OpenApiDocument {
  body: Buffer;
  contentType: string;
}

interface GroupVersion {
  /** As the path spells it. */
  group: string;
  version: string;
  defs: ResourceDefinition[];
}

export class OpenApiDocuments {
  private readonly cache = new Map<string, Buffer>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly serverVersion: string,
  ) {
    registry.onChange(() => this.cache.clear());
  }

  /** The document for an /openapi path, or undefined when the path is not one. */
  serve(path: string, accept?: string): OpenApiDocument | undefined {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    if (p === '/openapi/v2') {
      if (!v2ProtobufType(accept)) return this.json(p, () => this.swagger());
      let body = this.cache.get(`${p} protobuf`);
      if (!body) this.cache.set(`${p} protobuf`, (body = encodeSwaggerProtobuf(JSON.parse(this.json(p, () => this.swagger()).body.toString()) as Record<string, unknown>)));
      // The established server answers this Accept with an octet stream (clients' media type parsers refuse the '@').
      return { body, contentType: 'application/octet-stream' };
    }
    if (p === '/openapi/v3') return this.json(p, () => this.index());
    const m = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(p);
    if (!m) return undefined;
    const gv = m[1] ? this.groupVersion('', 'v1') : this.groupVersion(m[2]!, m[3]!);
    if (!gv) return undefined;
    return this.json(p, () => this.v3(gv));
  }

  private json(key: string, build: () => object): OpenApiDocument {
    let body = this.cache.get(key);
    if (!body) this.cache.set(key, (body = Buffer.from(JSON.stringify(build()))));
    return { body, contentType: 'application/json' };
  }

  /** Every group version served, in our spelling and (where it differs) the established one. */
  private groupVersions(): GroupVersion[] {
    const out: GroupVersion[] = [];
    for (const { group, version } of this.registry.enabledGroupVersions()) {
      const defs = this.registry.resourcesFor(group, version);
      if (!defs.length) continue;
      out.push({ group, version, defs });
      const alias = establishedGroup(group);
      if (alias !== group) out.push({ group: alias, version, defs });
    }
    return out;
  }

  private groupVersion(spelled: string, version: string): GroupVersion | undefined {
    const defs = this.registry.resourcesFor(canonicalGroup(spelled), version);
    return defs.length ? { group: spelled, version, defs } : undefined;
  }

  private index(): object {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const gv of this.groupVersions()) {
      const rel = gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
      const hash = createHash('sha512').update(JSON.stringify(this.v3(gv))).digest('hex').slice(0, 128).toUpperCase();
      paths[rel] = { serverRelativeURL: `/openapi/v3/${rel}?hash=${hash}` };
    }
    return { paths };
  }

  private v3(gv: GroupVersion): object {
    const schemas: Json = commonSchemas();
    const paths: Json = {};
    for (const def of gv.defs) {
      const name = schemaName(gv.group, gv.version, def.kind);
      schemas[name] = kindSchema(def, gv, isBuiltinResource(def));
      schemas[`${name}List`] = listSchema(def, gv, `#/components/schemas/${name}`);
      Object.assign(paths, resourcePaths(def, gv, (ref) => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } }), 'v3'));
    }
    return { openapi: '3.0.0', info: { title: 'svc', version: this.serverVersion }, paths, components: { schemas } };
  }

  private swagger(): object {
    const definitions: Json = commonSchemas();
    const paths: Json = {};
    for (const gv of this.groupVersions()) {
      for (const def of gv.defs) {
        const name = schemaName(gv.group, gv.version, def.kind);
        definitions[name] = kindSchema(def, gv, isBuiltinResource(def));
        definitions[`${name}List`] = listSchema(def, gv, `#/definitions/${name}`);
        Object.assign(paths, resourcePaths(def, gv, (ref) => ({ schema: { $ref: `#/definitions/${ref}` } }), 'v2'));
      }
    }
    return { swagger: '2.0', info: { title: 'svc', version: this.serverVersion }, paths, definitions };
  }
}

/** The Protobuf media type an Accept header asks for first (before any JSON), if any. */
function v2ProtobufType(accept: string | undefined): string | undefined {
  for (const range of parseAccept(accept)) {
    if (OPENAPI_V2_PROTOBUF_TYPES.includes(range.type)) return range.type;
    if (range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*') return undefined;
  }
  return undefined;
}

/** `io.k8s.api.<group>.<version>.<Kind>` for built-in groups, the reversed group for the rest (established naming). */
function schemaName(group: string, version: string, kind: string): string {
  const g = group === '' ? 'core' : group.replace(/\.(k8s|svc)\.io$/, '').replace(/\.authorization$/, '');
  const prefix = group === '' || /\.(k8s|svc)\.io$/.test(group) || !group.includes('.') ? `io.k8s.api.${g}` : group.split('.').reverse().join('.');
  return `${prefix}.${version}.${kind}`;
}

function gvk(gv: GroupVersion, kind: string) {
  return { group: gv.group, version: gv.version, kind };
}

/** The kind's schema with the established extension names, the patch strategies and its group-version-kind. */
function kindSchema(def: ResourceDefinition, gv: GroupVersion, builtin: boolean): Json {
  const out = convert(def.schema, builtin);
  out['x-kubernetes-group-version-kind'] = [gvk(gv, def.kind)];
  return out;
}

function listSchema(def: ResourceDefinition, gv: GroupVersion, itemRef: string): Json {
  return {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      items: { type: 'array', items: { $ref: itemRef } },
    },
    'x-kubernetes-group-version-kind': [gvk(gv, def.listKind)],
  };
}

const EXTENSIONS: Record<string, string> = {
  'x-svc-int-or-string': 'x-kubernetes-int-or-string',
  'x-svc-preserve-unknown-fields': 'x-kubernetes-preserve-unknown-fields',
  'x-svc-list-type': 'x-kubernetes-list-type',
  'x-svc-list-map-keys': 'x-kubernetes-list-map-keys',
  'x-svc-map-type': 'x-kubernetes-map-type',
};

/**
 * One schema node in the established form. Built-in kinds' keyed lists and sets also carry the
 * patch strategy strategic merge patch follows; custom resources' do not (they take none).
 */
function convert(node: SchemaNode, builtin: boolean): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, SchemaNode>).map(([name, s]) => [name, convert(s, builtin)]));
    } else if ((k === 'items' || k === 'not') && v && typeof v === 'object') {
      out[k] = convert(v as SchemaNode, builtin);
    } else if (k === 'additionalProperties' && v && typeof v === 'object') {
      out[k] = convert(v as SchemaNode, builtin);
    } else if ((k === 'oneOf' || k === 'anyOf' || k === 'allOf') && Array.isArray(v)) {
      out[k] = (v as SchemaNode[]).map((s) => convert(s, builtin));
    } else if (k === 'x-svc-int-or-string' && v) {
      out['x-kubernetes-int-or-string'] = true;
      delete out['type'];
    } else {
      out[EXTENSIONS[k] ?? k] = v;
    }
  }
  if (builtin && node.type === 'array') {
    const type = node['x-svc-list-type'];
    const key = node['x-svc-list-map-keys']?.[0];
    if (type === 'map' && key !== undefined) {
      out['x-kubernetes-patch-strategy'] = 'merge';
      out['x-kubernetes-patch-merge-key'] = key;
    } else if (type === 'set') {
      out['x-kubernetes-patch-strategy'] = 'merge';
    }
  }
  return out;
}

function commonSchemas(): Json {
  return {
    [PATCH_SCHEMA]: { type: 'object', description: 'A patch: its media type says how it applies (JSON patch, merge patch, strategic merge patch, apply).' },
    [STATUS_SCHEMA]: {
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, status: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' }, details: { type: 'object' }, code: { type: 'integer', format: 'int32' } },
      'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
    },
    [DELETE_OPTIONS_SCHEMA]: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        gracePeriodSeconds: { type: 'integer', format: 'int64' },
        propagationPolicy: { type: 'string' },
        orphanDependents: { type: 'boolean' },
        dryRun: { type: 'array', items: { type: 'string' } },
        preconditions: { type: 'object', properties: { uid: { type: 'string' }, resourceVersion: { type: 'string' } } },
      },
    },
    [SCALE_SCHEMA]: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
        status: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } } },
      },
      'x-kubernetes-group-version-kind': [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }],
    },
  };
}

type Version = 'v2' | 'v3';

function param(name: string, location: 'query' | 'path', type: string, version: Version, description: string): Json {
  const base: Json = { name, in: location, description, ...(location === 'path' ? { required: true } : {}) };
  return version === 'v3' ? { ...base, schema: { type } } : { ...base, type };
}

const WRITE_PARAMS = (v: Version) => [
  param('dryRun', 'query', 'string', v, 'When present (All), the request is checked and answered but nothing is stored.'),
  param('fieldManager', 'query', 'string', v, 'The name of the actor making the change (server-side apply ownership).'),
  param('fieldValidation', 'query', 'string', v, 'Ignore, Warn or Strict: what to do with unknown or duplicate fields in the body.'),
];

/** Paths of one resource: collection, item, and subresources, with their operations. */
function resourcePaths(def: ResourceDefinition, gv: GroupVersion, body: (ref: string) => Json, v: Version): Json {
  const root = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const name = schemaName(gv.group, gv.version, def.kind);
  const kindId = `${pascal(gv.group === '' ? 'core' : gv.group.split('.')[0]!)}${pascal(gv.version)}${def.namespaced ? 'Namespaced' : ''}${def.kind}`;
  const scopeParams = def.namespaced ? [param('namespace', 'path', 'string', v, 'object name and auth scope, such as for teams and projects')] : [];
  const collection = def.namespaced ? `${root}/namespaces/{namespace}/${def.plural}` : `${root}/${def.plural}`;
  const item = `${collection}/{name}`;
  const ext = (action: string, kind = def.kind, group = gv.group, version = gv.version) => ({
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group, version, kind },
  });
  const ok = (ref: string, codes: string[] = ['200']) => ({ responses: Object.fromEntries(codes.map((c) => [c, { description: c === '201' ? 'Created' : 'OK', ...body(ref) }])) });
  const requestBody = (ref: string, types: string[]) =>
    v === 'v3'
      ? { requestBody: { required: true, content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: `#/components/schemas/${ref}` } }])) } }
      : { consumes: types, parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${ref}` } }] };
  const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', ...(isBuiltinResource(def) ? [STRATEGIC_MERGE_PATCH_MEDIA_TYPE] : []), APPLY_PATCH_MEDIA_TYPE];
  const has = (verb: string) => (def.verbs as string[]).includes(verb);
  const withParams = (op: Json, extra: Json[]) => {
    const fromBody = (op['parameters'] as Json[] | undefined) ?? [];
    return { ...op, parameters: [...fromBody, ...extra] };
  };
  const paths: Json = {};
  const coll: Json = { parameters: scopeParams };
  if (has('list')) coll['get'] = { operationId: `list${kindId}`, ...ok(`${name}List`), ...ext('list') };
  if (has('create')) coll['post'] = withParams({ operationId: `create${kindId}`, ...requestBody(name, ['application/json', 'application/yaml']), ...ok(name, ['200', '201']), ...ext('post') }, WRITE_PARAMS(v));
  if (has('deletecollection')) coll['delete'] = { operationId: `deletecollection${kindId}`, ...ok(STATUS_SCHEMA), ...ext('deletecollection') };
  paths[collection] = coll;
  const one: Json = { parameters: [param('name', 'path', 'string', v, `name of the ${def.kind}`), ...scopeParams] };
  if (has('get')) one['get'] = { operationId: `read${kindId}`, ...ok(name), ...ext('get') };
  if (has('update')) one['put'] = withParams({ operationId: `replace${kindId}`, ...requestBody(name, ['application/json', 'application/yaml']), ...ok(name, ['200', '201']), ...ext('put') }, WRITE_PARAMS(v));
  if (has('patch')) one['patch'] = withParams({ operationId: `patch${kindId}`, ...requestBody(PATCH_SCHEMA, patchTypes), ...ok(name, ['200', '201']), ...ext('patch') }, [...WRITE_PARAMS(v), param('force', 'query', 'boolean', v, 'Apply: take over conflicting fields.')]);
  if (has('delete')) one['delete'] = withParams({ operationId: `delete${kindId}`, ...(v === 'v3' ? { requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${DELETE_OPTIONS_SCHEMA}` } } } } } : {}), ...ok(STATUS_SCHEMA, ['200', '202']), ...ext('delete') }, [param('dryRun', 'query', 'string', v, 'When present (All), nothing is deleted.'), param('gracePeriodSeconds', 'query', 'integer', v, 'Seconds before the object is deleted.'), param('propagationPolicy', 'query', 'string', v, 'Orphan, Background or Foreground.')]);
  paths[item] = one;
  for (const sub of def.subresources) {
    if (sub !== 'status' && sub !== 'approval' && sub !== 'scale') continue;
    const ref = sub === 'scale' ? SCALE_SCHEMA : name;
    const subExt = sub === 'scale' ? (action: string) => ext(action, 'Scale', 'autoscaling', 'v1') : (action: string) => ext(action);
    paths[`${item}/${sub}`] = {
      parameters: [param('name', 'path', 'string', v, `name of the ${sub === 'scale' ? 'Scale' : def.kind}`), ...scopeParams],
      get: { operationId: `read${kindId}${pascal(sub)}`, ...ok(ref), ...subExt('get') },
      put: withParams({ operationId: `replace${kindId}${pascal(sub)}`, ...requestBody(ref, ['application/json']), ...ok(ref, ['200', '201']), ...subExt('put') }, WRITE_PARAMS(v)),
      patch: withParams({ operationId: `patch${kindId}${pascal(sub)}`, ...requestBody(PATCH_SCHEMA, patchTypes), ...ok(ref, ['200', '201']), ...subExt('patch') }, [...WRITE_PARAMS(v), param('force', 'query', 'boolean', v, 'Apply: take over conflicting fields.')]),
    };
  }
  return paths;
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
