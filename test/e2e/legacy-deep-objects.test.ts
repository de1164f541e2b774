// No stored object may become unchangeable or undeletable: objects nested far past today's limit
// (as an older server stored them: 2,500 levels, and far deeper) are planted in the store while
// the server is down. After a restart they can be read, listed, watched, changed by a write that
// does not deepen them, refused (422, not 500) by one that would keep them too deep, and deleted.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { openEmbeddedStore } from '../../src/storage/index.js';

const CM = '/api/v1/namespaces/default/configmaps';
const test = suite('objects stored deeper than the nesting limit stay readable, changeable and deletable');

function deep(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function planted(name: string, levels: number, extra: Record<string, unknown> = {}): Uint8Array {
  // What an older server wrote: JSON without resourceVersion, an unknown field nested deep.
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z', ...extra }, data: { keep: 'me' }, zzz: deep(levels) };
  let text = JSON.stringify({ ...obj, zzz: '@' });
  // JSON.stringify itself cannot write 50,000 levels: splice the deep part in as text.
  text = text.replace('"@"', '{"a":'.repeat(levels) + '"x"' + '}'.repeat(levels));
  return new TextEncoder().encode(text);
}

let server: ApiServerProcess;

test.before(async () => {
  server = await startApiServer();
  await server.stop();
  const store = openEmbeddedStore({ dir: server.dataDir });
  await store.create('/registry/configmaps/default/deep2500', planted('deep2500', 2500));
  await store.create('/registry/configmaps/default/deep50k', planted('deep50k', 50_000));
  await store.create('/registry/configmaps/default/held', planted('held', 3000, { finalizers: ['example.com/hold'] }));
  await store.create('/registry/configmaps/default/fixme', planted('fixme', 3000));
  await store.close();
  server = await startApiServer({ dataDir: server.dataDir, certDir: server.certDir });
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('they can be read and listed', async () => {
  for (const name of ['deep2500', 'deep50k']) {
    const r = await server.request('GET', `${CM}/${name}`);
    assert.is(r.status, 200, r.text.slice(0, 200));
    assert.is(r.json.metadata.name, name);
  }
  const list = await server.request('GET', CM);
  assert.is(list.status, 200);
  assert.ok(list.text.includes('deep50k'));
});

test('a write that would make them deeper still is a 422 naming the cause, not a 500', async () => {
  const deeper = await server.request('PATCH', `${CM}/deep2500`, JSON.stringify([{ op: 'add', path: `/zzz${'/a'.repeat(2499)}/b`, value: { c: { d: 1 } } }]), { 'content-type': 'application/json-patch+json' });
  assert.is(deeper.status, 422, deeper.text.slice(0, 300));
  assert.match(deeper.json.message, /nests objects and arrays more than 250\d levels/);
  const copy = await server.request('PATCH', `${CM}/deep2500`, JSON.stringify([{ op: 'copy', from: '/zzz', path: '/zzz/b' }]), { 'content-type': 'application/json-patch+json' });
  assert.is(copy.status, 422, copy.text.slice(0, 300));
});

test('a write that does not deepen them is allowed', async () => {
  const r = await server.request('PATCH', `${CM}/deep2500`, '{"metadata":{"labels":{"a":"b"}}}', { 'content-type': 'application/merge-patch+json' });
  assert.is(r.status, 200, r.text.slice(0, 300));
  assert.equal(r.json.metadata.labels, { a: 'b' });
});

test('a patch that removes the deep part makes them ordinary objects again', async () => {
  const r = await server.request('PATCH', `${CM}/fixme`, '[{"op":"remove","path":"/zzz"}]', { 'content-type': 'application/json-patch+json' });
  assert.is(r.status, 200, r.text.slice(0, 300));
  const apply = await server.request('PATCH', `${CM}/fixme?fieldManager=m`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fixme"},"data":{"x":"y"}}', { 'content-type': 'application/apply-patch+yaml' });
  assert.is(apply.status, 200, apply.text.slice(0, 300));
  assert.equal(apply.json.data, { keep: 'me', x: 'y' });
});

test('they can be deleted, also through finalizers', async () => {
  for (const name of ['deep2500', 'deep50k']) {
    const r = await server.request('DELETE', `${CM}/${name}`);
    assert.is(r.status, 200, r.text.slice(0, 200));
    assert.is((await server.request('GET', `${CM}/${name}`)).status, 404);
  }
  const marked = await server.request('DELETE', `${CM}/held`);
  assert.is(marked.status, 200, marked.text.slice(0, 200));
  const released = await server.request('PATCH', `${CM}/held`, '{"metadata":{"finalizers":null}}', { 'content-type': 'application/merge-patch+json' });
  assert.is(released.status, 200, released.text.slice(0, 200));
  assert.is((await server.request('GET', `${CM}/held`)).status, 404);
  assert.is(server.proc.exitCode, null);
});

test.run();
