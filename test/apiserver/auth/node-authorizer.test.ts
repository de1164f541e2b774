// The Node authorization mode and the NodeRestriction admission plugin on the real API server (in
// process, `--authorization-mode=Node --enable-admission-plugins=NodeRestriction`), called as node
// identities (`system:node:<name>` in `system:nodes`) through the in-process transport: a node
// reads only what pods bound to it reference, writes only its own Node, Lease and pods' status,
// and the graph follows pods being bound and deleted. Then a simulated fleet whose nodes each act
// as themselves registers, heartbeats, runs a pod and removes it under those rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import type { Node, Pod } from '../../../src/api/generated/kinds.js';
import { ANNOTATION_MIRROR_POD } from '../../../src/api/well-known-labels.js';
import { NodeAuthorizer } from '../../../src/apiserver/auth/node-authorizer.js';
import { podReferences } from '../../../src/apiserver/auth/node-graph.js';
import { connectInProcess, type InProcessConnection } from '../../../src/cli/in-process-client.js';
import { ApiError, createInformerFactory, resources, type ApiClient } from '../../../src/client/index.js';
import { groupFromFlags, NodeFleet, nodeShapes, NODE_LEASE_NAMESPACE } from '../../../src/nodes/index.js';
import { eventually } from '../../helpers/client.js';
import { startInProcessApiServer, type InProcessApiServer } from '../../helpers/in-process-apiserver.js';
import { pod } from '../../helpers/objects.js';

const NS = 'node-auth';
let api: InProcessApiServer;
let admin: ApiClient;
const conns: InProcessConnection[] = [];

function asNode(name: string): ApiClient {
  const conn = connectInProcess(api.server, { user: { username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] } });
  conns.push(conn);
  return conn.client;
}

async function refused(p: Promise<unknown>, code = 403): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, ApiError);
    assert.is((err as ApiError).code, code, (err as ApiError).message);
    return (err as ApiError).status.message ?? '';
  }
  throw new Error(`expected a ${code}`);
}

const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { k: 'dg==' } });
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
/** A pod in NS referencing secret `s` as a volume and configmap `cm` through env. */
function podUsing(name: string, nodeName: string | undefined, s: string, cm: string, serviceAccountName?: string): Pod {
  return pod(name, { namespace: NS, ...(nodeName ? { nodeName } : {}) }, {
    spec: {
      containers: [{ name: 'c', image: 'registry.example/app:1', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: cm, key: 'k' } } }] }],
      volumes: [{ name: 'v', secret: { secretName: s } }],
      ...(serviceAccountName ? { serviceAccountName } : {}),
    },
  });
}

test.before(async () => {
  api = await startInProcessApiServer(['--authorization-mode=Node', '--enable-admission-plugins=NodeRestriction']);
  const conn = connectInProcess(api.server);
  conns.push(conn);
  admin = conn.client;
  await admin.create(resources.namespaces, '', { metadata: { name: NS } });
  for (const n of ['n1', 'n2']) await admin.create(resources.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: n } });
  for (const s of ['s1', 's2', 's3']) await admin.create(resources.secrets, NS, secret(s));
  for (const c of ['cm1', 'cm2']) await admin.create(resources.configmaps, NS, configMap(c));
  await admin.create(resources.pods, NS, podUsing('p1', 'n1', 's1', 'cm1', 'sa1'));
  await admin.create(resources.pods, NS, podUsing('p2', 'n2', 's2', 'cm2', 'sa2'));
});

test.after(async () => {
  for (const c of conns) await c.close();
  await api.stop();
});

