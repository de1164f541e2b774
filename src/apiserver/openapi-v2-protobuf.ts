/**
 * `/openapi/v2` in Protobuf (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), the form
 * kubectl 1.27 and 1.28 read for `apply` and `explain`: the Swagger 2.0 document of ./openapi.ts
 * encoded as the established `openapi.v2.Document` message (the gnostic model). Only the messages
 * and fields our documents use are declared below, with the established field numbers; vendor
 * extensions and enum values travel as YAML text, as that model carries them.
 *
 * Contract: `encodeSwaggerProtobuf(swaggerJson)` is pure; keys the model has no field for (OpenAPI
 * v3 junctors such as oneOf) are left out, as the established server leaves them out of v2.
 */
import protobuf from 'protobufjs';
import { stringify as toYaml } from 'yaml';

/** Accept values that ask for it (the second is the older spelling clients still send). */
export const OPENAPI_V2_PROTOBUF_TYPES = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];

const PROTO = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; string description = 3; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
}
message Definitions { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5;
  Operation options = 6; Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9;
  repeated NamedAny vendor_extension = 10;
}
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message JsonReference { string _ref = 1; string description = 2; }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message NonBodyParameter {
  oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; }
}
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5; string type = 6; }
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; }
message Responses { repeated NamedResponseValue response_code = 1; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message Response { string description = 1; SchemaItem schema = 2; }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5; double multiple_of = 6;
  double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10; int64 max_length = 11;
  int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15; bool unique_items = 16;
  int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23; repeated Schema all_of = 24;
  Properties properties = 25; bool read_only = 27; repeated NamedAny vendor_extension = 31;
}
`;

type Json = Record<string, unknown>;

let documentType: protobuf.Type | undefined;
function type(): protobuf.Type {
  documentType ??= protobuf.parse(PROTO, { keepCase: true }).root.lookupType('openapi.v2.Document');
  return documentType;
}

const yamlAny = (v: unknown) => ({ yaml: toYaml(v) });

function vendorExtensions(o: Json): { name: string; value: { yaml: string } }[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: yamlAny(v) }));
}

const SCHEMA_SCALARS: Record<string, string> = {
  $ref: '_ref',
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  readOnly: 'read_only',
};

/** A JSON schema node as `openapi.v2.Schema` (recursive: schemas are bounded by the nesting limit). */
function schema(s: Json): Json {
  const out: Json = {};
  for (const [k, field] of Object.entries(SCHEMA_SCALARS)) if (s[k] !== undefined) out[field] = s[k];
  if (typeof s['type'] === 'string') out['type'] = { value: [s['type']] };
  if (Array.isArray(s['required'])) out['required'] = s['required'];
  if (Array.isArray(s['enum'])) out['enum'] = s['enum'].map(yamlAny);
  if (s['default'] !== undefined) out['default'] = yamlAny(s['default']);
  if (s['items'] && typeof s['items'] === 'object') out['items'] = { schema: [schema(s['items'] as Json)] };
  if (Array.isArray(s['allOf'])) out['all_of'] = (s['allOf'] as Json[]).map(schema);
  if (s['properties'] && typeof s['properties'] === 'object') {
    out['properties'] = { additional_properties: Object.entries(s['properties'] as Record<string, Json>).map(([name, v]) => ({ name, value: schema(v) })) };
  }
  const ap = s['additionalProperties'];
  if (typeof ap === 'boolean') out['additional_properties'] = { boolean: ap };
  else if (ap && typeof ap === 'object') out['additional_properties'] = { schema: schema(ap as Json) };
  const ext = vendorExtensions(s);
  if (ext.length) out['vendor_extension'] = ext;
  return out;
}

function parameter(p: Json): Json {
  const common = { name: p['name'], in: p['in'], description: p['description'] ?? '', required: p['required'] === true };
  if (p['in'] === 'body') return { parameter: { body_parameter: { ...common, schema: schema((p['schema'] ?? {}) as Json) } } };
  const sub = { ...common, type: p['type'] ?? 'string' };
  return { parameter: { non_body_parameter: p['in'] === 'path' ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub } } };
}

function operation(op: Json): Json {
  const responses = Object.entries((op['responses'] ?? {}) as Record<string, Json>).map(([code, r]) => ({
    name: code,
    value: { response: { description: r['description'] ?? '', ...(r['schema'] ? { schema: { schema: schema(r['schema'] as Json) } } : {}) } },
  }));
  return {
    description: op['description'] ?? '',
    operation_id: op['operationId'] ?? '',
    consumes: op['consumes'] ?? [],
    produces: op['produces'] ?? ['application/json'],
    parameters: ((op['parameters'] ?? []) as Json[]).map(parameter),
    responses: { response_code: responses },
    vendor_extension: vendorExtensions(op),
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The Swagger 2.0 JSON document of ./openapi.ts as `openapi.v2.Document` bytes. */
export function encodeSwaggerProtobuf(doc: Json): Buffer {
  const paths = Object.entries((doc['paths'] ?? {}) as Record<string, Json>).map(([name, item]) => {
    const value: Json = { parameters: ((item['parameters'] ?? []) as Json[]).map(parameter) };
    for (const m of METHODS) if (item[m]) value[m] = operation(item[m] as Json);
    return { name, value };
  });
  const definitions = Object.entries((doc['definitions'] ?? {}) as Record<string, Json>).map(([name, s]) => ({ name, value: schema(s) }));
  const info = (doc['info'] ?? {}) as Json;
  const message = type().fromObject({ swagger: doc['swagger'], info: { title: info['title'] ?? '', version: info['version'] ?? '' }, paths: { path: paths }, definitions: { additional_properties: definitions } });
  return Buffer.from(type().encode(message).finish());
}
