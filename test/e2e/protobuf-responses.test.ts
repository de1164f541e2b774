// Protobuf responses of the real apiserver, read by an independent decoder built with protobufjs
// load() from the committed .proto files: the envelope, objects, lists, watch frames, every verb that
// answers with the object, and the JSON fallback for custom resources.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { PREFIX, PROTOBUF, ProtoFiles, rawRequest, watchFrames } from '../helpers/protobuf.js';

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

function pod(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'pb' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 80 }],
          resources: { limits: { cpu: '500m', memory: '128Mi' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
        },
      ],
    },
  };
}

const test = suite('protobuf responses');
let server: ApiServerProcess;
let proto: ProtoFiles;
test.before(async () => {
  proto = await ProtoFiles.load();
  server = await startApiServer();
  for (const name of ['pb-a', 'pb-b', 'pb-c']) assert.is((await server.request('POST', PODS, pod(name))).status, 201);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

test('GET in Protobuf is the 4-byte prefix and an Unknown envelope whose raw decodes with the .proto files to the JSON object', async () => {
  const r = await rawRequest(server, 'GET', `${PODS}/pb-a`, undefined, { accept: PROTOBUF });
  assert.is(r.status, 200);
  assert.is(r.contentType, PROTOBUF);
  assert.ok(PREFIX.equals(r.body.subarray(0, 4)));
  const env = proto.envelope(r.body);
  assert.equal([env.apiVersion, env.kind], ['v1', 'Pod']);
  assert.not.ok(env.contentEncoding);
  assert.not.ok(env.contentType);
  const json = (await server.request('GET', `${PODS}/pb-a`)).json;
  const m = proto.decode(r.body).message;
  assert.is(m.metadata.name, 'pb-a');
  assert.is(m.metadata.namespace, 'default');
  assert.is(m.metadata.uid, json.metadata.uid);
  assert.is(m.metadata.resourceVersion, json.metadata.resourceVersion);
  assert.equal(m.metadata.labels, { app: 'pb' });
  assert.is(m.metadata.creationTimestamp.seconds, Date.parse(json.metadata.creationTimestamp) / 1000);
  assert.ok(m.metadata.managedFields.length >= 1);
  assert.equal(JSON.parse(Buffer.from(m.metadata.managedFields[0].fieldsV1.Raw, 'base64').toString()), json.metadata.managedFields[0].fieldsV1);
  const c = m.spec.containers[0];
  assert.is(c.image, 'nginx:1.27');
  assert.is(c.ports[0].containerPort, 80);
  assert.is(c.resources.limits.cpu.string, '500m');
  assert.equal(c.livenessProbe.handler.httpGet.port, { type: 1, strVal: 'http' });
  assert.is(m.spec.restartPolicy, json.spec.restartPolicy);
  assert.is(m.spec.terminationGracePeriodSeconds, 30);
  assert.is(m.status.phase, json.status.phase);
});

test('a list is <Kind>List {metadata = ListMeta, items} with every item and the list resourceVersion', async () => {
  const r = await rawRequest(server, 'GET', PODS, undefined, { accept: PROTOBUF });
  assert.is(r.status, 200);
  const d = proto.decode(r.body);
  assert.is(d.kind, 'PodList');
  const json = (await server.request('GET', PODS)).json;
  assert.is(d.message.metadata.resourceVersion, json.metadata.resourceVersion);
  assert.equal(d.message.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['pb-a', 'pb-b', 'pb-c']);
  const chunk = proto.decode((await rawRequest(server, 'GET', `${PODS}?limit=2`, undefined, { accept: PROTOBUF })).body);
  assert.is(chunk.message.items.length, 2);
  assert.ok(chunk.message.metadata.continue, 'the continue token is in ListMeta');
});

test('watch frames are a 4-byte big-endian length, then a WatchEvent envelope whose object is the enveloped object', async () => {
  const { contentType, frames } = await watchFrames(server, `${PODS}?watch=1&labelSelector=app%3Dpb`, 3);
  assert.is(contentType, PROTOBUF);
  assert.is(frames.length, 3);
  const names: string[] = [];
  for (const f of frames) {
    const ev = proto.decode(f);
    assert.is(ev.kind, 'WatchEvent');
    assert.is(ev.message.type, 'ADDED');
    const obj = proto.decode(Buffer.from(ev.message.object.raw, 'base64'));
    assert.is(obj.kind, 'Pod');
    names.push(obj.message.metadata.name);
  }
  assert.equal(names.sort(), ['pb-a', 'pb-b', 'pb-c']);
});

test('create, update, patch and delete answer in Protobuf when Accept asks for it; Protobuf out with JSON in', async () => {
  const labels = { app: 'pb-deploy' };
  const body = { metadata: { name: 'pb-d' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  const created = await rawRequest(server, 'POST', DEPLOY, JSON.stringify(body), { 'content-type': 'application/json', accept: PROTOBUF });
  assert.is(created.status, 201, created.body.toString());
  assert.is(created.contentType, PROTOBUF);
  const d = proto.decode(created.body);
  assert.is(d.kind, 'Deployment');
  assert.is(d.message.spec.replicas, 1);

  const current = (await server.request('GET', `${DEPLOY}/pb-d`)).json;
  current.spec.replicas = 2;
  const updated = await rawRequest(server, 'PUT', `${DEPLOY}/pb-d`, JSON.stringify(current), { 'content-type': 'application/json', accept: PROTOBUF });
  assert.is(updated.status, 200);
  assert.is(proto.decode(updated.body).message.spec.replicas, 2);

  const patched = await rawRequest(server, 'PATCH', `${DEPLOY}/pb-d`, JSON.stringify({ spec: { replicas: 3 } }), { 'content-type': 'application/merge-patch+json', accept: PROTOBUF });
  assert.is(patched.status, 200);
  assert.is(proto.decode(patched.body).message.spec.replicas, 3);

  const deleted = await rawRequest(server, 'DELETE', `${DEPLOY}/pb-d`, undefined, { accept: PROTOBUF });
  assert.is(deleted.status, 200);
  assert.is(deleted.contentType, PROTOBUF);
  const env = proto.envelope(deleted.body);
  assert.ok(env.kind === 'Status' || env.kind === 'Deployment', env.kind);
});

test('Accept with Protobuf and a JSON fallback on a subresource answers JSON', async () => {
  const r = await server.request('GET', `${PODS}/pb-a/status`, undefined, { accept: `${PROTOBUF}, application/json` });
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'application/json');
});

test.run();
