// A custom resource served at several versions: every object the server sends (get, list, chunked
// list, watch from the current state and from a resourceVersion, create and patch responses) carries the
// apiVersion of the version requested, not the one it was stored under — with the watch cache and
// without it (`--watch-cache=false`, where watches read storage events), on both storage engines.
import * as assert from 'uvu/assert';
import type { ApiServerProcess } from '../helpers/apiserver.js';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const VERSIONS = ['v1', 'v2', 'v3'] as const;

interface Named {
  apiVersion: string;
  metadata: { name: string };
}

function crd(group: string): object {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      // v2 is the storage version, so objects written through v1 and v3 are stored as v2 ...
      versions: VERSIONS.map((v) => ({ name: v, served: true, storage: v === 'v2' })),
    },
  };
}

async function servedWithin(server: ApiServerProcess, path: string, ms: number): Promise<void> {
  const start = Date.now();
  while ((await server.request('GET', path)).status !== 200) {
    if (Date.now() - start > ms) throw new Error(`${path} not served after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `[name, apiVersion]` of each object, to compare in one assertion. */
function versions(objects: Named[]): [string, string][] {
  return objects.map((o) => [o.metadata.name, o.apiVersion]);
}

function defineTests(title: string, args: string[]): void {
  forEachEngine(
    title,
    (test, ctx) => {
      test('get, list, chunked list, watch and writes carry the requested version', async () => {
        const { server } = ctx();
        const group = `${uniqueName('g')}.example.com`;
        assert.is((await server.request('POST', CRDS, crd(group))).status, 201);
        const base = (v: string) => `/apis/${group}/${v}/namespaces/default/widgets`;
        for (const v of VERSIONS) await servedWithin(server, base(v), 2000);
        // ... and the objects as stored are at v2, whichever version wrote them.
        for (const v of ['v1', 'v3']) {
          const c = await server.request('POST', base(v), { apiVersion: `${group}/${v}`, kind: 'Widget', metadata: { name: `from-${v}` }, spec: { n: 1 } });
          assert.is(c.status, 201, c.text);
          assert.is(c.json.apiVersion, `${group}/${v}`, 'create response');
        }
        const starts = new Map<string, string>();
        for (const v of VERSIONS) starts.set(v, (await server.request('GET', base(v))).json.metadata.resourceVersion);
        // Watches from the current state (initial ADDED events) and from a resourceVersion (changes only).
        const fromNow = await Promise.all(VERSIONS.map((v) => openWatch(server, `${base(v)}?watch=1`)));
        const fromRv = await Promise.all(VERSIONS.map((v) => openWatch(server, `${base(v)}?watch=1&resourceVersion=${starts.get(v)}`)));
        for (const w of fromNow) await w.waitFor(2);

        // Changes made through each version: a create, a patch and a delete.
        const p = await server.request('PATCH', `${base('v3')}/from-v1`, { spec: { n: 2 } }, MERGE);
        assert.is(p.json.apiVersion, `${group}/v3`, 'patch response');
        assert.is((await server.request('POST', base('v2'), { apiVersion: `${group}/v2`, kind: 'Widget', metadata: { name: 'from-v2' } })).status, 201);
        const d = await server.request('DELETE', `${base('v1')}/from-v3`);
        assert.is(d.status, 200, d.text);

        for (const [i, v] of VERSIONS.entries()) {
          const want = `${group}/${v}`;
          const g = await server.request('GET', `${base(v)}/from-v1`);
          assert.is(g.json.apiVersion, want, `get at ${v}`);
          assert.is(g.json.spec.n, 2);
          const l = await server.request('GET', base(v));
          assert.is(l.json.apiVersion, want, `list at ${v}`);
          assert.equal(versions(l.json.items), [['from-v1', want], ['from-v2', want]], `list items at ${v}`);
          const cached = await server.request('GET', `${base(v)}?resourceVersion=0`);
          assert.equal(versions(cached.json.items), [['from-v1', want], ['from-v2', want]], `list at resourceVersion=0 at ${v}`);
          const chunk = await server.request('GET', `${base(v)}?limit=1`);
          const rest = await server.request('GET', `${base(v)}?limit=1&continue=${encodeURIComponent(chunk.json.metadata.continue)}`);
          assert.equal(versions([...chunk.json.items, ...rest.json.items]), [['from-v1', want], ['from-v2', want]], `chunks at ${v}`);

          const now = await fromNow[i]!.waitFor(5);
          assert.equal(now.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion]), [
            ['ADDED', 'from-v1', want],
            ['ADDED', 'from-v3', want],
            ['MODIFIED', 'from-v1', want],
            ['ADDED', 'from-v2', want],
            ['DELETED', 'from-v3', want],
          ], `watch from now at ${v}`);
          const changes = await fromRv[i]!.waitFor(3);
          assert.equal(changes.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion]), [
            ['MODIFIED', 'from-v1', want],
            ['ADDED', 'from-v2', want],
            ['DELETED', 'from-v3', want],
          ], `watch from a resourceVersion at ${v}`);
        }
        for (const w of [...fromNow, ...fromRv]) w.close();
      });
    },
    { args },
  );
}

defineTests('custom resource versions: apiVersion served (watch cache on)', []);
defineTests('custom resource versions: apiVersion served (--watch-cache=false)', ['--watch-cache=false']);
