// The namespace controller against the real API server, with the replicaset controller and
// simulated nodes: deleting a namespace removes its built-in and custom objects (pods after their
// grace period), reports what remains in its conditions, and removes the namespace once empty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Namespace, Pod } from '../../src/api/generated/kinds.js';
import { resources, type ResourceRef } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { customResourceDefinition, namespace, replicaSet } from '../helpers/objects.js';

let cluster: TestCluster;
const WIDGETS: ResourceRef = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['namespace', 'replicaset'], nodes: 1 });
});

test.after(async () => {
  await cluster.stop();
});

const getNs = (name: string) => cluster.client.get<Namespace>(resources.namespaces, '', name).catch(() => undefined);
const condition = (ns: Namespace | undefined, type: string) => ns?.status?.conditions?.find((c) => c.type === type);

test('deleting a namespace removes its configmaps, custom objects and running pods, then the namespace', async () => {
  const { client } = cluster;
  await client.create(resources.customresourcedefinitions, '', customResourceDefinition('example.com', 'widgets', 'Widget'));
  await eventually(async () => (await client.list(WIDGETS, { namespace: 'default' }).then(() => true, () => false)), 10_000, 'widgets served');
  await client.create(resources.namespaces, '', namespace('doomed'));
  await client.create(resources.configmaps, 'doomed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } });
  await client.create(WIDGETS, 'doomed', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } });
  await client.create(resources.replicasets, 'doomed', replicaSet('web', 2, { namespace: 'doomed', terminationGracePeriodSeconds: 1 }));
  await eventually(async () => (await client.list<Pod>(resources.pods, { namespace: 'doomed' })).items.filter((p) => p.status?.phase === 'Running').length === 2, 15_000, '2 pods running');

  await client.delete(resources.namespaces, '', 'doomed');
  assert.is((await getNs('doomed'))?.status?.phase, 'Terminating');
  await eventually(async () => (await getNs('doomed')) === undefined, 20_000, 'namespace gone');
  for (const ref of [resources.configmaps, resources.pods, resources.replicasets, WIDGETS]) {
    assert.equal((await client.list(ref, { namespace: 'doomed' })).items, [], ref.resource);
  }
});

test('content held by a finalizer keeps the namespace, says so in its conditions, and lets go once released', async () => {
  const { client } = cluster;
  await client.create(resources.namespaces, '', namespace('held'));
  await client.create(resources.configmaps, 'held', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pinned', finalizers: ['example.com/keep'] } });
  await client.delete(resources.namespaces, '', 'held');
  await eventually(async () => condition(await getNs('held'), 'NamespaceFinalizersRemaining')?.status === 'True', 10_000, 'finalizers remaining');
  const ns = await getNs('held');
  assert.is(condition(ns, 'NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances');
  assert.is(condition(ns, 'NamespaceContentRemaining')?.message, 'Some resources are remaining: configmaps has 1 resource instances');
  assert.is(condition(ns, 'NamespaceDeletionContentFailure')?.status, 'False');

  await client.patch(resources.configmaps, 'held', 'pinned', 'merge', { metadata: { finalizers: null } });
  await eventually(async () => (await getNs('held')) === undefined, 15_000, 'namespace gone after the finalizer is released');
});

test.run();