test("a node reads the secrets and configmaps its pods reference, and nothing else (the established reason)", async () => {
  const n1 = asNode('n1');
  await eventually(async () => (await n1.get(resources.secrets, NS, 's1').then(() => true, () => false)), 5_000, 'n1 may get s1');
  assert.is(((await n1.get(resources.configmaps, NS, 'cm1')) as { data?: Record<string, string> }).data?.['k'], 'v');
  const msg = await refused(n1.get(resources.secrets, NS, 's2'));
  assert.match(msg, /User "system:node:n1" cannot get resource "secrets".*: no relationship found between node 'n1' and this object$/);
  await refused(n1.get(resources.configmaps, NS, 'cm2'));
  // A list names no object: no relationship can be shown.
  assert.match(await refused(n1.list(resources.secrets, { namespace: NS })), /No Object name found/);
  // A list or watch naming the object by field selector is authorized for that name (as established).
  assert.equal((await n1.list(resources.secrets, { namespace: NS, fieldSelector: 'metadata.name=s1' })).items.map((i) => i.metadata.name), ['s1']);
  await refused(n1.list(resources.secrets, { namespace: NS, fieldSelector: 'metadata.name=s2' }));
  // Writes to secrets are never the node's.
  assert.match(await refused(n1.update(resources.secrets, NS, secret('s1'))), /can only read resources of this type/);
  // Someone who is not a node gets no opinion from the Node mode (and nothing else allows here).
  const other = connectInProcess(api.server, { user: { username: 'system:node:n1', groups: ['system:authenticated'] } });
  conns.push(other);
  await refused(other.client.get(resources.secrets, NS, 's1'));
});

test('a node gets the pods bound to it and lists or watches pods only with its spec.nodeName selector', async () => {
  const n1 = asNode('n1');
  assert.is((await n1.get<Pod>(resources.pods, NS, 'p1')).metadata.name, 'p1');
  assert.match(await refused(n1.get(resources.pods, NS, 'p2')), /no relationship found between node 'n1'/);
  const mine = await n1.list<Pod>(resources.pods, { fieldSelector: 'spec.nodeName=n1' });
  assert.ok(mine.items.every((p) => p.spec?.nodeName === 'n1') && mine.items.some((p) => p.metadata.name === 'p1'));
  assert.match(await refused(n1.list(resources.pods, {})), /can only list\/watch pods with spec\.nodeName field selector/);
  assert.match(await refused(n1.list(resources.pods, { fieldSelector: 'spec.nodeName=n2' })), /spec\.nodeName field selector/);
  // Its own Node by field selector too; all nodes, no.
  assert.equal((await n1.list(resources.nodes, { fieldSelector: 'metadata.name=n1' })).items.map((i) => i.metadata.name), ['n1']);
  assert.match(await refused(n1.list(resources.nodes, {})), /node 'n1' cannot read all nodes, only its own Node object/);
});

test('a node creates tokens only for the service accounts of its pods', async () => {
  const n1 = asNode('n1');
  const request = { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { audiences: [] } };
  const mine = await n1.subresource(resources.serviceaccounts, NS, 'sa1', 'token', 'POST', request).then(
    () => 0,
    (e: unknown) => (e as ApiError).code,
  );
  assert.is.not(mine, 403, 'authorized (the token endpoint decides the rest)');
  assert.match(await refused(n1.subresource(resources.serviceaccounts, NS, 'sa2', 'token', 'POST', request)), /no relationship found between node 'n1'/);
});

