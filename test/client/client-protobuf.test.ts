// Client content types against the real apiserver process: Protobuf (the default
// --svc-api-content-type) for pods and configmaps in requests, responses and watches, as the
// transport sees the server's Content-Type; JSON for a custom resource; JSON everywhere when asked;
// and the decoders refuse a Protobuf body without its 4-byte prefix (real bytes from the server).
import { firstValueFrom, take, toArray } from 'rxjs';
import { request } from 'undici';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, protobufBodyCodec } from '../../src/client/body-codecs.js';
import { connect } from '../../src/client/connect.js';
import type { ExchangeInfo } from '../../src/client/http-transport.js';
import { resources } from '../../src/client/typed.js';
import type { ApiClient, ResourceRef } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, writeSvcconfig } from '../helpers/client.js';

let server: ApiServerProcess;
let client: ApiClient;
let exchanges: ExchangeInfo[] = [];
let close: () => Promise<void>;
let jsonClient: ApiClient;
let closeJson: () => Promise<void>;
let jsonExchanges: ExchangeInfo[] = [];
test.before(async () => {
  server = await startApiServer();
  // The default content type: no contentType option at all.
  ({ client, close } = clientFor(server, { onResponse: (e) => exchanges.push(e) }));
  ({ client: jsonClient, close: closeJson } = clientFor(server, { contentType: 'application/json', onResponse: (e) => jsonExchanges.push(e) }));
  await client.create(resources.namespaces, '', { metadata: { name: 'pb' } });
});
test.after(async () => {
  await close();
  await closeJson();
  await server.stop();
  server.cleanup();
});

const mt = (ct: string | undefined) => (ct ?? '').split(';')[0]!.trim();

test('pods and configmaps go as Protobuf both ways by default, and read back the same as over JSON', async () => {
  exchanges = [];
  const pod = await client.create(resources.pods, 'pb', {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
  });
  const cm = await client.create(resources.configmaps, 'pb', { metadata: { name: 'settings' }, data: { color: 'blue' } });
  await client.update(resources.configmaps, 'pb', { ...cm, data: { color: 'green' } });
  const list = await client.list(resources.pods, { namespace: 'pb' });
  const got = await client.get(resources.configmaps, 'pb', 'settings');

  assert.equal(
    exchanges.map((e) => `${e.method} ${mt(e.requestContentType)} -> ${e.status} ${mt(e.responseContentType)}`),
    [
      `POST ${PROTOBUF_MEDIA_TYPE} -> 201 ${PROTOBUF_MEDIA_TYPE}`,
      `POST ${PROTOBUF_MEDIA_TYPE} -> 201 ${PROTOBUF_MEDIA_TYPE}`,
      `PUT ${PROTOBUF_MEDIA_TYPE} -> 200 ${PROTOBUF_MEDIA_TYPE}`,
      `GET  -> 200 ${PROTOBUF_MEDIA_TYPE}`,
      `GET  -> 200 ${PROTOBUF_MEDIA_TYPE}`,
    ],
  );
  assert.ok(exchanges.every((e) => e.accept === `${PROTOBUF_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`));
  assert.is(list.kind, 'PodList');
  assert.equal(list.items.map((p) => p.metadata.name), ['web']);
  assert.equal(got['data'], { color: 'green' });

  // The same objects read over JSON are equal to what Protobuf decoded.
  jsonExchanges = [];
  assert.equal(await jsonClient.get(resources.pods, 'pb', 'web'), await client.get(resources.pods, 'pb', 'web'));
  assert.equal(await jsonClient.get(resources.configmaps, 'pb', 'settings'), got);
  assert.equal(pod.spec, (await jsonClient.get(resources.pods, 'pb', 'web')).spec);
  assert.ok(jsonExchanges.every((e) => e.accept === JSON_MEDIA_TYPE && mt(e.responseContentType) === JSON_MEDIA_TYPE));
});

test('an empty list read as Protobuf has items: [] as in JSON', async () => {
  exchanges = [];
  const empty = await client.list(resources.secrets, { namespace: 'pb' });
  assert.is(mt(exchanges[0]!.responseContentType), PROTOBUF_MEDIA_TYPE);
  assert.equal(empty.items, []);
  assert.equal(empty, await jsonClient.list(resources.secrets, { namespace: 'pb' }));
});

