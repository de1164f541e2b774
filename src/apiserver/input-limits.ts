/**
 * The bounds every request body is held to at the server's edge, before any code that recurses
 * over user data or copies it runs. What this module guarantees to the rest of the server:
 *
 * - a decoded body (JSON, YAML, Protobuf, each patch type) nests at most `maxNestingDepth` levels,
 *   so recursive walks after it (managed fields, merges, schema validation, clones) have a known
 *   depth well under the stack limit; a YAML alias that refers to itself nests without end and
 *   is refused the same way;
 * - YAML aliases expand at most MAX_YAML_ALIAS_COUNT times (../codec/body.ts);
 * - bodies are at most `maxRequestBodyBytes`, and the object a write stores (after a patch or an
 *   apply has grown it) at most `maxObjectBytes`;
 * - a JSON patch has at most `maxJsonPatchOperations` operations and its `copy` operations create
 *   at most `maxObjectBytes` between them (a few small copies of a copy would otherwise double
 *   an object until memory runs out);
 * - `metadata` has the types the rest of the code assumes (typedMetadata) before any rule reads it.
 *
 * All checks are iterative (../api/json-walk.ts). See docs/reliability.md.
 */
import { badRequest, requestEntityTooLarge, StatusError, timeout } from '../api/status.js';
import { jsonSizeAtMost, nestingDepth } from '../api/json-walk.js';

export interface InputLimits {
  /** Largest request body in bytes (--max-request-body-bytes). */
  maxRequestBodyBytes: number;
  /** Deepest nesting of objects and arrays a body or a written object may have. */
  maxNestingDepth: number;
  /** Largest object a write may store, as JSON bytes. */
  maxObjectBytes: number;
  /** Most operations one JSON patch may hold (the established limit). */
  maxJsonPatchOperations: number;
}

/** The established body limit: 3 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * 256 levels: far more than any real object needs (a CRD embedding a whole pod template schema
 * stays under 80), and about a tenth of the depth where node's default stack ran out in the
 * deepest walk we had (about 3,000 levels).
 */
export const MAX_NESTING_DEPTH = 256;

export const DEFAULT_INPUT_LIMITS: InputLimits = {
  maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  maxNestingDepth: MAX_NESTING_DEPTH,
  maxObjectBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  maxJsonPatchOperations: 10_000,
};

/**
 * Bodies and objects larger than this give other requests a turn between the steps that walk
 * them whole (decode, change, ownership, validation, store), so no request waits long behind one.
 */
export const LARGE_OBJECT_BYTES = 256 * 1024;

/** Resolves after the requests already waiting have had their turn of the event loop. */
export function otherRequestsTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * otherRequestsTurn for a request's own long work: after the turn, a request that has been answered
 * meanwhile (its deadline passed and got its 504, or the client went away) stops here, before it
 * commits anything, instead of going on to a write nobody will hear about.
 */
export async function requestTurn(res: { readonly writableEnded: boolean }): Promise<void> {
  await otherRequestsTurn();
  if (res.writableEnded || (res as { destroyed?: boolean }).destroyed === true) {
    throw timeout('Timeout: request did not complete within the allotted timeout', 0);
  }
}

/** How long a request's steps may hold the event loop before other requests get a turn (as ./fair-streams.ts). */
const STEPS_BUDGET_MS = 8;

/**
 * Walks `steps` to its end, handing each value it yields to `each`, and after every 8 ms of steps
 * gives other requests a turn (requestTurn: a request answered meanwhile, by its deadline or a
 * client gone, stops here). For CPU work proportional to a list (a Table of thousands of rows, a
 * cold Protobuf list) that would otherwise hold every other request, health checks included.
 */
export async function runInTurns<Y, R>(res: { readonly writableEnded: boolean }, steps: Iterator<Y, R, void>, each?: (value: Y) => void): Promise<R> {
  let started = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    each?.(step.value);
    if (performance.now() - started >= STEPS_BUDGET_MS) {
      await requestTurn(res);
      started = performance.now();
    }
  }
}

/** The limits for a given body limit: a stored object may be as large as a body. */
export function inputLimitsFor(maxRequestBodyBytes: number): InputLimits {
  return { ...DEFAULT_INPUT_LIMITS, maxRequestBodyBytes, maxObjectBytes: maxRequestBodyBytes };
}

/** 400 when a request body nests deeper than the limit (or, from a YAML alias cycle, without end). */
export function checkBodyNesting(value: unknown, limits: InputLimits, what = 'the request body'): void {
  const depth = nestingDepth(value, limits.maxNestingDepth);
  if (depth > limits.maxNestingDepth) {
    throw badRequest(
      `${what} nests objects and arrays more than ${limits.maxNestingDepth} levels deep (or holds a YAML alias that refers to itself); flatten it`,
    );
  }
}

/**
 * The nesting depth of an object leaving out `metadata.managedFields`: the server writes those
 * itself, a few levels deeper than the fields they describe. Counted no further than `cap + 1`.
 */
export function objectNestingDepth(obj: { metadata?: unknown }, cap: number): number {
  const m = obj.metadata;
  if (m === null || typeof m !== 'object' || !('managedFields' in m)) return nestingDepth(obj, cap);
  return nestingDepth({ ...obj, metadata: { ...m, managedFields: undefined } }, cap);
}

