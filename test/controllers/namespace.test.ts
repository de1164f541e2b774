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
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { namespaceLifecycle } from '../../machines/lifecycles/namespace.js';

let cluster: TestCluster;
const APISERVICES: ResourceRef = { group: 'apiregistration.svc.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false };
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

test('a namespace whose resources cannot all be discovered stays, says so, and goes once discovery works again', async () => {
  const { client } = cluster;
  // An extension group served by nothing: /apis lists it, /apis/broken.example.com/v1 answers 503.
  await client.create(APISERVICES, '', {
    apiVersion: 'apiregistration.svc.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.broken.example.com' },
    spec: { group: 'broken.example.com', version: 'v1', service: { namespace: 'nowhere', name: 'api' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
  });
  await client.create(resources.namespaces, '', namespace('undiscovered'));
  // Content held by a finalizer keeps the namespace in its passes until discovery is read again.
  await client.create(resources.configmaps, 'undiscovered', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pinned', finalizers: ['example.com/keep'] } });
  await client.delete(resources.namespaces, '', 'undiscovered');
  await eventually(async () => condition(await getNs('undiscovered'), 'NamespaceDeletionDiscoveryFailure')?.status === 'True', 20_000, 'discovery failure reported');
  assert.match(condition(await getNs('undiscovered'), 'NamespaceDeletionDiscoveryFailure')!.message ?? '', /^Discovery failed: /);
  await client.delete(APISERVICES, '', 'v1.broken.example.com');
  await client.patch(resources.configmaps, 'undiscovered', 'pinned', 'merge', { metadata: { finalizers: null } });
  await eventually(async () => (await getNs('undiscovered')) === undefined, 30_000, 'namespace gone once discovery works');
});

test('a namespace with a finalizer of its own is emptied, loses the svc finalizer and waits for the other', async () => {
  const { client } = cluster;
  await client.create(resources.namespaces, '', { ...namespace('kept'), spec: { finalizers: ['svc', 'example.com/hold'] } });
  await client.create(resources.configmaps, 'kept', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  await client.delete(resources.namespaces, '', 'kept');
  await eventually(async () => JSON.stringify((await getNs('kept'))?.spec?.finalizers) === '["example.com/hold"]', 15_000, 'svc finalizer removed');
  assert.equal((await client.list(resources.configmaps, { namespace: 'kept' })).items, []);
  const running = cluster.controllers.controllers.find((c) => c.name === 'namespace')!;
  await eventually(async () => running.activity.lifecycle?.object('kept')?.state === 'waitingOnFinalizers.namespace', 10_000, 'waiting on the namespace finalizer');
  assert.is(running.activity.lifecycle?.object('kept')?.holds, 'spec.finalizers: example.com/hold');
  const ns = (await getNs('kept'))!;
  await client.subresource(resources.namespaces, '', 'kept', 'finalize', 'PUT', { ...ns, spec: { finalizers: [] } });
  await eventually(async () => (await getNs('kept')) === undefined, 15_000, 'namespace gone once its last finalizer is removed');
  await eventually(async () => running.activity.lifecycle?.object('kept') === undefined, 10_000, 'forgotten once gone');
});

test('every state of the namespace lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, namespaceLifecycle);
});

test.run();
