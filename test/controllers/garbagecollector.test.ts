// The garbage collector against the real API server, with the replicaset controller and a
// simulated node: background, orphan and foreground deletion of a ReplicaSet; dangling and solid
// owners across kinds, custom kinds included; an owner kind nobody serves keeps the dependent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigMap, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import type { OwnerReference, SvcObject } from '../../src/api/types.js';
import { resources, type ResourceRef } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { customResourceDefinition, replicaSet } from '../helpers/objects.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { garbageCollectorLifecycle } from '../../machines/lifecycles/garbagecollector.js';

let cluster: TestCluster;
const WIDGETS: ResourceRef = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['garbagecollector', 'replicaset'], nodes: 1 });
});

test.after(async () => {
  await cluster.stop();
});

const livePods = async (app: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items;
const exists = (ref: ResourceRef, name: string) => cluster.client.get(ref, 'default', name).then(() => true, () => false);
const cm = (name: string, owners: OwnerReference[] = []): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}) } });

async function runningSet(name: string, replicas: number): Promise<ReplicaSet> {
  const rs = await cluster.client.create<ReplicaSet>(resources.replicasets, 'default', replicaSet(name, replicas, { terminationGracePeriodSeconds: 1 }));
  await eventually(async () => (await livePods(name)).filter((p) => p.status?.phase === 'Running').length === replicas, 15_000, `${name}: pods running`);
  return rs;
}

const tracked = (key: string) => cluster.controllers.controllers.find((c) => c.name === 'garbagecollector')?.activity.lifecycle?.object(key);

test('an object whose owner exists is kept; an owner whose dependent goes is looked at and left alone', async () => {
  await runningSet('solid', 2);
  const [pod] = await livePods('solid');
  await eventually(async () => tracked(`pods/default/${pod!.metadata.name}`)?.state === 'kept', 10_000, 'pod kept');
  assert.is(tracked(`pods/default/${pod!.metadata.name}`)?.holds, '1 of 1 owners exist');
  await cluster.client.delete(resources.pods, 'default', pod!.metadata.name!);
  await eventually(async () => tracked('replicasets.apps/default/solid')?.state === 'idle', 10_000, 'owner looked at: nothing to collect');
  assert.is(tracked('replicasets.apps/default/solid')?.holds, 'no owners');
  await cluster.client.delete(resources.replicasets, 'default', 'solid');
  await eventually(async () => (await livePods('solid')).length === 0, 15_000, 'pods collected');
  await eventually(async () => tracked('replicasets.apps/default/solid') === undefined, 10_000, 'the deleted owner is forgotten');
});

test('background: deleting a ReplicaSet deletes its pods afterwards', async () => {
  await runningSet('bg', 2);
  await cluster.client.delete(resources.replicasets, 'default', 'bg');
  assert.not.ok(await exists(resources.replicasets, 'bg'), 'the owner goes at once');
  await eventually(async () => (await livePods('bg')).length === 0, 15_000, 'pods collected');
});

test('orphan: the pods stay, without their owner reference', async () => {
  await runningSet('orph', 2);
  await cluster.client.delete(resources.replicasets, 'default', 'orph', { propagationPolicy: 'Orphan' });
  await eventually(async () => !(await exists(resources.replicasets, 'orph')), 10_000, 'owner gone after orphaning');
  const pods = await livePods('orph');
  assert.is(pods.length, 2);
  for (const p of pods) assert.is(p.metadata.ownerReferences, undefined, p.metadata.name);
  await cluster.client.deleteCollection(resources.pods, 'default', { labelSelector: 'app=orph', gracePeriodSeconds: 0 });
});

test('foreground: the ReplicaSet stays, being deleted, until its pods are gone', async () => {
  await runningSet('fg', 2);
  await cluster.client.delete(resources.replicasets, 'default', 'fg', { propagationPolicy: 'Foreground' });
  const held = await cluster.client.get<ReplicaSet>(resources.replicasets, 'default', 'fg');
  assert.ok(held.metadata.deletionTimestamp);
  assert.ok(held.metadata.finalizers?.includes('foregroundDeletion'));
  await eventually(async () => !(await exists(resources.replicasets, 'fg')), 20_000, 'owner gone');
  assert.is((await livePods('fg')).length, 0, 'no pod outlived its foreground-deleted owner');
});

test('dangling and solid owners: an object whose owner is gone goes; one whose owner exists stays; an unserved owner kind keeps it', async () => {
  const { client } = cluster;
  const owner = await client.create<ConfigMap>(resources.configmaps, 'default', cm('owner'));
  await client.create(resources.configmaps, 'default', cm('kept', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! }]));
  await client.create(resources.configmaps, 'default', cm('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'no-such-uid' }]));
  await client.create(resources.configmaps, 'default', cm('unknown-kind', [{ apiVersion: 'example.org/v1', kind: 'Nope', name: 'x', uid: 'u-x' }]));
  await eventually(async () => !(await exists(resources.configmaps, 'dangling')), 10_000, 'dangling collected');
  assert.ok(await exists(resources.configmaps, 'kept'));
  assert.ok(await exists(resources.configmaps, 'unknown-kind'));
  await client.delete(resources.configmaps, 'default', 'owner');
  await eventually(async () => !(await exists(resources.configmaps, 'kept')), 10_000, 'dependent of the deleted owner collected');
  await client.delete(resources.configmaps, 'default', 'unknown-kind');
});

test('custom kinds are in the graph: a Widget owning a ConfigMap, and a ConfigMap owning a Widget', async () => {
  const { client } = cluster;
  await client.create(resources.customresourcedefinitions, '', customResourceDefinition('example.com', 'widgets', 'Widget'));
  await eventually(async () => client.list(WIDGETS, { namespace: 'default' }).then(() => true, () => false), 10_000, 'widgets served');
  const w = await client.create<SvcObject>(WIDGETS, 'default', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
  await client.create(resources.configmaps, 'default', cm('of-widget', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: w.metadata.uid!, blockOwnerDeletion: true }]));
  const c = await client.create<ConfigMap>(resources.configmaps, 'default', cm('widget-owner'));
  await client.create(WIDGETS, 'default', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'widget-owner', uid: c.metadata.uid! }] } });
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(await exists(resources.configmaps, 'of-widget'));
  assert.ok(await exists(WIDGETS, 'owned'));

  await client.delete(WIDGETS, 'default', 'w', { propagationPolicy: 'Foreground' });
  await eventually(async () => !(await exists(resources.configmaps, 'of-widget')) && !(await exists(WIDGETS, 'w')), 15_000, 'foreground through a custom owner');
  await client.delete(resources.configmaps, 'default', 'widget-owner');
  await eventually(async () => !(await exists(WIDGETS, 'owned')), 15_000, 'custom dependent collected');
});

test('every state of the garbage collector lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, garbageCollectorLifecycle);
});

test.run();
