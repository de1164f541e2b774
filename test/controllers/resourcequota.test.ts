// The resourcequota controller and the ResourceQuota admission plugin against the real API server
// (test cluster: the controller as its own service account, the scheduler, simulated nodes): usage
// shows in status; a create over quota is refused with 403 and the established message; 32
// concurrent creates never take the namespace over its quota; deleting gives usage back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ResourceQuota } from '../../src/api/generated/kinds.js';
import { parseQuantity } from '../../src/api/validation/quantity.js';
import { ApiError, resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { pod } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['resourcequota'], nodes: 1 });
});

test.after(async () => {
  await cluster.stop();
});

const ns = async (name: string) => cluster.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const quota = (name: string, namespace: string, hard: Record<string, string>, extra: Partial<NonNullable<ResourceQuota['spec']>> = {}): ResourceQuota => ({
  apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace }, spec: { hard, ...extra },
});
const getQuota = (namespace: string, name: string) => cluster.client.get<ResourceQuota>(resources.resourcequotas, namespace, name);
const refusal = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the request to be refused');
};

test('usage shows; over quota is refused with the established message; a delete gives usage back', async () => {
  await ns('q1');
  await cluster.client.create(resources.pods, 'q1', pod('before', { namespace: 'q1', requests: { cpu: '300m', memory: '256Mi' } }, { spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '300m', memory: '256Mi' }, limits: { cpu: '300m', memory: '256Mi' } } }] } }));
  await cluster.client.create(resources.configmaps, 'q1', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
  await cluster.client.create(resources.resourcequotas, 'q1', quota('compute', 'q1', { pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', configmaps: '5', 'count/deployments.apps': '3' }));
  await eventually(async () => (await getQuota('q1', 'compute')).status?.used?.['pods'] === '1', 15_000, 'usage calculated');
  const st = (await getQuota('q1', 'compute')).status!;
  assert.equal(st.hard, { pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', configmaps: '5', 'count/deployments.apps': '3' });
  assert.equal(st.used, { configmaps: '1', 'count/deployments.apps': '0', 'limits.cpu': '300m', pods: '1', 'requests.cpu': '300m', 'requests.memory': '256Mi' });

  // No limits.cpu stated: the established constraint message.
  const e1 = await refusal(cluster.client.create(resources.pods, 'q1', pod('nolimit', { namespace: 'q1', requests: { cpu: '100m', memory: '1Mi' } })));
  assert.is(e1.code, 403);
  assert.is(e1.message, 'pods "nolimit" is forbidden: failed quota: compute: must specify limits.cpu for: c');

  const big = (name: string, cpu: string) => pod(name, { namespace: 'q1' }, { spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu, memory: '128Mi' }, limits: { cpu } } }] } });
  const e2 = await refusal(cluster.client.create(resources.pods, 'q1', big('huge', '800m')));
  assert.is(e2.code, 403);
  assert.is(e2.reason, 'Forbidden');
  assert.is(e2.message, 'pods "huge" is forbidden: exceeded quota: compute, requested: requests.cpu=800m, used: requests.cpu=300m, limited: requests.cpu=1');

  await cluster.client.create(resources.pods, 'q1', big('fits', '700m'));
  let q = await getQuota('q1', 'compute');
  assert.is(q.status?.used?.['requests.cpu'], '1', 'admission charged the create at once');
  assert.is(q.status?.used?.['pods'], '2');
  const e3 = await refusal(cluster.client.create(resources.pods, 'q1', big('third', '1m')));
  assert.match(e3.message, /exceeded quota: compute, requested: pods=1,requests.cpu=1m, used: pods=2,requests.cpu=1, limited: pods=2,requests.cpu=1$/);

  // A Deployment is counted by count/deployments.apps (a kind with no cache: listed at recalculation).
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
  await cluster.client.create(resources.deployments, 'q1', dep as never);
  q = await getQuota('q1', 'compute');
  assert.is(q.status?.used?.['count/deployments.apps'], '1');

  // Deleting gives usage back (the controller's replenishment).
  await cluster.client.delete(resources.pods, 'q1', 'fits', { gracePeriodSeconds: 0 });
  await eventually(async () => (await getQuota('q1', 'compute')).status?.used?.['requests.cpu'] === '300m', 15_000, 'usage given back');
  assert.is((await getQuota('q1', 'compute')).status?.used?.['pods'], '1');
});