test('a watch of configmaps is read from Protobuf frames', async () => {
  const { transport } = clientFor(server);
  const stream = await transport.stream({
    method: 'GET',
    path: '/api/v1/namespaces/pb/configmaps',
    query: { watch: 'true', timeoutSeconds: '1' },
    typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' },
  });
  assert.is(mt(stream.headers['content-type']), PROTOBUF_MEDIA_TYPE);
  const first = (await stream.events[Symbol.asyncIterator]().next()).value as { type: string; object: SvcObject };
  assert.is(first.type, 'ADDED');
  assert.is(first.object.kind, 'ConfigMap');
  stream.close();
  await transport.close();

  const events = firstValueFrom(client.watch(resources.configmaps, { namespace: 'pb', resourceVersion: '0', timeoutSeconds: 10 }).pipe(take(4), toArray()));
  await client.create(resources.configmaps, 'pb', { metadata: { name: 'watched' }, data: { n: '1' } });
  await client.patch(resources.configmaps, 'pb', 'watched', 'merge', { data: { n: '2' } });
  await client.delete(resources.configmaps, 'pb', 'watched');
  const seen = await events;
  assert.equal(seen.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED settings', 'ADDED watched', 'MODIFIED watched', 'DELETED watched']);
  assert.equal(seen[2]!.object['data'], { n: '2' });
});

test('a custom resource goes as JSON: JSON body, Accept application/json, JSON response and watch', async () => {
  const group = 'pbtest.example.com';
  const crds: ResourceRef = { group: 'apiextensions.svc.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };
  await client.create(crds, '', {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true }] },
  } as SvcObject);
  const gadgets: ResourceRef = { group, version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true };
  await eventually(async () => (await server.request('GET', `/apis/${group}/v1/namespaces/pb/gadgets`)).status === 200, 10_000, 'the CRD served');
  exchanges = [];
  const created = await client.create(gadgets, 'pb', { metadata: { name: 'g1' }, spec: { size: 3 } } as SvcObject);
  assert.is(created.kind, 'Gadget');
  assert.equal(created['spec'], { size: 3 });
  const listed = await client.list(gadgets, { namespace: 'pb' });
  assert.equal(listed.items.map((g) => g.metadata.name), ['g1']);
  assert.equal(
    exchanges.map((e) => `${mt(e.requestContentType)} ${e.accept} -> ${mt(e.responseContentType)}`),
    [`${JSON_MEDIA_TYPE} ${JSON_MEDIA_TYPE} -> ${JSON_MEDIA_TYPE}`, ` ${JSON_MEDIA_TYPE} -> ${JSON_MEDIA_TYPE}`],
  );
  const ev = await firstValueFrom(client.watch(gadgets, { namespace: 'pb', timeoutSeconds: 5 }));
  assert.is(ev.object.metadata.name, 'g1');
});

test('a Protobuf body the server refuses (415) is sent again as JSON', async () => {
  exchanges = [];
  // The binding subresource takes JSON or YAML only; a Pod-typed body is Protobuf-encodable.
  const err = await client
    .subresource(resources.pods, 'pb', 'web', 'binding', 'POST', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } })
    .then(() => undefined, (e: unknown) => e as Error);
  assert.match(String(err?.message), /must be Binding/, 'the JSON retry reached the handler');
  assert.equal(
    exchanges.map((e) => `${mt(e.requestContentType)} -> ${e.status}`),
    [`${PROTOBUF_MEDIA_TYPE} -> 415`, `${JSON_MEDIA_TYPE} -> 400`],
  );
});

test('an aliased group read under its established path decodes: list, get and watch, Content-Type as asked', async () => {
  // The garbage collector of a standalone controller manager once opened informers on
  // `/apis/coordination.k8s.io/...` (discovery lists both spellings): the server answered its
  // `Accept: application/vnd.svc.protobuf` in the established media type and the client took that
  // for JSON ("cannot decode the application/vnd.kubernetes.protobuf response").
  const leases: ResourceRef = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
  const established: ResourceRef = { ...leases, group: 'coordination.k8s.io' };
  await client.create(leases, 'pb', { metadata: { name: 'held' }, spec: { holderIdentity: 'a' } } as SvcObject);
  exchanges = [];
  const listed = await client.list(established, { namespace: 'pb' });
  const got = await client.get(established, 'pb', 'held');
  assert.equal(listed.items.map((l) => l.metadata.name), ['held']);
  assert.equal(got['spec'], { holderIdentity: 'a' });
  assert.is(got.apiVersion, 'coordination.k8s.io/v1', 'the object is spelled as the path was');
  assert.equal(exchanges.map((e) => mt(e.responseContentType)), [PROTOBUF_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE], 'the Content-Type echoes the Accept clause, not the path');
  const ev = await firstValueFrom(client.watch(established, { namespace: 'pb', timeoutSeconds: 5 }));
  assert.is(ev.object.metadata.name, 'held');
});

