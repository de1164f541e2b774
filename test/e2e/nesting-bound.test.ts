// The nesting bound (256 levels) is safe for every walk behind it: objects and patches exactly at
// the bound go through create, update, merge patch, JSON patch, server-side apply (the field-set
// walks, the null-stripping and schema-aware merges, managed fields) and delete; a CRD whose schema
// nests as deep as a body may is compiled and enforced. One level more is a 400.
import * as assert from 'uvu/assert';
import { nestingDepth } from '../../src/api/json-walk.js';
import { MAX_NESTING_DEPTH } from '../../src/apiserver/input-limits.js';
import { forEachEngine } from '../helpers/engines.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const GROUP = 'bound.example.com';
const FREE = `/apis/${GROUP}/v1/namespaces/default/frees`;
const TYPED = `/apis/${GROUP}/v1/namespaces/default/typeds`;

/** `{"a":{"a":...}}` with `levels` objects, ending in a list leaf. */
function chain(levels: number, leaf: unknown = ['x']): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** A custom resource whose whole body nests exactly `depth` levels (spec holds the chain). */
function freeObject(name: string, depth: number): Record<string, unknown> {
  // root (1) + the chain's objects (spec is the first) + the leaf list (1).
  const obj = { apiVersion: `${GROUP}/v1`, kind: 'Free', metadata: { name }, spec: chain(depth - 2) };
  assert.is(nestingDepth(obj), depth);
  return obj;
}

/** A schema of `levels` nested `properties.a` objects; the CRD body then nests about twice that. */
function typedSchema(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string', pattern: '^[a-z]+$' };
  for (let i = 0; i < levels; i++) s = { type: 'object', properties: { a: s } };
  return { type: 'object', properties: { spec: s } };
}

function crd(plural: string, kind: string, schema: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: { group: GROUP, scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  };
}

async function served(request: (m: string, p: string) => Promise<{ status: number }>, path: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await request('GET', path)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${path} not served within 5 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

forEachEngine('the nesting bound', (test, ctx) => {
  // The deepest schema whose CRD body fits the bound: root, spec, versions, [0], schema,
  // openAPIV3Schema, properties, spec, then two levels per schema level.
  const typedLevels = Math.floor((MAX_NESTING_DEPTH - 8) / 2);

  test('setup: a CRD with free-form spec, and a CRD whose schema nests as deep as a body may', async () => {
    const { server } = ctx();
    const free = await server.request('POST', CRDS, crd('frees', 'Free', { type: 'object', properties: { spec: { type: 'object', 'x-svc-preserve-unknown-fields': true } } }));
    assert.is(free.status, 201, free.text.slice(0, 300));
    const deepCrd = crd('typeds', 'Typed', typedSchema(typedLevels));
    assert.ok(nestingDepth(deepCrd) <= MAX_NESTING_DEPTH, `CRD body nests ${nestingDepth(deepCrd)}`);
    const typed = await server.request('POST', CRDS, deepCrd);
    assert.is(typed.status, 201, typed.text.slice(0, 300));
    const tooDeep = await server.request('POST', CRDS, crd('typeds2', 'Typed2', typedSchema(typedLevels + 2)));
    assert.is(tooDeep.status, 400, tooDeep.text.slice(0, 300));
    await served(server.request, `${FREE}`);
    await served(server.request, `${TYPED}`);
  });

  test('create, get, update and delete at the bound; one level more is a 400', async () => {
    const { server } = ctx();
    const created = await server.request('POST', FREE, freeObject('at-bound', MAX_NESTING_DEPTH));
    assert.is(created.status, 201, created.text.slice(0, 300));
    assert.ok(created.json.metadata.managedFields?.length, 'managed fields recorded for the deep object');
    const got = await server.request('GET', `${FREE}/at-bound`);
    assert.is(got.status, 200);
    assert.is(nestingDepth({ ...got.json, metadata: {} }), MAX_NESTING_DEPTH);
    const put = await server.request('PUT', `${FREE}/at-bound`, { ...freeObject('at-bound', MAX_NESTING_DEPTH), spec: chain(MAX_NESTING_DEPTH - 2, ['y']) });
    assert.is(put.status, 200, put.text.slice(0, 300));
    const over = await server.request('POST', FREE, freeObject('over', MAX_NESTING_DEPTH + 1));
    assert.is(over.status, 400, over.text.slice(0, 300));
    assert.match(over.json.message, /more than 256 levels/);
  });

  test('merge patch and JSON patch at the bound; a patch whose result is deeper is refused', async () => {
    const { server } = ctx();
    const merge = await server.request('PATCH', `${FREE}/at-bound`, JSON.stringify({ spec: chain(MAX_NESTING_DEPTH - 2, ['z']) }), { 'content-type': 'application/merge-patch+json' });
    assert.is(merge.status, 200, merge.text.slice(0, 300));
    const nullsOut = await server.request('PATCH', `${FREE}/at-bound`, JSON.stringify({ spec: chain(MAX_NESTING_DEPTH - 2, null) }), { 'content-type': 'application/merge-patch+json' });
    assert.is(nullsOut.status, 200, nullsOut.text.slice(0, 300));
    const path = `/spec${'/a'.repeat(MAX_NESTING_DEPTH - 2)}`;
    const json = await server.request('PATCH', `${FREE}/at-bound`, JSON.stringify([{ op: 'add', path, value: ['w'] }]), { 'content-type': 'application/json-patch+json' });
    assert.is(json.status, 200, json.text.slice(0, 300));
    const deeper = await server.request('PATCH', `${FREE}/at-bound`, JSON.stringify([{ op: 'add', path, value: { b: ['w'] } }]), { 'content-type': 'application/json-patch+json' });
    assert.is(deeper.status, 422, deeper.text.slice(0, 300));
    assert.match(deeper.json.message, /resulting object nests/);
  });

  test('server-side apply at the bound, by two managers, then delete', async () => {
    const { server } = ctx();
    const APPLY = { 'content-type': 'application/apply-patch+yaml' };
    const first = await server.request('PATCH', `${FREE}/applied?fieldManager=one`, JSON.stringify(freeObject('applied', MAX_NESTING_DEPTH)), APPLY);
    assert.is(first.status, 201, first.text.slice(0, 300));
    const second = { ...freeObject('applied', MAX_NESTING_DEPTH), spec: { ...(chain(MAX_NESTING_DEPTH - 2) as object), b: null } };
    const other = await server.request('PATCH', `${FREE}/applied?fieldManager=two&force=true`, JSON.stringify(second), APPLY);
    assert.is(other.status, 200, other.text.slice(0, 300));
    const managers = (other.json.metadata.managedFields as { manager: string }[]).map((m) => m.manager).sort();
    assert.equal(managers, ['one', 'two']);
    const dropped = await server.request('PATCH', `${FREE}/applied?fieldManager=one`, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Free', metadata: { name: 'applied' } }), APPLY);
    assert.is(dropped.status, 200, dropped.text.slice(0, 300));
    for (const name of ['applied', 'at-bound']) assert.is((await server.request('DELETE', `${FREE}/${name}`)).status, 200);
  });

  test('a custom resource as deep as the deepest schema is validated against it', async () => {
    const { server } = ctx();
    const body = (leaf: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Typed', metadata: { name: 'typed' }, spec: chain(typedLevels, leaf) });
    const bad = await server.request('POST', TYPED, body('NOT-LOWER'));
    assert.is(bad.status, 422, bad.text.slice(0, 300));
    const good = await server.request('POST', TYPED, body('lower'));
    assert.is(good.status, 201, good.text.slice(0, 300));
    assert.is(server.proc.exitCode, null);
  });
});
