// --kvstore-servers, --kvstore-prefix and --kvstore-servers-overrides through the real apiserver:
// each resource's objects land in the etcd cluster and under the prefix the flags name.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startApiServer } from '../helpers/apiserver.js';
import { startEtcd } from '../helpers/etcd.js';

test('configmaps go to the override cluster, everything else to the main one, under --kvstore-prefix', async () => {
  const main = await startEtcd();
  const other = await startEtcd();
  const server = await startApiServer({
    args: [`--kvstore-servers=${main.endpoint}`, `--kvstore-servers-overrides=/configmaps#${other.endpoint}`, '--kvstore-prefix=/custom'],
  });
  const a = await openEtcdStore({ endpoints: [main.endpoint] });
  const b = await openEtcdStore({ endpoints: [other.endpoint] });
  try {
    assert.is((await server.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'routed' } })).status, 201);
    assert.is((await server.request('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'kept' } })).status, 201);
    assert.ok(await b.get('/custom/configmaps/default/routed'), 'configmap in the override cluster');
    assert.not.ok(await a.get('/custom/configmaps/default/routed'), 'not in the main cluster');
    assert.ok(await a.get('/custom/secrets/default/kept'), 'secret in the main cluster');
    assert.ok(await a.get('/custom/namespaces/default'), 'namespaces in the main cluster');
    const list = await server.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['routed']);
  } finally {
    await a.close();
    await b.close();
    await server.stop();
    server.cleanup();
    await main.stop();
    await other.stop();
  }
});

test('an unreachable etcd stops the start with a clear message', async () => {
  let message = '';
  try {
    await (await startApiServer({ args: ['--kvstore-servers=http://127.0.0.1:1'], readyTimeoutMs: 30_000 })).stop();
  } catch (err) {
    message = String(err);
  }
  assert.match(message, /exited early \(1\)/);
  assert.match(message, /127\.0\.0\.1:1/);
});

test.run();
