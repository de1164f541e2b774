// Every OpenAPI v3 keyword a custom resource schema may use is honoured when custom objects are
// validated: for each, a good object is stored and a bad one is a 422 whose Status names exactly
// the offending field. Validation does not depend on the storage engine: one server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, type HttpResult, startApiServer } from '../helpers/apiserver.js';
import { uniqueName } from '../helpers/engines.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const GROUP = `${uniqueName('k')}.example.com`;
const BASE = `/apis/${GROUP}/v1/namespaces/default/checks`;

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-z]+$' },
        // A second pattern: each field must run on its own (ajv once shared the first among all).
        code: { type: 'string', pattern: '^[0-9]{3}$' },
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'] },
        tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
        note: { type: 'string' },
        maybe: { type: 'string', nullable: true },
        shade: { type: 'string', default: 'light' },
        port: { 'x-svc-int-or-string': true },
        free: { type: 'object', 'x-svc-preserve-unknown-fields': true, properties: { count: { type: 'integer' } } },
        source: { type: 'object', properties: { git: { type: 'string' }, image: { type: 'string' } }, oneOf: [{ required: ['git'] }, { required: ['image'] }] },
        target: { type: 'object', properties: { host: { type: 'string' }, ip: { type: 'string' } }, anyOf: [{ required: ['host'] }, { required: ['ip'] }] },
        range: {
          type: 'object',
          properties: { low: { type: 'integer' }, high: { type: 'integer' } },
          allOf: [{ required: ['low'] }, { required: ['high'] }, { properties: { low: { maximum: 100 } } }],
        },
        mode: { type: 'string', not: { enum: ['forbidden'] } },
      },
    },
  },
};

const GOOD = {
  name: 'ok',
  code: '123',
  size: 3,
  color: 'red',
  tags: ['a'],
  maybe: null,
  shade: null,
  port: 'http',
  free: { count: 1, extra: { anything: true } },
  source: { git: 'https://example.com/repo' },
  target: { host: 'h', ip: '10.0.0.1' },
  range: { low: 1, high: 2 },
  mode: 'fast',
};

/** Each keyword, a spec that breaks it (GOOD with these fields replaced), the field named, and the message. */
const BAD: { keyword: string; spec: Record<string, unknown>; field: string; message: RegExp }[] = [
  { keyword: 'required', spec: { name: undefined }, field: 'spec.name', message: /Required value/ },
  { keyword: 'pattern', spec: { name: 'Not-Lower' }, field: 'spec.name', message: /must match the regular expression '\^\[a-z\]\+\$'/ },
  { keyword: 'pattern (a second one)', spec: { code: 'abc' }, field: 'spec.code', message: /must match the regular expression '\^\[0-9\]\{3\}\$'/ },
  { keyword: 'enum', spec: { color: 'green' }, field: 'spec.color', message: /Unsupported value: "green": supported values: "red", "blue"/ },
  { keyword: 'minimum', spec: { size: 0 }, field: 'spec.size', message: /must be greater than or equal to 1/ },
  { keyword: 'maximum', spec: { size: 11 }, field: 'spec.size', message: /must be less than or equal to 10/ },
  { keyword: 'minItems', spec: { tags: [] }, field: 'spec.tags', message: /should have at least 1 items/ },
  { keyword: 'maxItems', spec: { tags: ['a', 'b', 'c'] }, field: 'spec.tags', message: /Too many: 3: must have at most 2 items/ },
  { keyword: 'nullable (absent)', spec: { note: null }, field: 'spec.note', message: /must be of type string, not null/ },
  { keyword: 'x-svc-preserve-unknown-fields (declared fields still typed)', spec: { free: { count: 'many', extra: 1 } }, field: 'spec.free.count', message: /must be of type integer, not string/ },
  { keyword: 'x-svc-int-or-string', spec: { port: true }, field: 'spec.port', message: /must be of type integer or string, not boolean/ },
  { keyword: 'x-svc-int-or-string (object)', spec: { port: { number: 80 } }, field: 'spec.port', message: /must be of type integer or string, not object/ },
  { keyword: 'oneOf (both)', spec: { source: { git: 'g', image: 'i' } }, field: 'spec.source', message: /must validate one and only one schema \(oneOf\)/ },
  { keyword: 'oneOf (neither)', spec: { source: {} }, field: 'spec.source', message: /must validate one and only one schema \(oneOf\)/ },
  { keyword: 'anyOf', spec: { target: {} }, field: 'spec.target', message: /must validate at least one schema \(anyOf\)/ },
  { keyword: 'allOf (required)', spec: { range: { low: 1 } }, field: 'spec.range.high', message: /Required value/ },
  { keyword: 'allOf (bound)', spec: { range: { low: 101, high: 200 } }, field: 'spec.range.low', message: /must be less than or equal to 100/ },
  { keyword: 'not', spec: { mode: 'forbidden' }, field: 'spec.mode', message: /must not validate the schema \(not\)/ },
];

