// Protobuf request bodies on the real apiserver: a body encoded by an independent encoder (protobufjs
// from the .proto files) creates and replaces objects that then read back as JSON; a body without the
// 4-byte prefix is a 400 naming it; custom resources take and give no Protobuf (415 / 406 / JSON).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { PROTOBUF, ProtoFiles, rawRequest } from '../helpers/protobuf.js';

const CM = '/api/v1/namespaces/default/configmaps';
const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/pb.example.com/v1/namespaces/default/widgets';

const test = suite('protobuf request bodies');
let server: ApiServerProcess;
let proto: ProtoFiles;
test.before(async () => {
  proto = await ProtoFiles.load();
  server = await startApiServer();
  const crd = {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.pb.example.com' },
    spec: { group: 'pb.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true }] },
  };
  assert.is((await server.request('POST', CRDS, crd)).status, 201);
  for (let i = 0; (await server.request('GET', WIDGETS)).status !== 200; i++) {
    if (i > 100) throw new Error('the custom resource was never served');
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.is((await server.request('POST', WIDGETS, { apiVersion: 'pb.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } })).status, 201);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

test('a Protobuf POST body creates the object, and a JSON GET returns it (Protobuf in, JSON out)', async () => {
  const body = proto.encode('v1', 'ConfigMap', { metadata: { name: 'pb-in', labels: { from: 'protobuf' } }, data: { 'a.conf': 'x=1' }, binaryData: { bin: Buffer.from([0, 1, 255]).toString('base64') } });
  const r = await rawRequest(server, 'POST', CM, body, { 'content-type': PROTOBUF, accept: 'application/json' });
  assert.is(r.status, 201, r.body.toString());
  assert.is(r.contentType, 'application/json');
  const got = await server.request('GET', `${CM}/pb-in`);
  assert.is(got.status, 200);
  assert.equal(got.json.metadata.labels, { from: 'protobuf' });
  assert.equal(got.json.data, { 'a.conf': 'x=1' });
  assert.equal(got.json.binaryData, { bin: Buffer.from([0, 1, 255]).toString('base64') });
  assert.is(got.json.kind, 'ConfigMap');
});

test('a Protobuf PUT body replaces the object', async () => {
  const current = (await server.request('GET', `${CM}/pb-in`)).json;
  const body = proto.encode('v1', 'ConfigMap', { metadata: { name: 'pb-in', resourceVersion: current.metadata.resourceVersion }, data: { replaced: 'yes' } });
  const r = await rawRequest(server, 'PUT', `${CM}/pb-in`, body, { 'content-type': PROTOBUF, accept: PROTOBUF });
  assert.is(r.status, 200, r.body.toString());
  assert.equal(proto.decode(r.body).message.data, { replaced: 'yes' });
  assert.equal((await server.request('GET', `${CM}/pb-in`)).json.data, { replaced: 'yes' });
});

test('a Protobuf body without the 4-byte prefix is a 400 whose message names the prefix', async () => {
  const body = proto.encode('v1', 'ConfigMap', { metadata: { name: 'pb-noprefix' } }).subarray(4);
  const r = await rawRequest(server, 'POST', CM, body, { 'content-type': PROTOBUF });
  assert.is(r.status, 400);
  const status = JSON.parse(r.body.toString());
  assert.is(status.reason, 'BadRequest');
  assert.match(status.message, '0x6b 0x38 0x73 0x00');
  assert.is((await server.request('GET', `${CM}/pb-noprefix`)).status, 404);
});

test('a custom resource takes no Protobuf body (415) and gives none: 406 alone, JSON with a fallback', async () => {
  const body = proto.encode('v1', 'ConfigMap', { metadata: { name: 'w2' } });
  const post = await rawRequest(server, 'POST', WIDGETS, body, { 'content-type': PROTOBUF });
  assert.is(post.status, 415);
  const only = await server.request('GET', `${WIDGETS}/w1`, undefined, { accept: PROTOBUF });
  assert.is(only.status, 406);
  assert.is(only.json.reason, 'NotAcceptable');
  const fallback = await server.request('GET', `${WIDGETS}/w1`, undefined, { accept: `${PROTOBUF}, application/json` });
  assert.is(fallback.status, 200);
  assert.is(fallback.headers['content-type'], 'application/json');
  assert.is(fallback.json.kind, 'Widget');
});

test.run();
