// The endpoint and endpointslice controllers against the real API server, with the replicaset
// controller and simulated nodes: a Service's ready and not-ready pods, named target ports
// resolved, pods that stop matching leave, slices hold at most --max-endpoints-per-slice, and a
// deleted Service takes its Endpoints and slices with it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EndpointSlice, Endpoints, Pod, Service } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { replicaSet } from '../helpers/objects.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['endpoint', 'endpointslice', 'replicaset'], nodes: 2, controllerConfig: { maxEndpointsPerSlice: 2 } });
});

test.after(async () => {
  await cluster.stop();
});

const service = (name: string, app: string): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', labels: { team: 'a' } },
  spec: { selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 'web' }, { name: 'metrics', port: 9090, targetPort: 9090 }] },
});
const getEp = (name: string) => cluster.client.get<Endpoints>(resources.endpoints, 'default', name).catch(() => undefined);
const slices = async (name: string) => (await cluster.client.list<EndpointSlice>(resources.endpointslices, { namespace: 'default', labelSelector: `svc.io/service-name=${name}` })).items;
const ips = (ep: Endpoints | undefined, field: 'addresses' | 'notReadyAddresses') => (ep?.subsets ?? []).flatMap((s) => s[field] ?? []).map((a) => a.ip).sort();

test('Endpoints list the ready pods with their named port resolved; slices hold at most 2 endpoints', async () => {
  const rs = replicaSet('web', 3);
  rs.spec!.template!.spec!.containers![0]!.ports = [{ name: 'web', containerPort: 8080 }];
  await cluster.client.create(resources.replicasets, 'default', rs);
  await cluster.client.create(resources.services, 'default', service('web', 'web'));
  await eventually(async () => ips(await getEp('web'), 'addresses').length === 3, 15_000, '3 ready addresses');
  const ep = (await getEp('web'))!;
  assert.equal(ep.subsets?.[0]?.ports?.map((p) => [p.name, p.port, p.protocol]).sort(), [['http', 8080, 'TCP'], ['metrics', 9090, 'TCP']]);
  assert.is(ep.metadata.labels?.['team'], 'a');
  const pods = (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
  assert.equal(ips(ep, 'addresses'), pods.map((p) => p.status!.podIP!).sort());
  assert.is(ep.subsets?.[0]?.addresses?.[0]?.targetRef?.kind, 'Pod');

  await eventually(async () => (await slices('web')).reduce((n, s) => n + (s.endpoints?.length ?? 0), 0) === 3, 10_000, 'slices with 3 endpoints');
  const all = await slices('web');
  assert.is(all.length, 2, 'at most 2 endpoints a slice');
  for (const s of all) {
    assert.is(s.addressType, 'IPv4');
    assert.is(s.metadata.labels?.['endpointslice.svc.io/managed-by'], 'endpointslice-controller.svc.io');
    assert.is(s.metadata.ownerReferences?.[0]?.kind, 'Service');
    assert.ok(s.endpoints!.every((e) => e.conditions?.ready === true));
  }
});

test('a pod that stops matching leaves; a not-ready pod is listed as not ready', async () => {
  const [one] = (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
  await cluster.client.patch(resources.pods, 'default', one!.metadata.name!, 'merge', { metadata: { labels: { app: 'elsewhere' } } });
  await eventually(async () => !ips(await getEp('web'), 'addresses').includes(one!.status!.podIP!), 10_000, 'the pod left the Endpoints');
  // The replicaset controller replaces it: back to 3, the newcomer once it is ready.
  await eventually(async () => ips(await getEp('web'), 'addresses').length === 3, 15_000, 'back to 3');

  const [two] = (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
  const conditions = (two!.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c));
  await cluster.client.patch(resources.pods, 'default', two!.metadata.name!, 'merge', { status: { conditions } }, { subresource: 'status' });
  await eventually(async () => ips(await getEp('web'), 'notReadyAddresses').includes(two!.status!.podIP!), 10_000, 'listed as not ready');
  await eventually(async () => (await slices('web')).some((s) => s.endpoints?.some((e) => e.addresses?.[0] === two!.status!.podIP && e.conditions?.ready === false)), 10_000, 'not ready in its slice');
});

test('a deleted Service takes its Endpoints and slices with it; a Service without a selector and a leader-election lock are left alone', async () => {
  await cluster.client.delete(resources.services, 'default', 'web');
  await eventually(async () => (await getEp('web')) === undefined && (await slices('web')).length === 0, 10_000, 'Endpoints and slices gone');
  await cluster.client.create(resources.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
  await cluster.client.create(resources.endpoints, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual', namespace: 'default' }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80 }] }] });
  // A leader-election lock is an Endpoints without a Service: it must stay.
  await cluster.client.create(resources.endpoints, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'some-lock', namespace: 'default', annotations: { 'control-plane.alpha.svc.io/leader': '{"holderIdentity":"x"}' } } });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(ips(await getEp('manual'), 'addresses'), ['192.0.2.1']);
  assert.ok(await getEp('some-lock'), 'the lock was left alone');
});

test.run();
