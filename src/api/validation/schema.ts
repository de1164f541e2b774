/**
 * Checks an object against its kind's OpenAPI schema with ajv: JSON types, bounds and patterns.
 * Unknown fields of structural (non-preserving) objects are dropped silently, as established servers
 * do for built-in kinds; type mismatches become 422 field errors with the field's path.
 *
 * Validators are compiled lazily per definition and cached (definitions are long-lived). Compiled
 * schemas are also kept by content, a bounded number of them: a CRD's schema is compiled once when
 * the CRD is written and reused when its version is served, and CRDs written over and over do
 * not grow ajv's own cache without end (it keeps every schema object it compiled until removed).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { canonicalJson } from '../json-walk.js';
import type { FieldError } from '../status.js';
import type { ResourceDefinition, SchemaNode, SvcObject } from '../types.js';
import { invalidValue, notSupported, required, tooLong, tooMany, typeInvalid } from './field-errors.js';
import { ajvLinearRegExp, compileLinearRegExp, PATTERN_STEP_BUDGET } from './linear-regexp.js';

type JsonSchema = Record<string, unknown>;

/**
 * Where a node sits: in the structural schema, or under a oneOf/anyOf/allOf/not, whose nodes only
 * check values (they neither prune unknown fields nor take part in null handling).
 */
type SchemaPart = 'structural' | 'junctor';

/**
 * SchemaNode -> plain JSON schema for ajv: a typed node accepts null unless it is marked not
 * `nullable` (built-in kinds never are: the established decoders read null as "unset"),
 * int-or-string becomes a union, structural objects forbid extra properties so `removeAdditional`
 * drops them, junctors pass through, and our `x-svc-*` markers are left out.
 */
export function toAjvSchema(node: SchemaNode, part: SchemaPart = 'structural'): JsonSchema {
  const out: JsonSchema = {};
  const orNull = part === 'structural' && node.nullable !== false ? ['null'] : [];
  if (node['x-svc-int-or-string']) out['type'] = ['integer', 'string', ...orNull];
  else if (node.type) out['type'] = [node.type, ...orNull];
  if (node.enum) out['enum'] = [...node.enum, ...(orNull.length ? [null] : [])];
  if (node.minimum !== undefined) out['minimum'] = node.minimum;
  if (node.maximum !== undefined) out['maximum'] = node.maximum;
  if (node.maxLength !== undefined) out['maxLength'] = node.maxLength;
  if (node.pattern !== undefined) out['pattern'] = node.pattern;
  if (node.minLength !== undefined) out['minLength'] = node.minLength;
  if (node.minItems !== undefined) out['minItems'] = node.minItems;
  if (node.maxItems !== undefined) out['maxItems'] = node.maxItems;
  if (node.minProperties !== undefined) out['minProperties'] = node.minProperties;
  if (node.maxProperties !== undefined) out['maxProperties'] = node.maxProperties;
  if (node.multipleOf !== undefined) out['multipleOf'] = node.multipleOf;
  if (node.uniqueItems) out['uniqueItems'] = true;
  // OpenAPI v3.0 booleans -> JSON schema numbers.
  if (node.exclusiveMinimum && node.minimum !== undefined) {
    out['exclusiveMinimum'] = node.minimum;
    delete out['minimum'];
  }
  if (node.exclusiveMaximum && node.maximum !== undefined) {
    out['exclusiveMaximum'] = node.maximum;
    delete out['maximum'];
  }
  if (node.required?.length) out['required'] = [...node.required];
  if (node.items) out['items'] = toAjvSchema(node.items, part);
  if (node.properties) {
    const props: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(node.properties)) props[k] = toAjvSchema(v, part);
    out['properties'] = props;
    if (part === 'structural' && !node['x-svc-preserve-unknown-fields'] && node.additionalProperties === undefined) out['additionalProperties'] = false;
  }
  if (node.additionalProperties !== undefined) {
    out['additionalProperties'] = typeof node.additionalProperties === 'boolean' ? node.additionalProperties : toAjvSchema(node.additionalProperties, part);
  }
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = node[k];
    if (branches) out[k] = branches.map((b) => toAjvSchema(b, 'junctor'));
  }
  if (node.not) out['not'] = toAjvSchema(node.not, 'junctor');
  return out;
}

/** An error from inside a oneOf/anyOf branch: the junctor's own error reports it (once). */
const IN_ALTERNATIVE = /\/(?:oneOf|anyOf)\/\d+\//;

// `pattern` runs on RE2 (./linear-regexp.ts): a backtracking engine can take exponential time.
// Without ajv's code optimisation pass a large CRD schema compiles in half the time (3.6 s -> 1.7 s
// for 15,000 properties), while validating is about 5% slower: compiling blocks every request.
const ajv = new Ajv({ allErrors: true, removeAdditional: true, strict: false, verbose: true, validateFormats: false, code: { regExp: ajvLinearRegExp, optimize: false } });
const compiled = new WeakMap<ResourceDefinition, ValidateFunction>();

/** How many compiled schemas are kept by content (least recently used go first). */
export const COMPILED_SCHEMAS_KEPT = 256;
const byContent = new Map<string, { schema: JsonSchema; validate: ValidateFunction }>();

