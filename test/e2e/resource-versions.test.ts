// The spec's resource-version tables for get, list and watch, one test per cell.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

forEachEngine('resource versions', (test, ctx) => {
  const ns = 'svc-public';
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const create = async (name: string, data: Record<string, string> = { v: '1' }) =>
    (await ctx().server.request('POST', base, { metadata: { name, labels: { rvtest: 'yes' } }, data })).json;
  const update = async (name: string, data: Record<string, string>) =>
    (await ctx().server.request('PATCH', `${base}/${name}`, { data }, { 'content-type': 'application/merge-patch+json' })).json;
  const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((i) => i.metadata.name);

  test('get, resourceVersion unset: Most Recent', async () => {
    const name = uniqueName();
    await create(name);
    await update(name, { v: '2' });
    const g = await ctx().server.request('GET', `${base}/${name}`);
    assert.is(g.json.data.v, '2');
  });

  test('get, resourceVersion=0: Any (served, possibly from cache)', async () => {
    const name = uniqueName();
    await create(name);
    const g = await ctx().server.request('GET', `${base}/${name}?resourceVersion=0`);
    assert.is(g.status, 200, g.text);
    assert.is(g.json.metadata.name, name);
  });

  test('get, resourceVersion=N: Not older than N', async () => {
    const name = uniqueName();
    const c = await create(name);
    const u = await update(name, { v: '2' });
    const g = await ctx().server.request('GET', `${base}/${name}?resourceVersion=${c.metadata.resourceVersion}`);
    assert.is(g.status, 200, g.text);
    // Any version not older than N: the created one (the cache may not have seen the update yet) or the updated one.
    assert.ok([c.metadata.resourceVersion, u.metadata.resourceVersion].includes(g.json.metadata.resourceVersion), g.text);
    assert.is(g.json.data.v, g.json.metadata.resourceVersion === u.metadata.resourceVersion ? '2' : c.data?.v, 'the data of that version');
  });

  test('get, resourceVersion too new: 504 with Retry-After after a short wait', async () => {
    const name = uniqueName();
    await create(name);
    const g = await ctx().server.request('GET', `${base}/${name}?resourceVersion=999999999`);
    assert.is(g.status, 504, g.text);
    assert.is(g.json.reason, 'Timeout');
    assert.ok(g.headers['retry-after'], 'Retry-After header');
    assert.match(g.json.message, /[Tt]oo large resource version/);
  });

  test('resourceVersion that is not one of ours is 400', async () => {
    const g = await ctx().server.request('GET', `${base}?resourceVersion=abc`);
    assert.is(g.status, 400, g.text);
  });

  test('list, limit unset, resourceVersion unset: Most Recent', async () => {
    const name = uniqueName();
    await create(name);
    const l = await ctx().server.request('GET', base);
    assert.ok(names(l.json).includes(name));
    assert.type(l.json.metadata.resourceVersion, 'string');
  });

  test('list, limit unset, resourceVersion=0: Any', async () => {
    const l = await ctx().server.request('GET', `${base}?resourceVersion=0`);
    assert.is(l.status, 200, l.text);
    assert.ok(Array.isArray(l.json.items));
  });

  test('list, limit unset, resourceVersion=N: Not older than N', async () => {
    const name = uniqueName();
    const c = await create(name);
    const l = await ctx().server.request('GET', `${base}?resourceVersion=${c.metadata.resourceVersion}`);
    assert.is(l.status, 200, l.text);
    assert.ok(names(l.json).includes(name));
    assert.ok(Number(l.json.metadata.resourceVersion) >= Number(c.metadata.resourceVersion));
    const future = await ctx().server.request('GET', `${base}?resourceVersion=999999999`);
    assert.is(future.status, 504, future.text);
  });

  test('list, limit set, continue unset, resourceVersion unset: Most Recent', async () => {
    const name = uniqueName('aaa');
    await create(name);
    const l = await ctx().server.request('GET', `${base}?limit=500`);
    assert.ok(names(l.json).includes(name));
  });

  test('list, limit set, continue unset, resourceVersion=0: Any', async () => {
    const l = await ctx().server.request('GET', `${base}?limit=1&resourceVersion=0`);
    assert.is(l.status, 200, l.text);
    assert.ok(l.json.items.length <= 1);
  });

  test('list, limit set, continue unset, resourceVersion=N: Exact (the snapshot at N)', async () => {
    const a = uniqueName('exact');
    const c = await create(a, { v: 'old' });
    const rv = c.metadata.resourceVersion;
    await update(a, { v: 'new' });
    const b = uniqueName('exact');
    await create(b);
    const l = await ctx().server.request('GET', `${base}?limit=1000&resourceVersion=${rv}`);
    assert.is(l.status, 200, l.text);
    assert.is(l.json.metadata.resourceVersion, rv);
    const items = l.json.items as { metadata: { name: string }; data: { v: string } }[];
    assert.is(items.find((i) => i.metadata.name === a)?.data.v, 'old');
    assert.not.ok(items.some((i) => i.metadata.name === b));
  });

  test('list, limit and continue set, resourceVersion unset: Continue Token, Exact', async () => {
    const prefix = uniqueName('ct');
    for (let i = 0; i < 3; i++) await create(`${prefix}-${i}`);
    const first = await ctx().server.request('GET', `${base}?limit=1&labelSelector=rvtest=yes`);
    assert.ok(first.json.metadata.continue);
    await create(`${prefix}-late`);
    const second = await ctx().server.request('GET', `${base}?limit=1000&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.is(second.status, 200, second.text);
    assert.is(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.not.ok(names(second.json).includes(`${prefix}-late`));
  });

  test('list, limit and continue set, resourceVersion=0: treated as Continue Token, Exact', async () => {
    const first = await ctx().server.request('GET', `${base}?limit=1`);
    assert.ok(first.json.metadata.continue, first.text);
    const second = await ctx().server.request('GET', `${base}?limit=1&resourceVersion=0&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.is(second.status, 200, second.text);
    assert.is(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
  });

  test('list, limit and continue set, other resourceVersion: 400', async () => {
    const first = await ctx().server.request('GET', `${base}?limit=1`);
    const r = await ctx().server.request('GET', `${base}?limit=1&resourceVersion=${first.json.metadata.resourceVersion}&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.is(r.status, 400, r.text);
    assert.is(r.json.reason, 'BadRequest');
  });

  test('watch, resourceVersion unset: Get State and Start at Most Recent', async () => {
    const name = uniqueName('w');
    await create(name);
    const w = await openWatch(ctx().server, `${base}?watch=1&fieldSelector=metadata.name=${name}`);
    const [first] = await w.waitFor(1);
    assert.is(first!.type, 'ADDED');
    assert.is(first!.object.metadata.name, name);
    await update(name, { v: '9' });
    const [, second] = await w.waitFor(2);
    assert.is(second!.type, 'MODIFIED');
    assert.is(second!.object.data.v, '9');
    w.close();
  });

  test('watch, resourceVersion=0: Get State and Start at Any', async () => {
    const name = uniqueName('w');
    await create(name);
    const w = await openWatch(ctx().server, `${base}?watch=1&resourceVersion=0&fieldSelector=metadata.name=${name}`);
    const [first] = await w.waitFor(1);
    assert.is(first!.type, 'ADDED');
    w.close();
  });

  test('watch, resourceVersion=N: Start at Exact (only changes after N, in order)', async () => {
    const name = uniqueName('w');
    const c = await create(name);
    await update(name, { v: '2' });
    await update(name, { v: '3' });
    await ctx().server.request('DELETE', `${base}/${name}`);
    const w = await openWatch(ctx().server, `${base}?watch=1&resourceVersion=${c.metadata.resourceVersion}&fieldSelector=metadata.name=${name}`);
    const evs = await w.waitFor(3);
    assert.equal(evs.map((e) => e.type), ['MODIFIED', 'MODIFIED', 'DELETED']);
    assert.equal(evs.map((e) => e.object.data.v), ['2', '3', '3']);
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, `increasing: ${rvs}`);
    w.close();
  });
});
