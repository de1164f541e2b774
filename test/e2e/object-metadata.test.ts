// Metadata rules of the spec's "Common object metadata" table, through the real apiserver.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data: { a: '1' },
});

forEachEngine('object metadata', (test, ctx) => {
  const base = '/api/v1/namespaces/default/configmaps';

  test('create returns 201 with uid, creationTimestamp and an opaque resourceVersion', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const r = await server.request('POST', base, cm(name));
    assert.is(r.status, 201, r.text);
    assert.is(r.json.metadata.name, name);
    assert.is(r.json.metadata.namespace, 'default');
    assert.match(r.json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(r.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.type(r.json.metadata.resourceVersion, 'string');
    const g = await server.request('GET', `${base}/${name}`);
    assert.is(g.status, 200);
    assert.equal(g.json, r.json);
  });

  test('uid is random: two objects of the same name over time get different uids', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const a = await server.request('POST', base, cm(name));
    await server.request('DELETE', `${base}/${name}`);
    const b = await server.request('POST', base, cm(name));
    assert.is(b.status, 201);
    assert.is.not(a.json.metadata.uid, b.json.metadata.uid);
  });

  test('name is unique per scope: a second create is 409 AlreadyExists', async () => {
    const { server } = ctx();
    const name = uniqueName();
    assert.is((await server.request('POST', base, cm(name))).status, 201);
    const r = await server.request('POST', base, cm(name));
    assert.is(r.status, 409);
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.reason, 'AlreadyExists');
    assert.is(r.json.details.name, name);
    // The same name in another namespace is a different object.
    const other = await server.request('POST', '/api/v1/namespaces/svc-public/configmaps', cm(name));
    assert.is(other.status, 201, other.text);
  });

  test('generateName produces a unique random name with the prefix', async () => {
    const { server } = ctx();
    const names = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await server.request('POST', base, { metadata: { generateName: 'gen-' }, data: {} });
      assert.is(r.status, 201, r.text);
      assert.match(r.json.metadata.name, /^gen-[a-z0-9]{5}$/);
      names.add(r.json.metadata.name);
    }
    assert.is(names.size, 5);
  });

  test('name validation: an invalid name is 422 Invalid naming the field', async () => {
    const { server } = ctx();
    const r = await server.request('POST', base, cm('Not_Valid'));
    assert.is(r.status, 422);
    assert.is(r.json.reason, 'Invalid');
    assert.ok(r.json.details.causes.some((c: { field: string }) => c.field === 'metadata.name'), r.text);
    const missing = await server.request('POST', base, { metadata: {}, data: {} });
    assert.is(missing.status, 422);
    assert.ok(missing.json.details.causes.some((c: { field: string }) => c.field === 'metadata.name'), missing.text);
  });

  test('names that are too long are 422', async () => {
    const { server } = ctx();
    const r = await server.request('POST', base, cm('a'.repeat(254)));
    assert.is(r.status, 422, r.text);
    const ns = await server.request('POST', '/api/v1/namespaces', { metadata: { name: 'n'.repeat(64) } });
    assert.is(ns.status, 422, ns.text);
  });

  test('labels, annotations, ownerReferences and finalizers are stored as given', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const meta = {
      labels: { app: 'web', 'example.com/tier': 'front' },
      annotations: { note: 'free text: anything' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '6a3b7c6e-0000-4000-8000-000000000001' }],
      finalizers: ['example.com/keep'],
    };
    const r = await server.request('POST', base, cm(name, meta));
    assert.is(r.status, 201, r.text);
    for (const k of Object.keys(meta)) assert.equal(r.json.metadata[k], (meta as Record<string, unknown>)[k]);
    // Clean up: remove the finalizer so the object can go.
    await server.request('DELETE', `${base}/${name}`);
    await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
  });

  test('invalid label values are 422 with the label field', async () => {
    const { server } = ctx();
    const r = await server.request('POST', base, cm(uniqueName(), { labels: { app: 'has spaces' } }));
    assert.is(r.status, 422, r.text);
    assert.ok(r.json.details.causes.some((c: { field: string }) => c.field.startsWith('metadata.labels')), r.text);
  });

  test('resourceVersion changes on every update and PUT with a stale one is 409 Conflict', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const created = (await server.request('POST', base, cm(name))).json;
    const first = await server.request('PUT', `${base}/${name}`, { ...created, data: { a: '2' } });
    assert.is(first.status, 200, first.text);
    assert.is.not(first.json.metadata.resourceVersion, created.metadata.resourceVersion);
    const stale = await server.request('PUT', `${base}/${name}`, { ...created, data: { a: '3' } });
    assert.is(stale.status, 409);
    assert.is(stale.json.reason, 'Conflict');
    const now = (await server.request('GET', `${base}/${name}`)).json;
    assert.equal(now.data, { a: '2' });
  });

  test('PUT keeps uid and creationTimestamp whatever the body says', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const created = (await server.request('POST', base, cm(name))).json;
    const r = await server.request('PUT', `${base}/${name}`, {
      ...created,
      metadata: { ...created.metadata, uid: 'forged', creationTimestamp: '2000-01-01T00:00:00Z' },
    });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.metadata.uid, created.metadata.uid);
    assert.is(r.json.metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  test('a create with resourceVersion set is rejected', async () => {
    const { server } = ctx();
    const r = await server.request('POST', base, cm(uniqueName(), { resourceVersion: '5' }));
    assert.is(r.status, 400, r.text);
  });

  test('merge patch and JSON patch change only what they name', async () => {
    const { server } = ctx();
    const name = uniqueName();
    await server.request('POST', base, cm(name, { labels: { keep: 'yes' } }));
    const m = await server.request('PATCH', `${base}/${name}`, { data: { b: '2' } }, { 'content-type': 'application/merge-patch+json' });
    assert.is(m.status, 200, m.text);
    assert.equal(m.json.data, { a: '1', b: '2' });
    assert.equal(m.json.metadata.labels, { keep: 'yes' });
    const j = await server.request('PATCH', `${base}/${name}`, [{ op: 'remove', path: '/data/a' }], { 'content-type': 'application/json-patch+json' });
    assert.is(j.status, 200, j.text);
    assert.equal(j.json.data, { b: '2' });
    const bad = await server.request('PATCH', `${base}/${name}`, [{ op: 'test', path: '/data/b', value: 'x' }], { 'content-type': 'application/json-patch+json' });
    assert.is(bad.status, 422, bad.text);
  });

  test('cluster-scoped objects have no namespace; namespaced ones need an existing namespace (404)', async () => {
    const { server } = ctx();
    const ns = uniqueName('ns');
    const r = await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns, namespace: 'ignored' } });
    assert.is(r.status, 201, r.text);
    assert.is(r.json.metadata.namespace, undefined);
    const missing = await server.request('POST', `/api/v1/namespaces/${uniqueName('nope')}/configmaps`, cm('x'));
    assert.is(missing.status, 404, missing.text);
    assert.is(missing.json.reason, 'NotFound');
  });

  test('get of a missing object is 404 NotFound with a Status body', async () => {
    const { server } = ctx();
    const r = await server.request('GET', `${base}/does-not-exist`);
    assert.is(r.status, 404);
    assert.equal(
      { kind: r.json.kind, apiVersion: r.json.apiVersion, status: r.json.status, reason: r.json.reason, code: r.json.code },
      { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 },
    );
    assert.match(r.json.message, /does-not-exist/);
  });
});