interface Cause {
  field: string;
  message: string;
  reason: string;
}

const test = suite('custom resources: schema keywords');
let server: ApiServerProcess | undefined;
let counter = 0;

function create(spec: Record<string, unknown>): Promise<HttpResult> {
  return server!.request('POST', BASE, { apiVersion: `${GROUP}/v1`, kind: 'Check', metadata: { name: `c${++counter}` }, spec });
}

test.before(async () => {
  server = await startApiServer();
  const crd = {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `checks.${GROUP}` },
    spec: { group: GROUP, scope: 'Namespaced', names: { plural: 'checks', kind: 'Check' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } }] },
  };
  const c = await server.request('POST', CRDS, crd);
  assert.is(c.status, 201, c.text);
  const deadline = Date.now() + 2000;
  while ((await server.request('GET', BASE)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${BASE} not served within 2 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('an object meeting every keyword is stored: nullable null kept, null with a default defaulted, unknown fields kept where preserved', async () => {
  const r = await create(GOOD);
  assert.is(r.status, 201, r.text);
  assert.is(r.json.spec.maybe, null, 'nullable: true keeps null');
  assert.is(r.json.spec.shade, 'light', 'a null in a non-nullable field with a default gets the default');
  assert.equal(r.json.spec.free, { count: 1, extra: { anything: true } });
  assert.equal(r.json.spec.source, { git: 'https://example.com/repo' });
  const numeric = await create({ ...GOOD, port: 8080, source: { image: 'nginx' }, target: { ip: '10.0.0.2' } });
  assert.is(numeric.status, 201, numeric.text);
  assert.is(numeric.json.spec.port, 8080);
});

for (const bad of BAD) {
  test(`${bad.keyword}: a violating object is a 422 naming ${bad.field}`, async () => {
    const spec: Record<string, unknown> = { ...GOOD, ...bad.spec };
    for (const [k, v] of Object.entries(spec)) if (v === undefined) delete spec[k];
    const r = await create(spec);
    assert.is(r.status, 422, r.text);
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.reason, 'Invalid');
    const causes = (r.json.details?.causes ?? []) as Cause[];
    assert.equal(causes.map((c) => c.field), [bad.field], JSON.stringify(causes));
    assert.match(causes[0]!.message, bad.message);
    assert.match(r.json.message, bad.field);
  });
}

test('a merge patch that breaks a keyword is refused the same way, and the stored object is unchanged', async () => {
  const c = await create(GOOD);
  assert.is(c.status, 201, c.text);
  const path = `${BASE}/${c.json.metadata.name}`;
  const p = await server!.request('PATCH', path, { spec: { source: { image: 'nginx' } } }, { 'content-type': 'application/merge-patch+json' });
  assert.is(p.status, 422, p.text);
  assert.equal((p.json.details.causes as Cause[]).map((x) => x.field), ['spec.source']);
  assert.equal((await server!.request('GET', path)).json.spec.source, GOOD.source);
});

test('CRD validation: a junctor that is not a list of schemas is named', async () => {
  const r = await server!.request('POST', CRDS, {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `bads.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'bads', kind: 'Bad' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', oneOf: { required: ['a'] }, not: { type: 'nonsense' } } } } } }],
    },
  });
  assert.is(r.status, 422, r.text);
  const fields = (r.json.details.causes as Cause[]).map((x) => x.field).sort();
  assert.equal(fields, [
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].not.type',
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf',
  ]);
});

test.run();
