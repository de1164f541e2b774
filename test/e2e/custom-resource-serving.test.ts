// Custom resources: creating a CRD serves its resource (discovery and paths, within a second) like
// any kind — CRUD, list, watch, chunking, dry run, status and scale — and deleting it removes its
// objects and its discovery entries. A real kubectl 1.31 lists a custom resource.
import * as assert from 'uvu/assert';
import type { ApiServerProcess, HttpResult } from '../helpers/apiserver.js';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { openWatch } from '../helpers/watch.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const MERGE = { 'content-type': 'application/merge-patch+json' };

interface CrdOptions {
  group: string;
  plural: string;
  kind: string;
  scope?: 'Namespaced' | 'Cluster';
  schema?: Record<string, unknown>;
  versions?: string[];
}

function crdBody(o: CrdOptions): object {
  const versions = o.versions ?? ['v1'];
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? 'Namespaced',
      names: { plural: o.plural, kind: o.kind, shortNames: [`${o.plural.slice(0, 2)}x`] },
      versions: versions.map((v, i) => ({
        name: v,
        served: true,
        storage: i === 0,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
        ...(o.schema ? { schema: { openAPIV3Schema: o.schema } } : {}),
      })),
    },
  };
}

/** GETs `path` every 20 ms until `done` holds for the answer (or fails after `ms`); returns it and the time it took. */
async function getUntil(server: ApiServerProcess, path: string, ms: number, done: (r: HttpResult) => boolean, what: string): Promise<{ answer: HttpResult; took: number }> {
  const start = Date.now();
  for (;;) {
    const answer = await server.request('GET', path);
    if (done(answer)) return { answer, took: Date.now() - start };
    if (Date.now() - start > ms) throw new Error(`${path} not ${what} after ${ms} ms: ${answer.status} ${answer.text}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Polls until `path` answers 200 (or fails after `ms`); returns the time it took. */
async function servedWithin(server: ApiServerProcess, path: string, ms: number): Promise<number> {
  return (await getUntil(server, path, ms, (r) => r.status === 200, 'served')).took;
}

interface CrdStatus {
  status?: { conditions?: Array<{ type: string; status: string }>; acceptedNames?: { listKind?: string } };
}

/** Polls the CRD at `path` until its Established condition is True (or fails after `ms`). */
async function establishedWithin(server: ApiServerProcess, path: string, ms: number): Promise<Required<CrdStatus>> {
  const established = (r: HttpResult) => (r.json as CrdStatus).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
  return (await getUntil(server, path, ms, established, 'Established')).answer.json as Required<CrdStatus>;
}

function uniqueGroup(): string {
  return `${uniqueName('g')}.example.com`;
}

forEachEngine('custom resources: serving', (test, ctx) => {
  test('a namespaced CRD is in discovery and served at its paths within 1 s', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    const c = await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    assert.is(c.status, 201, c.text);
    assert.ok(c.json.metadata.finalizers.includes('customresourcecleanup.apiextensions.svc.io'));
    const took = await servedWithin(server, `/apis/${group}/v1/namespaces/default/widgets`, 1000);
    assert.ok(took < 1000, `served after ${took} ms`);
    const groups = (await server.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.ok(groups.includes(group), 'group listed in /apis');
    const g = await server.request('GET', `/apis/${group}`);
    assert.is(g.json.preferredVersion.version, 'v1');
    const rl = await server.request('GET', `/apis/${group}/v1`);
    const names = rl.json.resources.map((r: { name: string }) => r.name);
    assert.equal(names, ['widgets', 'widgets/scale', 'widgets/status']);
    assert.is(rl.json.resources[0].namespaced, true);
    assert.is(rl.json.resources[0].kind, 'Widget');
    // The resource is registered before the condition is written (so Established implies served,
    // which is what `kubectl wait --for condition=established` relies on); the condition follows.
    const crd = await establishedWithin(server, `${CRDS}/widgets.${group}`, 1000);
    assert.is(crd.status.acceptedNames?.listKind, 'WidgetList');
  });

  test('a cluster-scoped CRD is served without a namespace within 1 s', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    assert.is((await server.request('POST', CRDS, crdBody({ group, plural: 'clusterthings', kind: 'ClusterThing', scope: 'Cluster' }))).status, 201);
    await servedWithin(server, `/apis/${group}/v1/clusterthings`, 1000);
    const c = await server.request('POST', `/apis/${group}/v1/clusterthings`, { apiVersion: `${group}/v1`, kind: 'ClusterThing', metadata: { name: 'one' }, spec: { a: 1 } });
    assert.is(c.status, 201, c.text);
    assert.is(c.json.metadata.namespace, undefined);
    assert.is((await server.request('GET', `/apis/${group}/v1/namespaces/default/clusterthings`)).status, 404);
    const rl = await server.request('GET', `/apis/${group}/v1`);
    assert.is(rl.json.resources[0].namespaced, false);
  });

  test('custom objects: create, get, update, patch, list, delete', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await servedWithin(server, base, 1000);
    const c = await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' }, spec: { replicas: 1, tags: ['x'] } });
    assert.is(c.status, 201, c.text);
    assert.is(c.json.metadata.generation, 1);
    const g = await server.request('GET', `${base}/a`);
    assert.equal(g.json.spec, { replicas: 1, tags: ['x'] });
    const u = await server.request('PUT', `${base}/a`, { ...g.json, spec: { replicas: 2 } });
    assert.is(u.status, 200, u.text);
    assert.is(u.json.metadata.generation, 2);
    const p = await server.request('PATCH', `${base}/a`, { spec: { color: 'red' } }, MERGE);
    assert.is(p.status, 200, p.text);
    assert.equal(p.json.spec, { replicas: 2, color: 'red' });
    const wrongKind = await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'b' } });
    assert.is(wrongKind.status, 400);
    const l = await server.request('GET', base);
    assert.is(l.json.kind, 'WidgetList');
    assert.is(l.json.apiVersion, `${group}/v1`);
    assert.equal(l.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a']);
    const all = await server.request('GET', `/apis/${group}/v1/widgets`);
    assert.is(all.json.items.length, 1, 'list across namespaces');
    const d = await server.request('DELETE', `${base}/a`);
    assert.is(d.status, 200, d.text);
    assert.is((await server.request('GET', `${base}/a`)).status, 404);
  });

  test('custom objects: watch, chunked lists and dry run', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await servedWithin(server, base, 1000);
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w = await openWatch(server, `${base}?watch=1&resourceVersion=${start}`);
    assert.is(w.status, 200);
    for (const n of ['c1', 'c2', 'c3']) {
      assert.is((await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: n }, spec: { replicas: 1 } })).status, 201);
    }
    await server.request('PATCH', `${base}/c1`, { spec: { replicas: 5 } }, MERGE);
    const events = await w.waitFor(4);
    w.close();
    assert.equal(events.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED', 'MODIFIED']);
    assert.is(events[3]!.object.spec.replicas, 5);
    const first = await server.request('GET', `${base}?limit=2`);
    assert.is(first.json.items.length, 2);
    assert.is(first.json.metadata.remainingItemCount, 1);
    const rest = await server.request('GET', `${base}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(rest.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c3']);
    const before = (await server.request('GET', base)).json.metadata.resourceVersion;
    const dry = await server.request('POST', `${base}?dryRun=All`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'dry' }, spec: { replicas: 1 } });
    assert.is(dry.status, 201, dry.text);
    assert.is(dry.json.metadata.name, 'dry');
    const dryDelete = await server.request('DELETE', `${base}/c2?dryRun=All`);
    assert.is(dryDelete.status, 200);
    assert.is((await server.request('GET', `${base}/dry`)).status, 404);
    assert.is((await server.request('GET', `${base}/c2`)).status, 200);
    assert.is((await server.request('GET', base)).json.metadata.resourceVersion, before, 'dry run wrote nothing');
  });

  test('status and scale subresources: main writes keep status, /status writes only status, /scale reads the declared paths', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await servedWithin(server, base, 1000);
    const c = await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 's' }, spec: { replicas: 2 }, status: { replicas: 9 } });
    assert.is(c.json.status, undefined, 'status dropped on create');
    const s = await server.request('PATCH', `${base}/s/status`, { spec: { replicas: 7 }, status: { replicas: 2, selector: 'app=s' } }, MERGE);
    assert.is(s.status, 200, s.text);
    assert.equal(s.json.status, { replicas: 2, selector: 'app=s' });
    assert.is(s.json.spec.replicas, 2, 'spec ignored on /status');
    const m = await server.request('PATCH', `${base}/s`, { status: { replicas: 0 } }, MERGE);
    assert.is(m.json.status.replicas, 2, 'status ignored on the main resource');
    const scale = await server.request('GET', `${base}/s/scale`);
    assert.is(scale.status, 200, scale.text);
    assert.equal([scale.json.kind, scale.json.spec.replicas, scale.json.status.replicas, scale.json.status.selector], ['Scale', 2, 2, 'app=s']);
    const put = await server.request('PUT', `${base}/s/scale`, { ...scale.json, spec: { replicas: 4 } });
    assert.is(put.status, 200, put.text);
    assert.is((await server.request('GET', `${base}/s`)).json.spec.replicas, 4);
  });

  test('updating a CRD takes effect: an added version is served with the objects under its apiVersion', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    const base = (v: string) => `/apis/${group}/${v}/namespaces/default/widgets`;
    await servedWithin(server, base('v1'), 1000);
    await server.request('POST', base('v1'), { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'x' }, spec: { replicas: 1 } });
    // Read after the server's status write, or the PUT below would race it (409).
    const crd = (await establishedWithin(server, `${CRDS}/widgets.${group}`, 1000)) as unknown as { spec: { versions: Array<Record<string, unknown>> } };
    crd.spec.versions.push({ ...crd.spec.versions[0], name: 'v2', storage: false });
    const u = await server.request('PUT', `${CRDS}/widgets.${group}`, crd);
    assert.is(u.status, 200, u.text);
    await servedWithin(server, base('v2'), 1000);
    const got = await server.request('GET', `${base('v2')}/x`);
    assert.is(got.json.apiVersion, `${group}/v2`);
    assert.is((await server.request('GET', `${base('v1')}/x`)).json.apiVersion, `${group}/v1`);
    assert.equal((await server.request('GET', `/apis/${group}`)).json.versions.map((v: { version: string }) => v.version), ['v2', 'v1']);
  });

  test('deleting a CRD removes its objects and its discovery entries', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    const body = crdBody({ group, plural: 'widgets', kind: 'Widget' });
    await server.request('POST', CRDS, body);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await servedWithin(server, base, 1000);
    for (const n of ['d1', 'd2']) await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: n } });
    const w = await openWatch(server, `${base}?watch=1`);
    await w.waitFor(2);
    const d = await server.request('DELETE', `${CRDS}/widgets.${group}`);
    assert.is(d.status, 200, d.text);
    const deadline = Date.now() + 5000;
    while ((await server.request('GET', `${CRDS}/widgets.${group}`)).status !== 404) {
      assert.ok(Date.now() < deadline, 'CRD still present after 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await w.ended;
    assert.equal(w.events.slice(2).map((e) => e.type), ['DELETED', 'DELETED'], 'watchers saw the objects go, then the stream ended');
    assert.is((await server.request('GET', base)).status, 404);
    assert.is((await server.request('GET', `/apis/${group}/v1`)).status, 404);
    assert.is((await server.request('GET', `/apis/${group}`)).status, 404);
    const groups = (await server.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.not.ok(groups.includes(group));
    assert.is((await server.request('POST', CRDS, body)).status, 201);
    await servedWithin(server, base, 1000);
    assert.equal((await server.request('GET', base)).json.items, [], 'a re-created CRD of the same name starts empty');
  });

  test('Table of a custom resource: Name, then the additionalPrinterColumns typed as declared', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'widgets', kind: 'Widget' }));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await servedWithin(server, base, 1000);
    await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 't1' }, spec: { replicas: 3 } });
    const t = await server.request('GET', base, undefined, { accept: 'application/json;as=Table;g=meta.svc;v=v1beta1' });
    assert.is(t.status, 200, t.text);
    assert.is(t.json.kind, 'Table');
    assert.equal(t.json.columnDefinitions.map((c: { name: string; type: string }) => [c.name, c.type]), [['Name', 'string'], ['Replicas', 'integer']]);
    assert.equal(t.json.rows[0].cells, ['t1', 3]);
  });

  test('kubectl 1.31 get <plural> lists a custom resource', async () => {
    const { server } = ctx();
    const group = uniqueGroup();
    await server.request('POST', CRDS, crdBody({ group, plural: 'gizmos', kind: 'Gizmo' }));
    const base = `/apis/${group}/v1/namespaces/default/gizmos`;
    await servedWithin(server, base, 1000);
    await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'giz' }, spec: { replicas: 3 } });
    const kc = kubeconfigFor(server);
    const r = await kubectl(kc, ['get', 'gizmos']);
    assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^NAME\b/m, r.stdout);
    assert.match(r.stdout, /^giz\b/m, r.stdout);
    const j = await kubectl(kc, ['get', `gizmos.${group}`, 'giz', '-o', 'json']);
    assert.is(j.code, 0, j.stderr);
    assert.is(JSON.parse(j.stdout).spec.replicas, 3);
  });
});
