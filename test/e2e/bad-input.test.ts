// Bad input gets the right Status code and a message a person can act on; nothing is stored and
// the server keeps serving. Ends with a few hundred mixed bad requests and a check of stored data.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

interface Case {
  name: string;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  code: number;
  reason?: string;
  message?: RegExp;
}

const CM = '/api/v1/namespaces/default/configmaps';

const cases: Case[] = [
  { name: 'malformed JSON', method: 'POST', path: CM, body: '{"metadata": {"name": "x"', code: 400, reason: 'BadRequest', message: /not valid JSON/ },
  { name: 'malformed YAML', method: 'POST', path: CM, body: 'metadata: [unclosed', headers: { 'content-type': 'application/yaml' }, code: 400, message: /YAML/ },
  { name: 'a JSON array instead of an object', method: 'POST', path: CM, body: '[1,2]', code: 400, message: /JSON object/ },
  { name: 'kind disagrees with the path', method: 'POST', path: CM, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }), code: 400, message: /kind/ },
  { name: 'apiVersion disagrees with the path', method: 'POST', path: CM, body: JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'k' } }), code: 400, message: /API version/ },
  { name: 'namespace disagrees with the path', method: 'POST', path: CM, body: JSON.stringify({ metadata: { name: 'k', namespace: 'svc-public' } }), code: 400, message: /namespace/ },
  { name: 'unknown content type', method: 'POST', path: CM, body: 'x', headers: { 'content-type': 'text/plain' }, code: 415, reason: 'UnsupportedMediaType' },
  { name: 'body over 3 MiB', method: 'POST', path: CM, body: JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } }), code: 413, reason: 'RequestEntityTooLarge' },
  { name: 'unknown query parameter', method: 'GET', path: `${CM}?bogus=1`, code: 400, message: /bogus/ },
  { name: 'bad limit', method: 'GET', path: `${CM}?limit=-3`, code: 400, message: /limit/ },
  { name: 'bad label selector', method: 'GET', path: `${CM}?labelSelector=a%20in%20(b`, code: 400 },
  { name: 'unsupported field selector', method: 'GET', path: `${CM}?fieldSelector=spec.nothing%3Dx`, code: 400, message: /spec\.nothing/ },
  { name: 'path traversal', method: 'GET', path: '/api/v1/namespaces/default/configmaps/%2e%2e', code: 400 },
  { name: 'encoded slash in a name', method: 'GET', path: '/api/v1/namespaces/default/configmaps/a%2Fb', code: 400 },
  { name: 'unknown resource', method: 'GET', path: '/api/v1/namespaces/default/widgets', code: 404 },
  { name: 'unknown group', method: 'GET', path: '/apis/nope.example.com/v1/things', code: 404 },
  { name: 'name too long', method: 'POST', path: CM, body: JSON.stringify({ metadata: { name: 'x'.repeat(300) } }), code: 422, reason: 'Invalid' },
  { name: 'name in the body differs from the URL on PUT', method: 'PUT', path: `${CM}/kept`, body: JSON.stringify({ metadata: { name: 'other' } }), code: 400, message: /does not match/ },
  { name: 'POST to a single object', method: 'POST', path: `${CM}/kept`, body: '{}', code: 400 },
  { name: 'strategic merge patch with an unknown directive', method: 'PATCH', path: `${CM}/kept`, body: '{"metadata":{"$patch":"bogus"}}', headers: { 'content-type': 'application/strategic-merge-patch+json' }, code: 400 },
  { name: 'merge patch that is not an object', method: 'PATCH', path: `${CM}/kept`, body: '[]', headers: { 'content-type': 'application/merge-patch+json' }, code: 400 },
  { name: 'JSON patch with an unknown op', method: 'PATCH', path: `${CM}/kept`, body: '[{"op":"explode","path":"/a"}]', headers: { 'content-type': 'application/json-patch+json' }, code: 400 },
  { name: 'dryRun value other than All', method: 'POST', path: `${CM}?dryRun=Some`, body: JSON.stringify({ metadata: { name: 'dr' } }), code: 400, message: /dryRun/ },
  { name: 'data of the wrong type', method: 'POST', path: CM, body: JSON.stringify({ metadata: { name: 'typed' }, data: 'not-a-map' }), code: 422 },
  { name: 'invalid propagationPolicy', method: 'DELETE', path: `${CM}/kept?propagationPolicy=Sideways`, code: 400 },
  { name: 'unacceptable Accept', method: 'GET', path: CM, headers: { accept: 'text/html' }, code: 406, reason: 'NotAcceptable' },
  { name: 'verb not served (update on a collection)', method: 'PUT', path: CM, body: '{}', code: 405 },
  { name: 'empty body on create', method: 'POST', path: CM, body: '', code: 400 },
];

forEachEngine('bad input', (test, ctx) => {
  test('setup: one object that must survive everything', async () => {
    const r = await ctx().server.request('POST', CM, { metadata: { name: 'kept', labels: { a: 'b' } }, data: { v: '1' } });
    assert.is(r.status, 201, r.text);
  });

  for (const c of cases) {
    test(`${c.name}: ${c.code}`, async () => {
      const r = await ctx().server.request(c.method, c.path, c.body, { 'content-type': 'application/json', ...c.headers });
      assert.is(r.status, c.code, `${c.name}: ${r.text.slice(0, 300)}`);
      if (c.code !== 404 || r.json) {
        assert.is(r.json?.kind, 'Status', r.text.slice(0, 300));
        assert.is(r.json.status, 'Failure');
        assert.is(r.json.code, c.code);
        assert.ok(r.json.message && r.json.message.length > 10, 'a message a person can act on');
      }
      if (c.reason) assert.is(r.json.reason, c.reason);
      if (c.message) assert.match(r.json.message, c.message);
    });
  }

  test('a few hundred bad requests leave stored data unchanged and the server serving', async () => {
    const { server } = ctx();
    const before = await server.request('GET', CM);
    const beforeNs = await server.request('GET', '/api/v1/namespaces');
    const junk: Case[] = [];
    for (let i = 0; i < 300; i++) {
      const c = cases[i % cases.length]!;
      junk.push(i % 7 === 0 ? { ...c, body: Buffer.from(Array.from({ length: 64 }, () => Math.floor(Math.random() * 256))) } : c);
    }
    for (let i = 0; i < junk.length; i += 20) {
      await Promise.all(
        junk.slice(i, i + 20).map(async (c) => {
          const r = await server.request(c.method, c.path, c.body, { 'content-type': 'application/json', ...c.headers });
          assert.ok(r.status >= 400 && r.status < 500, `${c.name} gave ${r.status}: ${r.text.slice(0, 200)}`);
        }),
      );
    }
    const after = await server.request('GET', CM);
    assert.equal(after.json.items, before.json.items);
    assert.is(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
    assert.equal((await server.request('GET', '/api/v1/namespaces')).json.items, beforeNs.json.items);
    const ok = await server.request('POST', CM, { metadata: { name: uniqueName() } });
    assert.is(ok.status, 201);
    assert.is(server.proc.exitCode, null);
  });
});