test('every content type the server may answer decodes: both Protobuf spellings, JSON, Table', async () => {
  const { transport } = clientFor(server);
  try {
    const path = '/apis/coordination.svc.io/v1/namespaces/pb/leases/held';
    const cases: [string, string, (body: SvcObject) => void][] = [
      [PROTOBUF_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, (b) => assert.is(b.metadata.name, 'held')],
      ['application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf', (b) => assert.is(b.apiVersion, 'coordination.k8s.io/v1')],
      [JSON_MEDIA_TYPE, JSON_MEDIA_TYPE, (b) => assert.is(b.metadata.name, 'held')],
      ['application/json;as=Table;g=meta.k8s.io;v=v1', 'application/json;as=Table;g=meta.k8s.io;v=v1', (b) => assert.is(b.kind, 'Table')],
      ['application/json;as=Table;g=meta.svc;v=v1', 'application/json;as=Table;g=meta.svc;v=v1', (b) => assert.is(b.kind, 'Table')],
    ];
    for (const [accept, contentType, check] of cases) {
      const res = await transport.request({ method: 'GET', path, headers: { accept } });
      assert.is(res.headers['content-type'], contentType, accept);
      check(res.body as SvcObject);
    }
    // The established spelling of a watch: frames decoded too.
    const stream = await transport.stream({ method: 'GET', path: '/apis/coordination.svc.io/v1/namespaces/pb/leases', query: { watch: 'true', timeoutSeconds: '1' }, headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.is(mt(stream.headers['content-type']), 'application/vnd.kubernetes.protobuf');
    const first = (await stream.events[Symbol.asyncIterator]().next()).value as { type: string; object: SvcObject };
    assert.is(`${first.type} ${first.object.metadata.name}`, 'ADDED held');
    stream.close();
  } finally {
    await transport.close();
  }
});

test('an unknown --svc-api-content-type is refused with a message naming the flag', () => {
  assert.throws(
    () => connect({ svcconfig: writeSvcconfig(server), contentType: 'text/xml' }),
    (err: Error) => /--svc-api-content-type: "text\/xml" is not supported; use one of: application\/json, application\/vnd\.svc\.protobuf/.test(err.message),
  );
});

test('a Protobuf body without the 4-byte prefix 0x6b 0x38 0x73 0x00 is refused (real bytes from the server)', async () => {
  const res = await request(`${server.url}/api/v1/namespaces/pb/configmaps/settings`, { headers: { accept: PROTOBUF_MEDIA_TYPE }, dispatcher: server.agent });
  const bytes = new Uint8Array(await res.body.arrayBuffer());
  assert.equal([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  const whole = protobufBodyCodec.decode(bytes) as SvcObject;
  assert.is(whole.metadata.name, 'settings');
  assert.throws(() => protobufBodyCodec.decode(bytes.subarray(4)), /must start with the 4 bytes 0x6b 0x38 0x73 0x00/);
  const wrongPrefix = Uint8Array.from(bytes);
  wrongPrefix[3] = 0x01;
  assert.throws(() => protobufBodyCodec.decode(wrongPrefix), /must start with the 4 bytes 0x6b 0x38 0x73 0x00/);

  // A watch frame whose envelope lacks the prefix is refused too, however the bytes are split.
  const watch = await request(`${server.url}/api/v1/namespaces/pb/configmaps?watch=true&timeoutSeconds=1`, {
    headers: { accept: PROTOBUF_MEDIA_TYPE },
    dispatcher: server.agent,
  });
  const stream = Buffer.from(await watch.body.arrayBuffer());
  const decoder = protobufBodyCodec.watchDecoder();
  const events = [...stream].flatMap((b) => decoder.push(Uint8Array.of(b)));
  assert.ok(events.length >= 1);
  assert.ok(events.every((e) => e.type === 'ADDED' || e.type === 'BOOKMARK'));
  assert.ok(events.some((e) => (e.object as SvcObject).metadata.name === 'settings'));
  const len = stream.readUInt32BE(0);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(len - 4, 0);
  const broken = Buffer.concat([prefix, stream.subarray(8, 4 + len)]);
  assert.throws(() => protobufBodyCodec.watchDecoder().push(broken), /must start with the 4 bytes 0x6b 0x38 0x73 0x00/);
});

test.run();