/** The compiled validator of a schema node, from the content cache when the same schema was compiled before. */
function compileSchema(node: SchemaNode): ValidateFunction {
  const schema = toAjvSchema(node);
  const key = canonicalJson(schema);
  const hit = byContent.get(key);
  if (hit) {
    byContent.delete(key);
    byContent.set(key, hit);
    return hit.validate;
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    ajv.removeSchema(schema);
    throw err;
  }
  byContent.set(key, { schema, validate });
  if (byContent.size > COMPILED_SCHEMAS_KEPT) {
    const [oldest, entry] = byContent.entries().next().value!;
    byContent.delete(oldest);
    // Validators already handed out keep working; ajv just stops holding this one.
    ajv.removeSchema(entry.schema);
  }
  return validate;
}

function validatorFor(def: ResourceDefinition): ValidateFunction {
  let v = compiled.get(def);
  if (!v) {
    v = compileSchema(def.schema);
    compiled.set(def, v);
  }
  return v;
}

/** Why a schema cannot be compiled (e.g. a bad `pattern`), or undefined when it can. */
export function schemaCompileError(node: SchemaNode): string | undefined {
  try {
    compileSchema(node);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** How many schemas ajv itself holds compiled (for tests of the bound). */
export function compiledSchemaCount(): number {
  return (ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size;
}

function decodePointer(p: string): string[] {
  if (!p) return [];
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** JSON pointer -> established field path: `.field`, `[index]` for lists, `[key]` for maps. */
function fieldPath(root: unknown, schema: SchemaNode, pointer: string, extra?: string): string {
  const segs = decodePointer(pointer);
  if (extra !== undefined) segs.push(extra);
  let path = '';
  let data: unknown = root;
  let node: SchemaNode | undefined = schema;
  for (const s of segs) {
    if (Array.isArray(data)) {
      path += `[${s}]`;
      node = node?.items;
    } else if (node?.properties?.[s] !== undefined || node?.additionalProperties === undefined || typeof node.additionalProperties === 'boolean') {
      path += path ? `.${s}` : s;
      node = node?.properties?.[s];
    } else {
      path += `[${s}]`;
      node = node.additionalProperties;
    }
    data = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[s] : undefined;
  }
  return path;
}

/** A string too long to check against a complex pattern within the budget (see ./linear-regexp.ts). */
function tooLongForPattern(field: string, value: string, pattern: string): FieldError {
  const most = Math.floor(PATTERN_STEP_BUDGET / compileLinearRegExp(pattern).size);
  return {
    field,
    type: 'FieldValueTooLong',
    message: `Too long: ${value.length} characters: this server checks at most ${most} characters against the regular expression '${pattern}' (a complex pattern costs more per character); give the field a smaller maxLength, or a simpler pattern`,
  };
}

function toFieldError(def: ResourceDefinition, obj: unknown, e: ErrorObject): FieldError | undefined {
  const field = fieldPath(obj, def.schema, e.instancePath, e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : undefined);
  switch (e.keyword) {
    case 'type': {
      const want = (e.params as { type: string | string[] }).type;
      const types = (Array.isArray(want) ? want : String(want).split(',')).filter((t) => t !== 'null');
      const got = Array.isArray(e.data) ? 'array' : e.data === null ? 'null' : typeof e.data;
      return typeInvalid(field, e.data, `must be of type ${types.join(' or ')}, not ${got}`);
    }
    case 'required':
      return required(field);
    case 'enum':
      return notSupported(field, e.data, ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).filter((x) => x !== null).map(String));
    case 'maxLength':
      return tooLong(field, (e.params as { limit: number }).limit);
    case 'minimum':
      return invalidValue(field, e.data, `must be greater than or equal to ${(e.params as { limit: number }).limit}`);
    case 'maximum':
      return invalidValue(field, e.data, `must be less than or equal to ${(e.params as { limit: number }).limit}`);
    case 'pattern': {
      const pattern = (e.params as { pattern: string }).pattern;
      if (typeof e.data === 'string' && compileLinearRegExp(pattern).overBudget(e.data)) {
        return tooLongForPattern(field, e.data, pattern);
      }
      return invalidValue(field, e.data, `must match the regular expression '${pattern}'`);
    }
    case 'exclusiveMinimum':
      return invalidValue(field, e.data, `must be greater than ${(e.params as { limit: number }).limit}`);
    case 'exclusiveMaximum':
      return invalidValue(field, e.data, `must be less than ${(e.params as { limit: number }).limit}`);
    case 'minLength':
      return invalidValue(field, e.data, `should be at least ${(e.params as { limit: number }).limit} chars long`);
    case 'maxItems':
      return tooMany(field, Array.isArray(e.data) ? e.data.length : 0, (e.params as { limit: number }).limit);
    case 'minItems':
      return invalidValue(field, e.data, `should have at least ${(e.params as { limit: number }).limit} items`);
    case 'oneOf':
      return invalidValue(field, e.data, 'must validate one and only one schema (oneOf)');
    case 'anyOf':
      return invalidValue(field, e.data, 'must validate at least one schema (anyOf)');
    case 'not':
      return invalidValue(field, e.data, 'must not validate the schema (not)');
    case 'additionalProperties':
      return undefined;
    default:
      return invalidValue(field, e.data, e.message ?? 'is invalid');
  }
}

/**
 * Validates (and prunes unknown fields from) `obj` in place against the kind's schema.
 * Returns field errors for type mismatches and violated bounds.
 */
export function validateAgainstSchema(def: ResourceDefinition, obj: SvcObject): FieldError[] {
  const validate = validatorFor(def);
  if (validate(obj)) return [];
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of validate.errors ?? []) {
    if (IN_ALTERNATIVE.test(e.schemaPath)) continue;
    const fe = toFieldError(def, obj, e);
    if (!fe) continue;
    const key = `${fe.field}\u0000${fe.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(fe);
    }
  }
  return out;
}
