// tokencleaner and bootstrapsigner against the real API server, each running as its established
// service account (bootstrap-signer, token-cleaner: namespaced Roles only) under Node,RBAC:
// - an expired bootstrap token Secret is deleted, one expiring in two seconds goes at its time, one
//   with no expiry stays;
// - cluster-info in svc-public gets `jws-kubeconfig-<id>` for each token that may sign, a detached
//   HS256 JWS of its `kubeconfig` that verifies with the token's secret; a token removed takes its
//   signature with it, and a token without usage-bootstrap-signing never signs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { flattenedVerify } from 'jose';
import type { ConfigMap, Secret } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['tokencleaner', 'bootstrapsigner'], scheduler: false });
});

test.after(async () => {
  await cluster?.stop();
});

const token = (id: string, data: Record<string, string>): Secret => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'svc-system' }, type: 'bootstrap.svc.io/token',
  stringData: { 'token-id': id, 'token-secret': `${id}0123456789ab`.slice(0, 16), ...data },
} as Secret);
const exists = (id: string) => cluster.client.get(resources.secrets, 'svc-system', `bootstrap-token-${id}`).then(() => true, () => false);

test('tokencleaner: expired tokens go, at their time; tokens without an expiry stay', async () => {
  // 5 s ahead (at least 4 s once the milliseconds are cut): time for the other deletions to be seen first on a loaded machine.
  const soon = new Date(Date.now() + 5_000).toISOString().replace(/\.\d+Z$/, 'Z');
  await cluster.client.create(resources.secrets, 'svc-system', token('old000', { expiration: '2020-01-01T00:00:00Z' }));
  await cluster.client.create(resources.secrets, 'svc-system', token('soon00', { expiration: soon }));
  await cluster.client.create(resources.secrets, 'svc-system', token('keep00', {}));
  await cluster.client.create(resources.secrets, 'svc-system', token('bad000', { expiration: 'tomorrow' }));
  await eventually(async () => !(await exists('old000')) && !(await exists('bad000')), 10_000, 'expired and unparseable tokens deleted');
  assert.ok(await exists('soon00'), 'not before its time');
  await eventually(async () => !(await exists('soon00')), 15_000, 'the token expiring soon deleted');
  assert.ok(await exists('keep00'));
});

test('bootstrapsigner: cluster-info is signed by each signing token; a removed token takes its signature', async () => {
  const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: "https://10.0.0.1:6443"}\n  name: ""\n';
  await cluster.client.create(resources.configmaps, 'svc-public', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'svc-public' }, data: { kubeconfig } } as ConfigMap);
  await cluster.client.create(resources.secrets, 'svc-system', token('sign01', { 'usage-bootstrap-signing': 'true' }));
  await cluster.client.create(resources.secrets, 'svc-system', token('sign02', { 'usage-bootstrap-signing': 'true' }));
  await cluster.client.create(resources.secrets, 'svc-system', token('auth01', { 'usage-bootstrap-authentication': 'true' }));
  const info = () => cluster.client.get<ConfigMap>(resources.configmaps, 'svc-public', 'cluster-info');
  await eventually(async () => !!(await info()).data?.['jws-kubeconfig-sign01'] && !!(await info()).data?.['jws-kubeconfig-sign02'], 10_000, 'both signatures');
  const data = (await info()).data!;
  assert.equal(Object.keys(data).sort(), ['jws-kubeconfig-sign01', 'jws-kubeconfig-sign02', 'kubeconfig']);
  const [header, empty, signature] = data['jws-kubeconfig-sign01']!.split('.');
  assert.is(empty, '', 'detached: no payload');
  assert.equal(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'HS256', kid: 'sign01' });
  const verified = await flattenedVerify({ protected: header!, payload: Buffer.from(kubeconfig).toString('base64url'), signature: signature! }, new TextEncoder().encode('sign010123456789'));
  assert.is(new TextDecoder().decode(verified.payload), kubeconfig);
  await cluster.client.delete(resources.secrets, 'svc-system', 'bootstrap-token-sign02');
  await eventually(async () => !(await info()).data?.['jws-kubeconfig-sign02'], 10_000, 'signature of the removed token gone');
  assert.ok((await info()).data?.['jws-kubeconfig-sign01']);
});

test.run();
