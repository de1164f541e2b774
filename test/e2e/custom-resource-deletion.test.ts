// Deleting a CustomResourceDefinition as the established `customresourcecleanup` finalizer does:
// the objects' own finalizers are honoured (an object with finalizers only gets its
// deletionTimestamp and stays until they are cleared), the CRD waits with a `Terminating`
// condition, and new objects are refused with 405 meanwhile.
import * as assert from 'uvu/assert';
import type { ApiServerProcess } from '../helpers/apiserver.js';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const crdBody = (group: string) => ({
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true }] },
});

type Condition = { type: string; status: string; reason: string; message: string };

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function served(server: ApiServerProcess, path: string): Promise<void> {
  await until(`${path} served`, 2000, async () => ((await server.request('GET', path)).status === 200 ? true : undefined));
}

const terminating = (crd: { status?: { conditions?: Condition[] } }) => crd.status?.conditions?.find((c) => c.type === 'Terminating');

forEachEngine('custom resources: deleting the definition', (test, ctx) => {
  test('objects with finalizers keep the CRD (Terminating, InstanceDeletionCheck) until their finalizers are cleared', async () => {
    const { server } = ctx();
    const group = `${uniqueName('g')}.example.com`;
    const crdPath = `${CRDS}/gadgets.${group}`;
    assert.is((await server.request('POST', CRDS, crdBody(group))).status, 201);
    const base = `/apis/${group}/v1/namespaces/default/gadgets`;
    await served(server, base);
    const obj = (name: string, finalizers?: string[]) => ({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { n: 1 } });
    for (const body of [obj('plain'), obj('held', ['example.com/hold']), obj('held-twice', ['example.com/a', 'example.com/b'])]) {
      const r = await server.request('POST', base, body);
      assert.is(r.status, 201, r.text);
    }
    const w = await openWatch(server, `${base}?watch=1`);
    await w.waitFor(3);

    const d = await server.request('DELETE', crdPath);
    assert.is(d.status, 200, d.text);
    const waiting = await until('Terminating condition InstanceDeletionCheck', 5000, async () => {
      const crd = (await server.request('GET', crdPath)).json;
      return terminating(crd)?.reason === 'InstanceDeletionCheck' ? crd : undefined;
    });
    assert.ok(waiting.metadata.deletionTimestamp);
    assert.ok(waiting.metadata.finalizers.includes('customresourcecleanup.apiextensions.svc.io'));
    assert.is(terminating(waiting)!.status, 'True');
    assert.match(terminating(waiting)!.message, 'could not confirm zero CustomResources remaining: 2 left');
    await new Promise((r) => setTimeout(r, 1300));
    const later = (await server.request('GET', crdPath)).json;
    assert.is(later.metadata.resourceVersion, waiting.metadata.resourceVersion, 'rechecking writes nothing while nothing changed');

    // The object without finalizers is gone; the others are only marked.
    assert.is((await server.request('GET', `${base}/plain`)).status, 404);
    const held = await server.request('GET', `${base}/held`);
    assert.is(held.status, 200, 'an object with finalizers stays');
    assert.ok(held.json.metadata.deletionTimestamp, 'and carries its deletionTimestamp');
    assert.equal(held.json.metadata.finalizers, ['example.com/hold']);
    assert.equal((await server.request('GET', base)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['held', 'held-twice']);

    // New objects are refused while the CRD terminates: POST and an apply that would create.
    const refused = await server.request('POST', base, obj('late'));
    assert.is(refused.status, 405, refused.text);
    assert.is(refused.json.reason, 'MethodNotAllowed');
    assert.is(refused.json.message, 'create not allowed while custom resource definition is terminating');
    const applied = await server.request('PATCH', `${base}/late?fieldManager=tool`, JSON.stringify(obj('late')), APPLY);
    assert.is(applied.status, 405, applied.text);

    // Clearing one finalizer of two leaves the object; clearing the rest lets it, then the CRD, go.
    const partly = await server.request('PATCH', `${base}/held-twice`, { metadata: { finalizers: ['example.com/b'] } }, MERGE);
    assert.is(partly.status, 200, partly.text);
    assert.is((await server.request('PATCH', `${base}/held`, { metadata: { finalizers: null } }, MERGE)).status, 200);
    assert.is((await server.request('GET', `${base}/held`)).status, 404);
    // The next recheck (within about a second) counts one object left, and the CRD stays.
    await until('Terminating message naming 1 left', 5000, async () => {
      const still = await server.request('GET', crdPath);
      assert.is(still.status, 200, 'one object still holds the CRD');
      return terminating(still.json)!.message.includes('1 left') ? true : undefined;
    });
    assert.is((await server.request('GET', `${base}/held-twice`)).status, 200);
    assert.is((await server.request('PATCH', `${base}/held-twice`, { metadata: { finalizers: [] } }, MERGE)).status, 200);
    await until('CRD gone', 5000, async () => ((await server.request('GET', crdPath)).status === 404 ? true : undefined));
    await w.ended;
    const events = w.events.slice(3).map((e) => `${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`);
    assert.ok(events.includes('DELETED plain') && events.includes('DELETED held') && events.includes('DELETED held-twice'), events.join(', '));
    assert.ok(events.includes('MODIFIED held'), `watchers saw the deletionTimestamp being set: ${events.join(', ')}`);
    assert.is((await server.request('GET', base)).status, 404);
  });

  test('without finalizers the objects go at once and the CRD ends with Terminating False (InstanceDeletionCompleted)', async () => {
    const { server } = ctx();
    const group = `${uniqueName('g')}.example.com`;
    const crdPath = `${CRDS}/gadgets.${group}`;
    assert.is((await server.request('POST', CRDS, crdBody(group))).status, 201);
    const base = `/apis/${group}/v1/namespaces/default/gadgets`;
    await served(server, base);
    for (const n of ['a', 'b']) assert.is((await server.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: n } })).status, 201);
    // A finalizer of the CRD's own keeps it readable after the cleanup, to see the final condition.
    assert.is((await server.request('PATCH', crdPath, { metadata: { finalizers: ['customresourcecleanup.apiextensions.svc.io', 'example.com/keep'] } }, MERGE)).status, 200);
    assert.is((await server.request('DELETE', crdPath)).status, 200);
    const done = await until('InstanceDeletionCompleted', 5000, async () => {
      const crd = (await server.request('GET', crdPath)).json;
      return terminating(crd)?.reason === 'InstanceDeletionCompleted' ? crd : undefined;
    });
    assert.is(terminating(done)!.status, 'False');
    assert.equal(done.metadata.finalizers, ['example.com/keep'], 'the cleanup finalizer is dropped');
    assert.is((await server.request('GET', base)).status, 404);
    assert.is((await server.request('PATCH', crdPath, { metadata: { finalizers: [] } }, MERGE)).status, 200);
    await until('CRD gone', 5000, async () => ((await server.request('GET', crdPath)).status === 404 ? true : undefined));
  });
});
