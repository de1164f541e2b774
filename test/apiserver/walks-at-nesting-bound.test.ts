// Every recursive walk over user data is reachable only behind the nesting bound (input-limits.ts);
// each named walk is run here on values nested four times deeper than that bound (schema
// compilation: schemas twice as deep as a CRD body within the bound can hold), called from a stack
// already 1,000 frames deep, so the bound leaves a wide margin. The iterative walks of
// src/api/json-walk.ts are checked at 100,000 levels and on cycles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalJson, cloneJson, deepFreeze, jsonSizeAtMost, jsonTextDepth, nestingDepth, stringifyJson } from '../../src/api/json-walk.js';
import type { SchemaNode } from '../../src/api/types.js';
import { validateAgainstSchema } from '../../src/api/validation/schema.js';
import { defineKind } from '../../src/api/kinds/define.js';
import { FieldSet, fieldSetOf, mergeApplied, objectFields, removeFields } from '../../src/apiserver/apply/index.js';
import { withoutNulls } from '../../src/apiserver/apply/merge.js';
import { applyMergePatch } from '../../src/apiserver/handlers/patch.js';
import { MAX_NESTING_DEPTH } from '../../src/apiserver/input-limits.js';

const MARGIN_DEPTH = MAX_NESTING_DEPTH * 4;

function chain(levels: number, leaf: unknown = 'x'): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Record<string, unknown>;
}

/** Runs `fn` with `frames` frames already on the stack, as a request handler deep in the pipeline would. */
function withStackUsed<T>(frames: number, fn: () => T): T {
  const down = (n: number): T => (n === 0 ? fn() : down(n - 1));
  return down(frames);
}

const walk = (name: string, fn: () => void, depth = `${MARGIN_DEPTH} levels (4x the bound)`) =>
  test(`${name} is safe at ${depth}`, () => {
    withStackUsed(1000, fn);
  });

/** The deepest schema a CRD body within the bound can carry (two levels per schema level, 8 around it). */
const SCHEMA_LEVELS_AT_BOUND = Math.floor((MAX_NESTING_DEPTH - 8) / 2);

const deep = () => ({ apiVersion: 'x/v1', kind: 'Deep', metadata: { name: 'd' }, spec: chain(MARGIN_DEPTH) });

walk('objectFields + field-set construction', () => {
  const fields = objectFields(deep(), undefined);
  assert.ok(fieldSetOf(fields).paths().length > 0);
});

walk('field-set algebra and FieldsV1 encoding (the field-set clone)', () => {
  const a = fieldSetOf(objectFields(deep(), undefined));
  const b = fieldSetOf(objectFields({ ...deep(), spec: chain(MARGIN_DEPTH, 'y') }, undefined));
  const round = FieldSet.fromFieldsV1(a.toFieldsV1());
  assert.ok(round.equals(a));
  assert.ok(a.union(b).covers(['f:spec']));
  a.difference(b);
  a.intersection(b);
  a.presentIn(b);
  a.untouchedBy(b);
  a.childrenOf(['f:spec']);
});

walk('removeFields', () => {
  const obj = deep();
  removeFields(obj, undefined, FieldSet.of([['f:spec', ...Array.from({ length: MARGIN_DEPTH - 1 }, () => 'f:a')]]));
  assert.is(nestingDepth(obj.spec), MARGIN_DEPTH - 1);
});

walk('mergeApplied (the schema-aware apply merge)', () => {
  const merged = mergeApplied(deep(), { ...deep(), spec: chain(MARGIN_DEPTH, 'z') }, undefined) as { spec: unknown };
  assert.is(nestingDepth(merged.spec), MARGIN_DEPTH);
});

walk('withoutNulls (the null-stripping merge of apply)', () => {
  assert.equal(cloneJson(withoutNulls({ b: chain(MARGIN_DEPTH, null) })), { b: chain(MARGIN_DEPTH - 1, {}) });
});

walk('applyMergePatch (RFC 7386)', () => {
  const out = applyMergePatch(chain(MARGIN_DEPTH) as never, chain(MARGIN_DEPTH, 'y') as never);
  assert.is(nestingDepth(out), MARGIN_DEPTH);
});

walk(
  'schema compilation and validation (ajv)',
  () => {
    const levels = SCHEMA_LEVELS_AT_BOUND * 2;
    let schema: SchemaNode = { type: 'string' };
    for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
    const def = defineKind({ group: 'x', version: 'v1', kind: 'Deep', plural: 'deeps', namespaced: true, schema: { type: 'object', properties: { spec: schema } } });
    assert.equal(validateAgainstSchema(def, { apiVersion: 'x/v1', kind: 'Deep', metadata: { name: 'd' }, spec: chain(levels) }), []);
  },
  `${SCHEMA_LEVELS_AT_BOUND * 2} schema levels (2x what a CRD within the bound holds)`,
);

test('json-walk: nestingDepth counts levels, stops at its cap, and ends on cycles', () => {
  assert.is(nestingDepth('x'), 0);
  assert.is(nestingDepth({}), 1);
  assert.is(nestingDepth({ a: [{}] }), 3);
  assert.is(nestingDepth(chain(100_000)), 100_000);
  const cyclic: { a: unknown[] } = { a: [] };
  cyclic.a.push(cyclic);
  assert.is(nestingDepth(cyclic, 300), 301);
});

test('json-walk: jsonTextDepth reads the same depth off JSON bytes, brackets in strings not counted', () => {
  const bytes = (v: unknown) => Buffer.from(stringifyJson(v));
  for (const v of ['x', {}, { a: [{}] }, { s: '[[{{"\\', t: ['}', { u: '\\"[' }] }, chain(100_000)]) {
    assert.is(jsonTextDepth(bytes(v)), nestingDepth(v));
  }
  assert.is(jsonTextDepth(bytes(chain(100_000)), 300), 301, 'stops past its cap');
});

test('json-walk: clone, stringify, canonical JSON and freeze at 100,000 levels', () => {
  const v = chain(100_000);
  const copy = cloneJson(v);
  assert.is.not(copy, v);
  assert.is(nestingDepth(copy), 100_000);
  const text = stringifyJson(v);
  assert.is(text, '{"a":'.repeat(100_000) + '"x"' + '}'.repeat(100_000));
  assert.is(canonicalJson(v), text);
  deepFreeze(v);
  let inner: unknown = v;
  for (let i = 0; i < 99_999; i++) inner = (inner as { a: unknown }).a;
  assert.ok(Object.isFrozen(inner));
});

test('json-walk: stringifyJson and canonicalJson agree with JSON.stringify where it works', () => {
  const v = { b: [1, 'two', null, undefined, { z: true, y: undefined }], a: -0.5, c: 'é\u2028"' };
  assert.is(stringifyJson(v), JSON.stringify(v));
  assert.is(canonicalJson(v), '{"a":-0.5,"b":[1,"two",null,null,{"z":true}],"c":"é\u2028\\""}');
  assert.is(canonicalJson(undefined), 'null');
});

test('json-walk: jsonSizeAtMost stops early past its limit', () => {
  const wide = Array.from({ length: 100_000 }, (_, i) => ({ [`k${i}`]: 'v'.repeat(10) }));
  assert.ok(jsonSizeAtMost(wide, 1000) > 1000);
  assert.ok(Math.abs(jsonSizeAtMost({ a: 'xyz' }, 1e9) - JSON.stringify({ a: 'xyz' }).length) < 8);
});

test.run();