test('32 concurrent creates never exceed the quota', async () => {
  await ns('q2');
  await cluster.client.create(resources.resourcequotas, 'q2', quota('count', 'q2', { pods: '10', configmaps: '7' }));
  await eventually(async () => (await getQuota('q2', 'count')).status?.used?.['pods'] === '0', 15_000, 'usage calculated');
  const results = await Promise.allSettled(Array.from({ length: 32 }, (_, i) => cluster.client.create(resources.pods, 'q2', pod(`p${i}`, { namespace: 'q2' }))));
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof ApiError && r.reason.code === 403 && /exceeded quota: count, requested: pods=1, used: pods=10, limited: pods=10/.test(r.reason.message)).length;
  assert.is(ok, 10, 'exactly the quota');
  assert.is(refused, 22, 'every other one refused with the established message');
  const cms = await Promise.allSettled(Array.from({ length: 32 }, (_, i) => cluster.client.create(resources.configmaps, 'q2', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } })));
  assert.is(cms.filter((r) => r.status === 'fulfilled').length, 7);
  assert.is((await cluster.client.list(resources.pods, { namespace: 'q2' })).items.length, 10);
  const q = await getQuota('q2', 'count');
  assert.equal(q.status?.used, { configmaps: '7', pods: '10' });
});

test('a Service type change and a claim shrink show at once, not at the sync period (update events replenish)', async () => {
  await ns('q4');
  await cluster.client.create(resources.resourcequotas, 'q4', quota('svc', 'q4', { 'services.nodeports': '4', 'services.loadbalancers': '2', 'requests.storage': '10Gi' }));
  await eventually(async () => (await getQuota('q4', 'svc')).status?.used?.['services.nodeports'] === '0', 15_000, 'usage calculated');
  await cluster.client.create(resources.services, 'q4', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } });
  await cluster.client.create(resources.persistentvolumeclaims, 'q4', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { storageClassName: 'none', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } } } });
  // Charged by admission at create.
  const storage = async () => parseQuantity((await getQuota('q4', 'svc')).status?.used?.['requests.storage']);
  await eventually(async () => (await getQuota('q4', 'svc')).status?.used?.['services.nodeports'] === '2' && (await storage()) === 3 * 2 ** 30, 15_000, 'charged');
  // The sync period is 5 minutes here: only the update events can give these back within the wait.
  await cluster.client.patch(resources.services, 'q4', 'web', 'merge', { spec: { type: 'ClusterIP' } });
  await eventually(async () => (await getQuota('q4', 'svc')).status?.used?.['services.nodeports'] === '0', 15_000, 'nodeports given back by the type change');
  await cluster.client.patch(resources.persistentvolumeclaims, 'q4', 'data', 'merge', { spec: { resources: { requests: { storage: '1Gi' } } } });
  await eventually(async () => (await storage()) === 2 ** 30, 15_000, 'storage given back by the shrink');
});

test('scopes: a BestEffort quota counts best-effort pods only; a PriorityClass selector its class', async () => {
  await ns('q3');
  await cluster.client.create(resources.resourcequotas, 'q3', quota('be', 'q3', { pods: '1' }, { scopes: ['BestEffort'] }));
  await cluster.client.create(resources.resourcequotas, 'q3', quota('prio', 'q3', { pods: '5' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }));
  await eventually(async () => (await getQuota('q3', 'be')).status?.used?.['pods'] === '0' && (await getQuota('q3', 'prio')).status?.used?.['pods'] === '0', 15_000, 'usage calculated');
  await cluster.client.create(resources.pods, 'q3', pod('be1', { namespace: 'q3' }));
  const e = await refusal(cluster.client.create(resources.pods, 'q3', pod('be2', { namespace: 'q3' })));
  assert.match(e.message, /exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1/);
  await cluster.client.create(resources.pods, 'q3', pod('burst', { namespace: 'q3', requests: { cpu: '10m' } }));
  assert.is((await getQuota('q3', 'be')).status?.used?.['pods'], '1', 'the burstable pod is not counted');
  assert.is((await getQuota('q3', 'prio')).status?.used?.['pods'], '0');
});

test.run();
