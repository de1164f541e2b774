// The spec's Dry run rules through the real apiserver: dryRun=All runs every stage (admission,
// patch merge, defaulting, validation) and returns the would-be object with the normal code, but
// stores nothing: no watch event, no version bump, no generated name taken. Other values are 400.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

forEachEngine('dry run', (test, ctx) => {
  const ns = uniqueName('dry');
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const pods = `/api/v1/namespaces/${ns}/pods`;
  /**
   * What the namespace's ConfigMaps are: each one's name and resourceVersion. (Not the list's own
   * resourceVersion: with etcd that is the store's revision, which any other write moves, e.g.
   * the apiserver's endpoint lease renewal.)
   */
  const listState = async (path = cms) =>
    ((await ctx().server.request('GET', path)).json.items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`).join(',');

  test('setup: a namespace and a configmap', async () => {
    const { server } = ctx();
    assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    assert.is((await server.request('POST', cms, { metadata: { name: 'base' }, data: { a: '1' } })).status, 201);
  });

  test('dry-run create/update/patch/delete leave the watch silent and the stored objects as they were; a real write is seen', async () => {
    const { server } = ctx();
    const before = await listState();
    const w = await openWatch(server, `${cms}?watch=1&resourceVersion=${(await server.request('GET', cms)).json.metadata.resourceVersion as string}`);
    const created = await server.request('POST', `${cms}?dryRun=All`, { metadata: { name: 'ghost' }, data: { x: 'y' } });
    assert.is(created.status, 201, created.text);
    assert.is(created.json.metadata.name, 'ghost');
    assert.ok(created.json.metadata.uid && created.json.metadata.creationTimestamp, 'server fields are filled in');
    const put = await server.request('PUT', `${cms}/base?dryRun=All`, { metadata: { name: 'base' }, data: { a: 'put' } });
    assert.is(put.status, 200, put.text);
    assert.equal(put.json.data, { a: 'put' });
    const merged = await server.request('PATCH', `${cms}/base?dryRun=All`, { data: { b: '2' } }, MERGE);
    assert.is(merged.status, 200, merged.text);
    assert.equal(merged.json.data, { a: '1', b: '2' }, 'the patch was merged into the stored object');
    const jp = await server.request('PATCH', `${cms}/base?dryRun=All`, [{ op: 'replace', path: '/data/a', value: 'jp' }], JSON_PATCH);
    assert.is(jp.status, 200, jp.text);
    assert.is(jp.json.data.a, 'jp');
    const del = await server.request('DELETE', `${cms}/base?dryRun=All`);
    assert.is(del.status, 200, del.text);
    const delBody = await server.request('DELETE', `${cms}/base`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
    assert.is(delBody.status, 200, delBody.text);

    assert.is(await listState(), before, 'no ConfigMap was created, changed or deleted');
    assert.is((await server.request('GET', `${cms}/ghost`)).status, 404, 'the dry-run create stored nothing');
    assert.equal((await server.request('GET', `${cms}/base`)).json.data, { a: '1' }, 'the object is unchanged and still there');

    const real = await server.request('POST', cms, { metadata: { name: 'real' } });
    assert.is(real.status, 201);
    const events = await w.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED real'], 'only the real write was seen');
    assert.is(events[0]!.object.metadata.resourceVersion, real.json.metadata.resourceVersion);
    w.close();
  });

  test('defaulting and validation run: a dry-run pod comes back defaulted, an invalid one is 422', async () => {
    const { server } = ctx();
    const r = await server.request('POST', `${pods}?dryRun=All`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.is(r.status, 201, r.text);
    assert.is(r.json.spec.restartPolicy, 'Always');
    assert.is(r.json.status.phase, 'Pending');
    const bad = await server.request('POST', `${pods}?dryRun=All`, { metadata: { name: 'p' }, spec: { containers: [] } });
    assert.is(bad.status, 422, bad.text);
    const badPatch = await server.request('PATCH', `${cms}/base?dryRun=All`, { metadata: { name: 'renamed' } }, MERGE);
    assert.is(badPatch.status, 400);
  });

  test('a dry-run create of an existing name is 409, as the real one would be', async () => {
    const r = await ctx().server.request('POST', `${cms}?dryRun=All`, { metadata: { name: 'base' } });
    assert.is(r.status, 409);
    assert.is(r.json.reason, 'AlreadyExists');
  });

  test('generateName: the dry-run object has a generated name that is not taken; a later real create is unaffected', async () => {
    const { server } = ctx();
    const before = await listState();
    const dry = await server.request('POST', `${cms}?dryRun=All`, { metadata: { generateName: 'gen-' } });
    assert.is(dry.status, 201);
    assert.match(dry.json.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.is((await server.request('GET', `${cms}/${dry.json.metadata.name}`)).status, 404);
    assert.is(await listState(), before);
    const real = await server.request('POST', cms, { metadata: { generateName: 'gen-' } });
    assert.is(real.status, 201);
    assert.match(real.json.metadata.name, /^gen-[a-z0-9]{5}$/);
    const list = (await server.request('GET', cms)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.equal(list.filter((n: string) => n.startsWith('gen-')), [real.json.metadata.name]);
  });

  test('deletecollection honours dryRun=All: it answers with the objects and removes none', async () => {
    const { server } = ctx();
    const before = (await server.request('GET', cms)).json;
    const r = await server.request('DELETE', `${cms}?dryRun=All`);
    assert.is(r.status, 200, r.text);
    assert.is(r.json.items.length, before.items.length);
    const after = (await server.request('GET', cms)).json;
    assert.is(after.items.length, before.items.length);
    assert.is(after.metadata.resourceVersion, before.metadata.resourceVersion);
  });

  test('any dryRun value other than All is a 400, on every verb', async () => {
    const { server } = ctx();
    const calls: [string, string, unknown?, Record<string, string>?][] = [
      ['POST', `${cms}?dryRun=Some`, { metadata: { name: 'x' } }],
      ['PUT', `${cms}/base?dryRun=true`, { metadata: { name: 'base' } }],
      ['PATCH', `${cms}/base?dryRun=all`, { data: {} }, MERGE],
      ['DELETE', `${cms}/base?dryRun=1`],
      ['DELETE', cms + '?dryRun=None'],
      ['DELETE', `${cms}/base`, { kind: 'DeleteOptions', dryRun: ['Everything'] }],
    ];
    for (const [method, path, body, headers] of calls) {
      const r = await server.request(method, path, body, headers);
      assert.is(r.status, 400, `${method} ${path}`);
      assert.match(r.json.message, /dryRun.*All/);
    }
    assert.equal((await server.request('GET', `${cms}/base`)).json.data, { a: '1' });
  });

  test('built-in admission plugins support dry run and still decide (NamespaceLifecycle)', async () => {
    const { server } = ctx();
    const missing = await server.request('POST', `/api/v1/namespaces/${uniqueName('nope')}/configmaps?dryRun=All`, { metadata: { name: 'x' } });
    assert.is(missing.status, 404, missing.text);
    const immortal = await server.request('DELETE', '/api/v1/namespaces/default?dryRun=All');
    assert.is(immortal.status, 403, immortal.text);
    const ok = await server.request('DELETE', `/api/v1/namespaces/${ns}?dryRun=All`);
    assert.is(ok.status, 200, ok.text);
    assert.is(ok.json.status.phase, 'Terminating', 'the would-be namespace is Terminating');
    const stored = (await server.request('GET', `/api/v1/namespaces/${ns}`)).json;
    assert.is(stored.status.phase, 'Active');
    assert.is(stored.metadata.deletionTimestamp, undefined);
  });
});
