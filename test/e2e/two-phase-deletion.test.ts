// The spec's deletion state table (Live -> Finalizing -> Removed) and namespace lifecycle rules.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };

forEachEngine('two-phase deletion', (test, ctx) => {
  const base = '/api/v1/namespaces/default/configmaps';

  test('Live -> Removed: delete without finalizers removes the object at once', async () => {
    const { server } = ctx();
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name } });
    const d = await server.request('DELETE', `${base}/${name}`);
    assert.is(d.status, 200, d.text);
    assert.is((await server.request('GET', `${base}/${name}`)).status, 404);
  });

  test('Live -> Finalizing: delete with finalizers sets deletionTimestamp and keeps the object', async () => {
    const { server } = ctx();
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name, finalizers: ['example.com/a', 'example.com/b'] } });
    const d = await server.request('DELETE', `${base}/${name}`);
    assert.is(d.status, 200, d.text);
    assert.type(d.json.metadata.deletionTimestamp, 'string');
    const g = await server.request('GET', `${base}/${name}`);
    assert.is(g.status, 200);
    assert.type(g.json.metadata.deletionTimestamp, 'string');
  });

  test('Finalizing -> Removed only when the last finalizer is removed', async () => {
    const { server } = ctx();
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name, finalizers: ['example.com/a', 'example.com/b'] } });
    await server.request('DELETE', `${base}/${name}`);
    const one = await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: ['example.com/b'] } }, MERGE);
    assert.is(one.status, 200, one.text);
    assert.is((await server.request('GET', `${base}/${name}`)).status, 200);
    const last = await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: [] } }, MERGE);
    assert.is(last.status, 200, last.text);
    assert.is((await server.request('GET', `${base}/${name}`)).status, 404);
  });

  test('no new finalizers can be added while finalizing', async () => {
    const { server } = ctx();
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name, finalizers: ['example.com/a'] } });
    await server.request('DELETE', `${base}/${name}`);
    const r = await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: ['example.com/a', 'example.com/new'] } }, MERGE);
    assert.is(r.status, 422, r.text);
    await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: null } }, MERGE);
  });

  test('DeleteOptions: propagationPolicy Orphan and Foreground add their finalizers', async () => {
    const { server } = ctx();
    for (const [policy, finalizer] of [['Orphan', 'orphan'], ['Foreground', 'foregroundDeletion']] as const) {
      const name = uniqueName();
      await server.request('POST', base, { metadata: { name } });
      const d = await server.request('DELETE', `${base}/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy });
      assert.is(d.status, 200, d.text);
      assert.ok(d.json.metadata.finalizers.includes(finalizer), d.text);
      await server.request('PATCH', `${base}/${name}`, { metadata: { finalizers: null } }, MERGE);
      assert.is((await server.request('GET', `${base}/${name}`)).status, 404);
    }
  });

  test('DeleteOptions: preconditions on uid and resourceVersion are 409 when they do not match', async () => {
    const { server } = ctx();
    const name = uniqueName();
    const c = (await server.request('POST', base, { metadata: { name } })).json;
    const byUid = await server.request('DELETE', `${base}/${name}`, { preconditions: { uid: 'other' } });
    assert.is(byUid.status, 409, byUid.text);
    const byRv = await server.request('DELETE', `${base}/${name}`, { preconditions: { resourceVersion: '1' } });
    assert.is(byRv.status, 409, byRv.text);
    const ok = await server.request('DELETE', `${base}/${name}`, { preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion } });
    assert.is(ok.status, 200, ok.text);
  });

  test('a pod bound to a node gets a grace period; gracePeriodSeconds=0 removes it', async () => {
    const { server } = ctx();
    const name = uniqueName('pod');
    const pods = '/api/v1/namespaces/default/pods';
    const p = await server.request('POST', pods, {
      metadata: { name },
      spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.is(p.status, 201, p.text);
    const d = await server.request('DELETE', `${pods}/${name}`);
    assert.is(d.status, 200, d.text);
    assert.is(d.json.metadata.deletionGracePeriodSeconds, 30);
    assert.is((await server.request('GET', `${pods}/${name}`)).status, 200);
    const force = await server.request('DELETE', `${pods}/${name}?gracePeriodSeconds=0`);
    assert.is(force.status, 200, force.text);
    assert.is((await server.request('GET', `${pods}/${name}`)).status, 404);
  });

  test('deletecollection removes the objects matching a label selector', async () => {
    const { server } = ctx();
    const tag = uniqueName('tag');
    for (let i = 0; i < 4; i++) await server.request('POST', base, { metadata: { name: `${tag}-${i}`, labels: { batch: tag, odd: String(i % 2) } } });
    const r = await server.request('DELETE', `${base}?labelSelector=batch=${tag},odd=1`);
    assert.is(r.status, 200, r.text);
    assert.is(r.json.items.length, 2);
    const left = await server.request('GET', `${base}?labelSelector=batch=${tag}`);
    assert.equal(left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), [`${tag}-0`, `${tag}-2`]);
  });
});

forEachEngine('namespace lifecycle', (test, ctx) => {
  test('the system namespaces exist after the first start', async () => {
    const { server } = ctx();
    const r = await server.request('GET', '/api/v1/namespaces');
    const names = r.json.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    for (const n of ['default', 'svc-system', 'svc-public', 'svc-node-lease']) assert.ok(names.includes(n), `${n} missing in ${names}`);
    const d = (await server.request('GET', '/api/v1/namespaces/default')).json;
    assert.is(d.status.phase, 'Active');
  });

  test('system namespaces may not be deleted', async () => {
    const { server } = ctx();
    const r = await server.request('DELETE', '/api/v1/namespaces/default');
    assert.is(r.status, 403, r.text);
    assert.is(r.json.reason, 'Forbidden');
  });

  test('deleting a namespace makes it Terminating, refuses new objects (403) and keeps it until its finalizers are empty', async () => {
    const { server } = ctx();
    const ns = uniqueName('ns');
    await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'inside' } });
    const d = await server.request('DELETE', `/api/v1/namespaces/${ns}`);
    assert.is(d.status, 200, d.text);
    const g = await server.request('GET', `/api/v1/namespaces/${ns}`);
    assert.is(g.json.status.phase, 'Terminating');
    assert.type(g.json.metadata.deletionTimestamp, 'string');
    const refused = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' } });
    assert.is(refused.status, 403, refused.text);
    // The namespace controller (a later component) empties it; then it clears spec.finalizers via finalize.
    await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/inside`);
    const fin = await server.request('PUT', `/api/v1/namespaces/${ns}/finalize`, { ...g.json, spec: { finalizers: [] } });
    assert.is(fin.status, 200, fin.text);
    assert.is((await server.request('GET', `/api/v1/namespaces/${ns}`)).status, 404);
  });

  test('spec.finalizers of a namespace only change through finalize', async () => {
    const { server } = ctx();
    const ns = uniqueName('ns');
    const c = (await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).json;
    assert.equal(c.spec.finalizers, ['svc']);
    const u = await server.request('PUT', `/api/v1/namespaces/${ns}`, { ...c, spec: { finalizers: [] } });
    assert.is(u.status, 200, u.text);
    assert.equal(u.json.spec.finalizers, ['svc']);
  });
});