/**
 * For the object a write is about to store, after a patch, an apply or the server's own changes:
 * 422 when it nests too deep, 413 when it is too large. Returns about how large it is (jsonSizeAtMost).
 */
export function checkWrittenObject(value: { metadata?: unknown }, limits: InputLimits): number {
  const depth = objectNestingDepth(value, limits.maxNestingDepth);
  if (depth > limits.maxNestingDepth) {
    throw new StatusError(
      422,
      'Invalid',
      `the resulting object nests objects and arrays more than ${limits.maxNestingDepth} levels deep; remove the deeply nested fields`,
    );
  }
  const size = jsonSizeAtMost(value, limits.maxObjectBytes);
  if (size > limits.maxObjectBytes) {
    throw requestEntityTooLarge(`the resulting object is larger than the limit of ${limits.maxObjectBytes} bytes`);
  }
  return size;
}

/** Budget for the bytes a JSON patch's `copy` operations create, checked as they are applied. */
export class CopyBudget {
  private used = 0;
  constructor(private readonly limits: InputLimits) {}

  /**
   * Charges one copy of `value` to a place `targetDepth` levels down; 422 once the copies together
   * exceed the object limit, or when this copy alone would nest past the depth limit.
   */
  charge(value: unknown, targetDepth: number): void {
    if (nestingDepth(value, this.limits.maxNestingDepth) + targetDepth > this.limits.maxNestingDepth) {
      throw new StatusError(
        422,
        'Invalid',
        `the JSON patch could not be applied: a copy would nest the object more than ${this.limits.maxNestingDepth} levels deep`,
      );
    }
    const left = this.limits.maxObjectBytes - this.used;
    const size = jsonSizeAtMost(value, left);
    this.used += size;
    if (this.used > this.limits.maxObjectBytes) {
      throw new StatusError(
        422,
        'Invalid',
        `the JSON patch could not be applied: its copy operations would create more than ${this.limits.maxObjectBytes} bytes`,
      );
    }
  }
}

/** 413 for a JSON patch with more operations than the established limit. */
export function checkJsonPatchLength(ops: readonly unknown[], limits: InputLimits): void {
  if (ops.length > limits.maxJsonPatchOperations) {
    throw requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${limits.maxJsonPatchOperations}, got ${ops.length}`,
    );
  }
}

type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'stringMap' | 'stringList' | 'objectList';

/** The type of every ObjectMeta field the server reads (the established Go types). */
const METADATA_TYPES: Record<string, FieldType> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'integer',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
  deletionGracePeriodSeconds: 'integer',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'objectList',
  finalizers: 'stringList',
  managedFields: 'objectList',
};

const OWNER_REFERENCE_TYPES: Record<string, FieldType> = {
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  uid: 'string',
  controller: 'boolean',
  blockOwnerDeletion: 'boolean',
};

const MANAGED_FIELDS_TYPES: Record<string, FieldType> = {
  manager: 'string',
  operation: 'string',
  apiVersion: 'string',
  time: 'string',
  fieldsType: 'string',
  fieldsV1: 'object',
  subresource: 'string',
};

const GO_TYPE: Record<FieldType, string> = {
  string: 'string',
  integer: 'int64',
  boolean: 'bool',
  object: 'object',
  stringMap: 'map[string]string',
  stringList: '[]string',
  objectList: '[]object',
};

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isInteger(v)) return 'number with a fraction';
  return typeof v === 'object' ? 'object' : typeof v;
}

function hasType(v: unknown, t: FieldType): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'stringMap':
      return hasType(v, 'object') && Object.values(v as object).every((x) => typeof x === 'string');
    case 'stringList':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'objectList':
      return Array.isArray(v) && v.every((x) => hasType(x, 'object'));
  }
}

/** Checks `obj`'s fields against `types` in place: null means unset (dropped), a wrong type is a 400. */
function checkFields(obj: Record<string, unknown>, types: Record<string, FieldType>, path: string): void {
  for (const [field, type] of Object.entries(types)) {
    const v = obj[field];
    if (v === undefined) continue;
    if (v === null) {
      delete obj[field];
      continue;
    }
    if (!hasType(v, type)) {
      throw badRequest(`${path}.${field} must be of type ${GO_TYPE[type]}, not ${describe(v)}`);
    }
  }
}

/**
 * Type-checks every ObjectMeta field the server reads, in place, before any rule reads them
 * (`null` is dropped: the established decoders read it as unset). A wrong type is a 400 naming
 * the field, as the established decoder's error does.
 */
export function checkMetadataTypes(metadata: Record<string, unknown>): void {
  checkFields(metadata, METADATA_TYPES, 'metadata');
  (metadata['ownerReferences'] as Record<string, unknown>[] | undefined)?.forEach((r, i) => checkFields(r, OWNER_REFERENCE_TYPES, `metadata.ownerReferences[${i}]`));
  (metadata['managedFields'] as Record<string, unknown>[] | undefined)?.forEach((e, i) => checkFields(e, MANAGED_FIELDS_TYPES, `metadata.managedFields[${i}]`));
}
