// With --feature-gates=DryRun=false every dry-run request is refused with a 400 that names the
// gate, instead of being silently written; ordinary writes are unaffected.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const CM = '/api/v1/namespaces/default/configmaps';
const test = suite('DryRun feature gate off');
let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer({ args: ['--feature-gates=DryRun=false'] });
  assert.is((await server.request('POST', CM, { metadata: { name: 'gated' } })).status, 201);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

test('POST, PUT, PATCH, DELETE and deletecollection with dryRun=All are 400 naming the DryRun gate', async () => {
  const calls: [string, string, unknown?, Record<string, string>?][] = [
    ['POST', `${CM}?dryRun=All`, { metadata: { name: 'x' } }],
    ['PUT', `${CM}/gated?dryRun=All`, { metadata: { name: 'gated' }, data: { a: 'b' } }],
    ['PATCH', `${CM}/gated?dryRun=All`, { data: { a: 'b' } }, { 'content-type': 'application/merge-patch+json' }],
    ['DELETE', `${CM}/gated?dryRun=All`],
    ['DELETE', `${CM}?dryRun=All`],
    ['DELETE', `${CM}/gated`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }],
  ];
  for (const [method, path, body, headers] of calls) {
    const r = await server.request(method, path, body, headers);
    assert.is(r.status, 400, `${method} ${path}: ${r.text}`);
    assert.is(r.json.kind, 'Status');
    assert.match(r.json.message, /DryRun feature gate/);
  }
  const after = await server.request('GET', `${CM}/gated`);
  assert.is(after.status, 200, 'nothing was deleted');
  assert.is(after.json.data, undefined, 'nothing was changed');
  assert.is((await server.request('GET', `${CM}/x`)).status, 404, 'nothing was created');
});

test('writes without dryRun still work with the gate off', async () => {
  const r = await server.request('POST', CM, { metadata: { name: 'plain' } });
  assert.is(r.status, 201);
});

test.run();
