// The spec's content-type rules through the real apiserver: Accept fallbacks and q-values pick the
// representation, the response says which in Content-Type, 406 when nothing acceptable is offered,
// 415 for a request body the server does not read. Request and response formats are independent.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const TABLE = 'application/json;as=Table;g=meta.svc;v=v1beta1';
const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

const test = suite('content negotiation');
let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer();
  await server.request('POST', CM, { metadata: { name: 'neg' }, data: { a: '1' } });
  const labels = { app: 'neg' };
  const template = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const d = await server.request('POST', DEPLOY, { metadata: { name: 'neg' }, spec: { replicas: 2, selector: { matchLabels: labels }, template } });
  assert.is(d.status, 201, d.text);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

const get = (path: string, accept: string) => server.request('GET', path, undefined, { accept });

test('rule 1: the response Content-Type names the representation served', async () => {
  const plain = await get(`${CM}/neg`, 'application/json');
  assert.is(plain.headers['content-type'], 'application/json');
  assert.is(plain.json.kind, 'ConfigMap');
  const table = await get(`${CM}/neg`, TABLE);
  assert.is(table.status, 200);
  assert.is(table.headers['content-type'], TABLE);
  assert.is(table.json.kind, 'Table');
});

test('rule 2: Table then application/json falls back to JSON where no Table is offered (a subresource)', async () => {
  const r = await get(`${DEPLOY}/neg/scale`, `${TABLE},application/json`);
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'application/json');
  assert.is(r.json.kind, 'Scale');
  assert.is((await get(`${DEPLOY}/neg/scale`, TABLE)).status, 406);
  const w = await server.request('POST', CM, { metadata: { name: 'neg-post' } }, { accept: `${TABLE},application/json` });
  assert.is(w.status, 201);
  assert.is(w.headers['content-type'], 'application/json');
  assert.is(w.json.kind, 'ConfigMap');
});

test('q-values order the Accept clauses', async () => {
  assert.is((await get(CM, `application/json;q=0.5,${TABLE};q=0.9`)).json.kind, 'Table');
  assert.is((await get(CM, `${TABLE};q=0.5,application/json;q=0.9`)).json.kind, 'ConfigMapList');
  assert.is((await get(CM, `${TABLE};q=0,application/json;q=0.1`)).json.kind, 'ConfigMapList');
});

test('kubectl asks for meta.k8s.io v1 Tables (the established spelling of meta.svc) and gets one in that spelling', async () => {
  const r = await get(CM, KUBECTL_ACCEPT);
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'application/json;as=Table;g=meta.k8s.io;v=v1');
  assert.is(r.json.kind, 'Table');
  assert.is(r.json.apiVersion, 'meta.k8s.io/v1');
  const ours = await get(CM, 'application/json;as=Table;g=meta.svc;v=v1');
  assert.is(ours.json.apiVersion, 'meta.svc/v1');
});

test('406 with a NotAcceptable Status when nothing acceptable is offered', async () => {
  for (const accept of ['text/html', 'application/json;as=Table;g=meta.example.io;v=v1', 'application/json;q=0']) {
    const r = await get(CM, accept);
    assert.is(r.status, 406, accept);
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.reason, 'NotAcceptable');
    assert.match(r.json.message, /application\/json/);
  }
  const w = await server.request('POST', CM, { metadata: { name: 'neg-406' } }, { accept: TABLE });
  assert.is(w.status, 406, 'a Table is offered on reads only');
  assert.is((await server.request('GET', `${CM}/neg-406`)).status, 404, 'nothing was stored');
});

test('a Protobuf-only Accept is 406 where the kind offers no Protobuf; with a JSON fallback it is JSON', async () => {
  // CustomResourceDefinitions have no field numbers (built-in kinds with numbers answer Protobuf: test/e2e/protobuf-responses.test.ts).
  const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
  const only = await get(CRDS, 'application/vnd.svc.protobuf');
  assert.is(only.status, 406);
  assert.is(only.json.reason, 'NotAcceptable');
  const fallback = await get(CRDS, 'application/vnd.svc.protobuf,application/json');
  assert.is(fallback.status, 200);
  assert.is(fallback.headers['content-type'], 'application/json');
});

test('415 with an UnsupportedMediaType Status for a request body the server does not read', async () => {
  for (const ct of ['text/plain', 'application/xml']) {
    const r = await server.request('POST', CM, '{"metadata":{"name":"neg-415"}}', { 'content-type': ct });
    assert.is(r.status, 415, ct);
    assert.is(r.json.reason, 'UnsupportedMediaType');
    assert.match(r.json.message, /application\/json/);
  }
});

test('rule 3: request and response formats are chosen independently (YAML in, Table-less JSON out)', async () => {
  const r = await server.request('POST', CM, 'metadata:\n  name: neg-yaml\ndata:\n  k: v\n', { 'content-type': 'application/yaml', accept: 'application/json' });
  assert.is(r.status, 201);
  assert.is(r.headers['content-type'], 'application/json');
  assert.equal(r.json.data, { k: 'v' });
});

test('JSON objects, lists, Tables, discovery and Status end with a newline (the established serializer); /version and OpenAPI do not', async () => {
  for (const [path, accept] of [
    [`${CM}/neg`, 'application/json'],
    [CM, 'application/json'],
    [CM, TABLE],
    ['/apis/apps/v1', 'application/json'],
    ['/api', 'application/json'],
    [`${CM}/missing`, 'application/json'],
  ] as const) {
    const r = await get(path, accept);
    assert.ok(r.text.endsWith('}\n'), `${path} (${accept}): ${JSON.stringify(r.text.slice(-20))}`);
    assert.is(Number(r.headers['content-length'] ?? r.text.length), Buffer.byteLength(r.text), `${path}: the length counts the newline`);
  }
  const missing = await get(`${CM}/missing`, 'application/json');
  assert.is(
    missing.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}\n',
  );
  for (const path of ['/version', '/openapi/v2']) {
    const r = await get(path, 'application/json');
    assert.ok(r.text.endsWith('}'), `${path}: ${JSON.stringify(r.text.slice(-20))}`);
  }
});

test.run();
