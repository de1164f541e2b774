// The Table representation through the real apiserver: get, list and watch; includeObject;
// custom columns for pods, deployments and namespaces; the default columns for other kinds;
// list metadata (resourceVersion, continue, remainingItemCount) carried on the Table.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

const TABLE = 'application/json;as=Table;g=meta.svc;v=v1beta1';
const AS_TABLE = { accept: TABLE };

forEachEngine('table', (test, ctx) => {
  const ns = uniqueName('tbl');
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const deploys = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const limitranges = `/api/v1/namespaces/${ns}/limitranges`;
  const get = (path: string) => ctx().server.request('GET', path, undefined, AS_TABLE);
  const names = (t: { columnDefinitions: { name: string }[] }) => t.columnDefinitions.map((c) => c.name);

  test('setup: a namespace, pods, a deployment and a limitrange', async () => {
    const { server } = ctx();
    assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    for (const name of ['p1', 'p2', 'p3']) {
      const r = await server.request('POST', pods, { metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'busybox' }] } });
      assert.is(r.status, 201, r.text);
    }
    const labels = { app: 'web' };
    const d = await server.request('POST', deploys, {
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.is(d.status, 201, d.text);
    assert.is((await server.request('POST', limitranges, { metadata: { name: 'lr' }, spec: { limits: [] } })).status, 201);
  });

  test('list as Table: kind, apiVersion, column definitions with name, type, format, description and priority', async () => {
    const r = await get(pods);
    assert.is(r.status, 200);
    assert.is(r.headers['content-type'], TABLE);
    assert.is(r.json.kind, 'Table');
    assert.is(r.json.apiVersion, 'meta.svc/v1beta1');
    for (const c of r.json.columnDefinitions) {
      assert.type(c.name, 'string');
      assert.type(c.type, 'string');
      assert.type(c.format, 'string');
      assert.type(c.description, 'string');
      assert.type(c.priority, 'number');
    }
    assert.equal(r.json.rows.map((row: { cells: unknown[] }) => row.cells[0]), ['p1', 'p2', 'p3']);
  });

  test('pod columns: Name, Ready, Status, Restarts, Age, then wide IP, Node, Nominated Node, Readiness Gates', async () => {
    const r = await get(`${pods}/p1`);
    assert.equal(names(r.json), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    assert.equal(r.json.columnDefinitions.map((c: { priority: number }) => c.priority), [0, 0, 0, 0, 0, 1, 1, 1, 1]);
    const [name, ready, status, restarts, age, ip, node] = r.json.rows[0].cells;
    assert.equal([name, ready, status, restarts, ip, node], ['p1', '0/2', 'Pending', 0, '<none>', '<none>']);
    assert.match(age, /^\d+s$/);
  });

  test('deployment columns: Name, Ready, Up-to-date, Available, Age (+ wide Containers, Images, Selector)', async () => {
    const r = await get(deploys);
    assert.equal(names(r.json), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
    const cells = r.json.rows[0].cells;
    assert.equal([cells[0], cells[1], cells[2], cells[3], cells[5], cells[6], cells[7]], ['web', '0/3', 0, 0, 'c', 'nginx', 'app=web']);
  });

  test('namespace columns: Name, Status, Age', async () => {
    const r = await get(`/api/v1/namespaces/${ns}`);
    assert.equal(names(r.json), ['Name', 'Status', 'Age']);
    assert.equal(r.json.rows[0].cells.slice(0, 2), [ns, 'Active']);
  });

  test('a kind without a definition: Name (string) and Created At (date) with the name and creationTimestamp', async () => {
    const obj = (await ctx().server.request('GET', `${limitranges}/lr`)).json;
    const r = await get(limitranges);
    assert.equal(r.json.columnDefinitions.map((c: { name: string; type: string }) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
    assert.equal(r.json.rows[0].cells, ['lr', obj.metadata.creationTimestamp]);
  });

  test('includeObject: Metadata (default) is a PartialObjectMetadata, Object the whole object, None no object', async () => {
    const full = (await ctx().server.request('GET', `${pods}/p1`)).json;
    const byDefault = (await get(`${pods}/p1`)).json.rows[0].object;
    assert.equal(byDefault, { kind: 'PartialObjectMetadata', apiVersion: 'meta.svc/v1beta1', metadata: full.metadata });
    assert.equal((await get(`${pods}/p1?includeObject=Metadata`)).json.rows[0].object, byDefault);
    assert.equal((await get(`${pods}/p1?includeObject=Object`)).json.rows[0].object, full);
    const none = (await get(`${pods}?includeObject=None`)).json;
    assert.ok(none.rows.every((row: object) => !('object' in row)));
  });

  test('includeObject with another value is a 400 naming the allowed values', async () => {
    const r = await get(`${pods}?includeObject=All`);
    assert.is(r.status, 400);
    assert.match(r.json.message, /includeObject.*"None", "Metadata", "Object"/);
  });

  test('get carries the object resourceVersion; list carries resourceVersion, continue and remainingItemCount', async () => {
    const obj = (await ctx().server.request('GET', `${pods}/p2`)).json;
    assert.equal((await get(`${pods}/p2`)).json.metadata, { resourceVersion: obj.metadata.resourceVersion });
    const first = (await get(`${pods}?limit=2`)).json;
    assert.is(first.rows.length, 2);
    assert.ok(first.metadata.continue);
    assert.is(first.metadata.remainingItemCount, 1);
    const rest = (await get(`${pods}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json;
    assert.equal(rest.rows.map((row: { cells: unknown[] }) => row.cells[0]), ['p3']);
    assert.is(rest.metadata.continue, '');
    assert.is(rest.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  test('watch as Table: each event carries a one-row Table; the first one has the columns', async () => {
    const { server } = ctx();
    const w = await openWatch(server, `${pods}?watch=1&labelSelector=app=web`, AS_TABLE);
    const initial = await w.waitFor(3);
    assert.ok(initial.every((e) => e.type === 'ADDED' && e.object.kind === 'Table' && e.object.rows.length === 1));
    assert.equal(names(initial[0]!.object), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    assert.equal(initial[1]!.object.columnDefinitions, []);
    const patched = await server.request('PATCH', `${pods}/p3`, { metadata: { labels: { tier: 'x' } } }, { 'content-type': 'application/merge-patch+json' });
    await server.request('DELETE', `${pods}/p2?gracePeriodSeconds=0`);
    const [modified, deleted] = (await w.waitFor(5)).slice(3);
    assert.is(modified!.type, 'MODIFIED');
    assert.is(modified!.object.rows[0].cells[0], 'p3');
    assert.is(modified!.object.metadata.resourceVersion, patched.json.metadata.resourceVersion);
    assert.is(modified!.object.rows[0].object.kind, 'PartialObjectMetadata');
    assert.is(deleted!.type, 'DELETED');
    assert.is(deleted!.object.rows[0].cells[0], 'p2');
    w.close();
  });

  test('watch as Table honours includeObject=Object', async () => {
    const w = await openWatch(ctx().server, `${pods}?watch=1&includeObject=Object&fieldSelector=metadata.name=p1`, AS_TABLE);
    const [ev] = await w.waitFor(1);
    assert.is(ev!.object.rows[0].object.kind, 'Pod');
    assert.is(ev!.object.rows[0].object.spec.containers.length, 2);
    w.close();
  });
});
