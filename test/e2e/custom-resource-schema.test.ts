// Custom resource schemas and CRD validation: with an OpenAPI schema objects are validated (422
// naming the field), defaulted and pruned of unknown fields; without one they are unstructured
// (everything kept, every key a struct field and every list atomic for apply). A CRD itself is
// checked: name = <plural>.<group>, one storage version, known scope and schema types.
import * as assert from 'uvu/assert';
import type { ApiServerProcess } from '../helpers/apiserver.js';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'], default: 'blue' },
        ports: {
          type: 'array',
          'x-svc-list-type': 'map',
          'x-svc-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        free: { type: 'object', 'x-svc-preserve-unknown-fields': true },
      },
    },
  },
};

function crd(group: string, plural: string, kind: string, schema?: object): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, ...(schema ? { schema: { openAPIV3Schema: schema } } : {}) }],
    },
  };
}

async function served(server: ApiServerProcess, path: string): Promise<void> {
  const deadline = Date.now() + 1000;
  while ((await server.request('GET', path)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${path} not served within 1 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const causes = (r: { json: { details?: { causes?: { field: string }[] } } }) => (r.json.details?.causes ?? []).map((c) => c.field);

forEachEngine('custom resources: schemas and CRD validation', (test, ctx) => {
  const group = `${uniqueName('s')}.example.com`;
  const typed = `/apis/${group}/v1/namespaces/default/shapes`;
  const loose = `/apis/${group}/v1/namespaces/default/blobs`;

  test('setup: one CRD with a schema, one without', async () => {
    const { server } = ctx();
    assert.is((await server.request('POST', CRDS, crd(group, 'shapes', 'Shape', SCHEMA))).status, 201);
    assert.is((await server.request('POST', CRDS, crd(group, 'blobs', 'Blob'))).status, 201);
    await served(server, typed);
    await served(server, loose);
  });

  test('with a schema: an invalid object is a 422 naming each field', async () => {
    const { server } = ctx();
    const r = await server.request('POST', typed, { apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name: 'bad' }, spec: { size: 'big', color: 'green' } });
    assert.is(r.status, 422, r.text);
    assert.is(r.json.reason, 'Invalid');
    assert.equal(causes(r).sort(), ['spec.color', 'spec.size']);
    const missing = await server.request('POST', typed, { apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name: 'bad2' }, spec: {} });
    assert.is(missing.status, 422);
    assert.equal(causes(missing), ['spec.size']);
    const range = await server.request('POST', typed, { apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name: 'bad3' }, spec: { size: 11 } });
    assert.is(range.status, 422);
    assert.match(range.json.message, /spec\.size: Invalid value: 11: must be less than or equal to 10/);
  });

  test('with a schema: unknown fields are pruned, preserve-unknown parts kept, defaults filled', async () => {
    const { server } = ctx();
    const r = await server.request('POST', typed, {
      apiVersion: `${group}/v1`,
      kind: 'Shape',
      metadata: { name: 'pruned' },
      spec: { size: 2, extra: true, free: { anything: { goes: 1 } } },
      topLevel: 'x',
    });
    assert.is(r.status, 201, r.text);
    assert.equal(r.json.spec, { size: 2, color: 'blue', free: { anything: { goes: 1 } } });
    assert.is(r.json.topLevel, undefined);
    assert.equal((await server.request('GET', `${typed}/pruned`)).json.spec, r.json.spec, 'stored pruned');
  });

  test('without a schema: every field is kept as sent', async () => {
    const { server } = ctx();
    const body = { apiVersion: `${group}/v1`, kind: 'Blob', metadata: { name: 'kept' }, spec: { a: [1, { b: 2 }], c: { d: null } }, other: 'yes' };
    const r = await server.request('POST', loose, body);
    assert.is(r.status, 201, r.text);
    assert.equal(r.json.spec, body.spec);
    assert.is(r.json.other, 'yes');
  });

  test('apply: without a schema lists are atomic; with a schema the list-map markers merge by key', async () => {
    const { server } = ctx();
    const blob = (tags: string[]) => JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Blob', metadata: { name: 'applied' }, spec: { tags } });
    assert.is((await server.request('PATCH', `${loose}/applied?fieldManager=one`, blob(['a', 'b']), APPLY)).status, 201);
    const two = await server.request('PATCH', `${loose}/applied?fieldManager=two&force=true`, blob(['c']), APPLY);
    assert.is(two.status, 200, two.text);
    assert.equal(two.json.spec.tags, ['c'], 'atomic list replaced whole');
    const shape = (ports: object[]) => JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name: 'ports' }, spec: { size: 1, ports } });
    assert.is((await server.request('PATCH', `${typed}/ports?fieldManager=one`, shape([{ name: 'http', port: 80 }]), APPLY)).status, 201);
    const merged = await server.request('PATCH', `${typed}/ports?fieldManager=two`, shape([{ name: 'https', port: 443 }]), APPLY);
    assert.is(merged.status, 200, merged.text);
    assert.equal(merged.json.spec.ports.map((p: { name: string }) => p.name).sort(), ['http', 'https'], 'map list merged by key');
  });

  test('CRD validation: name must be <plural>.<group>; group needs a dot; exactly one storage version; known scope', async () => {
    const { server } = ctx();
    const wrongName = crd('other.example.com', 'things', 'Thing');
    (wrongName['metadata'] as { name: string }).name = 'things.example.com';
    const r1 = await server.request('POST', CRDS, wrongName);
    assert.is(r1.status, 422, r1.text);
    assert.ok(causes(r1).includes('metadata.name'), r1.text);
    assert.match(r1.json.message, /must be spec\.names\.plural\+"\."\+spec\.group/);
    const noDot = await server.request('POST', CRDS, crd('nodot', 'things', 'Thing'));
    assert.is(noDot.status, 422);
    assert.ok(causes(noDot).includes('spec.group'));
    const two = crd('two.example.com', 'things', 'Thing');
    const spec = two['spec'] as { versions: object[]; scope: string };
    spec.versions.push({ name: 'v2', served: true, storage: true });
    spec.scope = 'Global';
    const r3 = await server.request('POST', CRDS, two);
    assert.is(r3.status, 422);
    assert.ok(causes(r3).includes('spec.versions'), r3.text);
    assert.ok(causes(r3).includes('spec.scope'), r3.text);
  });

  test('CRD validation: bad schema types, list markers and printer columns are named', async () => {
    const { server } = ctx();
    const bad = crd('bad.example.com', 'things', 'Thing', {
      type: 'object',
      properties: { spec: { type: 'dict' }, tags: { type: 'array', 'x-svc-list-type': 'map', items: { type: 'string' } } },
    });
    ((bad['spec'] as { versions: Record<string, unknown>[] }).versions[0]!)['additionalPrinterColumns'] = [{ name: 'X', type: 'text', jsonPath: '.spec.x' }];
    const r = await server.request('POST', CRDS, bad);
    assert.is(r.status, 422, r.text);
    const fields = causes(r);
    for (const f of [
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
      'spec.versions[0].schema.openAPIV3Schema.properties[tags].x-svc-list-map-keys',
      'spec.versions[0].schema.openAPIV3Schema.properties[tags].items.type',
      'spec.versions[0].additionalPrinterColumns[0].type',
    ]) {
      assert.ok(fields.includes(f), `${f} in ${JSON.stringify(fields)}`);
    }
  });

  test('CRD validation: scope cannot change; a name already served in the group is not accepted', async () => {
    const { server } = ctx();
    const c = (await server.request('GET', `${CRDS}/shapes.${group}`)).json;
    c.spec.scope = 'Cluster';
    const u = await server.request('PUT', `${CRDS}/shapes.${group}`, c);
    assert.is(u.status, 422);
    assert.ok(causes(u).includes('spec.scope'));
    // Another CRD whose kind is already Shape in this group: NamesAccepted=False, not served.
    const dup = crd(group, 'shapes2', 'Shape');
    assert.is((await server.request('POST', CRDS, dup)).status, 201);
    const deadline = Date.now() + 2000;
    for (;;) {
      const got = (await server.request('GET', `${CRDS}/shapes2.${group}`)).json;
      const names = (got.status?.conditions ?? []).find((x: { type: string }) => x.type === 'NamesAccepted');
      if (names) {
        assert.is(names.status, 'False');
        assert.is(names.reason, 'KindConflict');
        break;
      }
      assert.ok(Date.now() < deadline, 'no NamesAccepted condition');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.is((await server.request('GET', `/apis/${group}/v1/namespaces/default/shapes2`)).status, 404);
  });
});