test('a node updates its own Node and its status, not another node (authorizer for reads, NodeRestriction for writes)', async () => {
  const n1 = asNode('n1');
  await n1.patch(resources.nodes, '', 'n1', 'merge', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'SvcletReady', message: 'ok' }] } }, { subresource: 'status' });
  assert.is((await admin.get<Node>(resources.nodes, '', 'n1')).status?.conditions?.[0]?.status, 'True');
  await n1.patch(resources.nodes, '', 'n1', 'merge', { metadata: { labels: { 'svc.io/hostname': 'n1', team: 'a' } } });
  const other = await refused(n1.patch(resources.nodes, '', 'n2', 'merge', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { subresource: 'status' }));
  assert.is(other, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
  // Deleting a Node is no node's (not in the node rules).
  assert.match(await refused(n1.delete(resources.nodes, '', 'n2')), /User "system:node:n1" cannot delete resource "nodes" in API group "" at the cluster scope/);
  // Reads: only its own Node.
  assert.is((await n1.get<Node>(resources.nodes, '', 'n1')).metadata.name, 'n1');
  assert.match(await refused(n1.get(resources.nodes, '', 'n2')), /node 'n1' cannot read 'n2' Node object/);
  // Labels reserved for administrators, system labels that are not the agent's, and taints.
  assert.match(await refused(n1.patch(resources.nodes, '', 'n1', 'merge', { metadata: { labels: { 'node-restriction.svc.io/pool': 'gold' } } })), /is not allowed to modify labels: node-restriction\.svc\.io\/pool/);
  assert.match(await refused(n1.patch(resources.nodes, '', 'n1', 'merge', { metadata: { labels: { 'node-role.svc.io/control-plane': '' } } })), /node-role\.svc\.io\/control-plane/);
  assert.match(await refused(n1.patch(resources.nodes, '', 'n1', 'merge', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } })), /not allowed to modify taints/);
  const n3 = asNode('n3');
  assert.match(await refused(n3.create(resources.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3', labels: { 'node-restriction.svc.io/x': 'y' } } })), /not allowed to set the following labels: node-restriction\.svc\.io\/x/);
  await n3.create(resources.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3', labels: { 'svc.io/hostname': 'n3' } } });
});

test('a node patches the status of pods bound to it, deletes only those, and creates only mirror pods', async () => {
  const n1 = asNode('n1');
  await n1.patch(resources.pods, NS, 'p1', 'merge', { status: { phase: 'Running' } }, { subresource: 'status' });
  assert.is((await admin.get<Pod>(resources.pods, NS, 'p1')).status?.phase, 'Running');
  assert.match(await refused(n1.patch(resources.pods, NS, 'p2', 'merge', { status: { phase: 'Running' } }, { subresource: 'status' })), /node "n1" can only update pod status for pods with spec\.nodeName set to itself/);
  // Changing a pod itself is no node's (not in the node rules; NodeRestriction would refuse it too).
  assert.match(await refused(n1.patch(resources.pods, NS, 'p1', 'merge', { metadata: { labels: { a: 'b' } } })), /User "system:node:n1" cannot patch resource "pods" in API group "" in the namespace/);
  assert.match(await refused(n1.delete(resources.pods, NS, 'p2')), /node "n1" can only delete pods with spec\.nodeName set to itself/);
  assert.match(await refused(n1.subresource(resources.pods, NS, 'p2', 'eviction', 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2', namespace: NS } })), /can only evict pods with spec\.nodeName set to itself/);
  assert.match(await refused(n1.create(resources.pods, NS, pod('plain', { namespace: NS, nodeName: 'n1' }))), /can only create mirror pods/);
  const self = await admin.get<Node>(resources.nodes, '', 'n1');
  const mirror = pod('static-n1', { namespace: NS, nodeName: 'n1' }, { metadata: { name: 'static-n1', namespace: NS, annotations: { [ANNOTATION_MIRROR_POD]: 'h' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: self.metadata.uid ?? '', controller: true }] } });
  await n1.create(resources.pods, NS, mirror);
  const elsewhere = { ...mirror, metadata: { ...mirror.metadata, name: 'static-n2' }, spec: { ...mirror.spec!, nodeName: 'n2' } };
  assert.match(await refused(n1.create(resources.pods, NS, elsewhere)), /can only create pods with spec\.nodeName set to itself/);
  // Its own pod it may delete (the deletion's own write is not a second, refused, update).
  await n1.delete(resources.pods, NS, 'static-n1', { gracePeriodSeconds: 0 });
});

test('a node gets, renews and creates only its own Lease in svc-node-lease', async () => {
  const n1 = asNode('n1');
  const lease = (name: string) => ({ apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name, namespace: NODE_LEASE_NAMESPACE }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
  await n1.create(resources.leases, NODE_LEASE_NAMESPACE, lease('n1'));
  await n1.patch(resources.leases, NODE_LEASE_NAMESPACE, 'n1', 'merge', { spec: { leaseDurationSeconds: 41 } });
  assert.match(await refused(n1.create(resources.leases, NODE_LEASE_NAMESPACE, lease('n2'))), /can only access node lease with the same name as the requesting node/);
  await admin.create(resources.leases, NODE_LEASE_NAMESPACE, lease('n2'));
  assert.match(await refused(n1.get(resources.leases, NODE_LEASE_NAMESPACE, 'n2')), /can only access node lease with the same name/);
  assert.match(await refused(n1.create(resources.leases, NS, { ...lease('n1'), metadata: { name: 'n1', namespace: NS } })), /can only access leases in the "svc-node-lease" system namespace/);
});

test('a node keeps only its own CSINode', async () => {
  const n1 = asNode('n1');
  const csiNode = (name: string) => ({ apiVersion: 'storage.svc.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [] } });
  await n1.create(resources.csinodes, '', csiNode('n1'));
  assert.match(await refused(n1.create(resources.csinodes, '', csiNode('n2'))), /can only access CSINode with the same name as the requesting node/);
  await admin.create(resources.csinodes, '', csiNode('n2'));
  assert.match(await refused(n1.get(resources.csinodes, '', 'n2')), /can only access CSINode with the same name as the requesting node/);
  assert.ok(await n1.get(resources.csinodes, '', 'n1'));
});

test('the graph follows pods being bound and deleted', async () => {
  const n1 = asNode('n1');
  await admin.create(resources.pods, NS, podUsing('p3', undefined, 's3', 'cm2'));
  await refused(n1.get(resources.secrets, NS, 's3'));
  await admin.subresource(resources.pods, NS, 'p3', 'binding', 'POST', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p3', namespace: NS }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } });
  await eventually(async () => n1.get(resources.secrets, NS, 's3').then(() => true, () => false), 5_000, 'n1 may get s3 once p3 is bound to it');
  assert.ok(await n1.get(resources.configmaps, NS, 'cm2'), 'and the configmap p3 references');
  await admin.delete(resources.pods, NS, 'p3', { gracePeriodSeconds: 0 });
  await eventually(async () => n1.get(resources.secrets, NS, 's3').then(() => false, (e: unknown) => (e as ApiError).code === 403), 5_000, 'n1 refused s3 once p3 is gone');
  // cm2 is still referenced by p2, on n2: n1 lost it with p3, n2 keeps it.
  await refused(n1.get(resources.configmaps, NS, 'cm2'));
  assert.ok(await asNode('n2').get(resources.configmaps, NS, 'cm2'));
});

test('claims and volumes: a node gets the claim its pod uses and the volume bound to it, and changes only the claim status', async () => {
  const n1 = asNode('n1');
  await admin.create(resources.persistentvolumeclaims, NS, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  await admin.create(resources.persistentvolumes, '', {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-data' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' }, claimRef: { namespace: NS, name: 'data' } },
  });
  await refused(n1.get(resources.persistentvolumeclaims, NS, 'data'));
  await admin.create(resources.pods, NS, pod('p4', { namespace: NS, nodeName: 'n1' }, { spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } }));
  await eventually(async () => n1.get(resources.persistentvolumeclaims, NS, 'data').then(() => true, () => false), 5_000, 'n1 may get its pod\'s claim');
  assert.ok(await n1.get(resources.persistentvolumes, '', 'pv-data'), 'and the volume bound to it');
  assert.match(await refused(asNode('n2').get(resources.persistentvolumes, '', 'pv-data')), /no relationship found between node 'n2'/);
  assert.match(await refused(n1.list(resources.persistentvolumeclaims, { namespace: NS })), /can only get individual resources of this type/);
  await n1.patch(resources.persistentvolumeclaims, NS, 'data', 'merge', { status: { conditions: [{ type: 'Resizing', status: 'True' }] } }, { subresource: 'status' });
  assert.match(await refused(n1.patch(resources.persistentvolumeclaims, NS, 'data', 'merge', { metadata: { labels: { a: 'b' } } })), /can only get individual resources of this type/);
});

test('pod references: every place a pod names a secret, configmap, claim or account', () => {
  const refs = podReferences({
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      serviceAccountName: 'sa',
      imagePullSecrets: [{ name: 'pull' }],
      initContainers: [{ envFrom: [{ secretRef: { name: 'init-env' } }, { configMapRef: { name: 'init-cm' } }] }],
      containers: [{ env: [{ valueFrom: { secretKeyRef: { name: 'env', key: 'k' } } }] }],
      volumes: [
        { name: 'a', projected: { sources: [{ secret: { name: 'proj' } }, { configMap: { name: 'proj-cm' } }] } },
        { name: 'b', csi: { nodePublishSecretRef: { name: 'csi' } } },
        { name: 'c', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'eph', ephemeral: { volumeClaimTemplate: {} } },
      ],
    },
  }).map((r) => r.split('\0').join(' '));
  assert.equal(refs, [
    'configmap ns init-cm', 'configmap ns proj-cm', 'persistentvolumeclaim ns data', 'persistentvolumeclaim ns p-eph',
    'secret ns csi', 'secret ns env', 'secret ns init-env', 'secret ns proj', 'secret ns pull', 'serviceaccount ns sa',
  ]);
});

test('without a watch cache the graph follows the store itself', async () => {
  const uncached = await startInProcessApiServer(['--authorization-mode=Node', '--watch-cache=false']);
  const conn = connectInProcess(uncached.server);
  const node = connectInProcess(uncached.server, { user: { username: 'system:node:w1', groups: ['system:nodes', 'system:authenticated'] } });
  try {
    await conn.client.create(resources.secrets, 'default', secret('ws'));
    await conn.client.create(resources.configmaps, 'default', configMap('wcm'));
    await conn.client.create(resources.pods, 'default', { ...podUsing('wp', 'w1', 'ws', 'wcm'), metadata: { name: 'wp', namespace: 'default' } });
    await eventually(async () => node.client.get(resources.secrets, 'default', 'ws').then(() => true, () => false), 5_000, 'w1 may get ws');
    await conn.client.delete(resources.pods, 'default', 'wp', { gracePeriodSeconds: 0 });
    await eventually(async () => node.client.get(resources.secrets, 'default', 'ws').then(() => false, (e: unknown) => (e as ApiError).code === 403), 5_000, 'w1 refused ws once wp is gone');
  } finally {
    await node.close();
    await conn.close();
    await uncached.stop();
  }
});

test("a node's rules are not listed, as established (they depend on each object)", () => {
  const a = new NodeAuthorizer({ registry: undefined as never, storeFor: undefined as never, logger: pino({ level: 'silent' }) });
  assert.equal(a.rulesFor({ username: 'system:node:n1', groups: ['system:nodes'] }), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
  assert.equal(a.rulesFor({ username: 'alice', groups: [] }), { resourceRules: [], nonResourceRules: [], incomplete: false });
  assert.equal(a.authorize({ username: 'system:node:', groups: ['system:nodes'] }, { kind: 'nonResource', verb: 'get', path: '/healthz' }), { allowed: false, reason: 'unknown node for user "system:node:"' });
});

test('simulated nodes acting as themselves register, heartbeat, run a pod and remove it under Node and NodeRestriction', async () => {
  const logger = pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });
  const informers = createInformerFactory(admin);
  const fleet = new NodeFleet({
    client: admin,
    clientFor: (name) => asNode(name),
    informers,
    shapes: nodeShapes([groupFromFlags({ count: 2, namePrefix: 'own' })]),
    logger,
    timings: { imagePullMs: 30, containerStartMs: 10, containerStopMs: 50, leaseRenewMs: 150, statusReportMs: 400 },
  });
  fleet.start();
  try {
    for (const name of ['own-0', 'own-1']) {
      await eventually(async () => (await admin.get<Node>(resources.nodes, '', name).catch(() => undefined))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true, 10_000, `${name} Ready`);
      await eventually(async () => admin.get(resources.leases, NODE_LEASE_NAMESPACE, name).then(() => true, () => false), 5_000, `${name}'s Lease`);
    }
    await admin.create(resources.pods, NS, pod('on-own', { namespace: NS, nodeName: 'own-1' }));
    await eventually(async () => (await admin.get<Pod>(resources.pods, NS, 'on-own')).status?.phase === 'Running', 10_000, 'the pod Running');
    await admin.delete(resources.pods, NS, 'on-own');
    await eventually(async () => admin.get(resources.pods, NS, 'on-own').then(() => false, (e: unknown) => (e as ApiError).code === 404), 10_000, 'the node removed its pod');
  } finally {
    await fleet.stop();
    informers.stop();
  }
});

test.run();
