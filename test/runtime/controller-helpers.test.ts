// The helpers users build controllers with, against a real API server (the test cluster):
// server-side apply from the client (and its conflicts), create-or-update through a conflict,
// the finalizer protocol with its cleanup, condition rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigMap } from '../../src/api/generated/kinds.js';
import { isConflict, resources } from '../../src/client/index.js';
import { createOrUpdate, finalize, getCondition, hasFinalizer, isConditionTrue, setCondition } from '../../src/runtime/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

let cluster: TestCluster;
test.before(async () => {
  cluster = await startTestCluster({ scheduler: false });
});
test.after(async () => {
  await cluster.stop();
});

const cm = (name: string, data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

test('client.apply: creates, records the manager, refuses another manager a field it does not own, takes it with force', async () => {
  const { client } = cluster;
  const created = await client.apply(resources.configmaps, cm('applied', { owner: 'a' }), { fieldManager: 'first' });
  assert.equal(created['data'], { owner: 'a' });
  assert.ok(created.metadata.managedFields?.some((m) => m.manager === 'first' && m.operation === 'Apply'));
  let refused: unknown;
  try {
    await client.apply(resources.configmaps, cm('applied', { owner: 'b' }), { fieldManager: 'second' });
  } catch (e) {
    refused = e;
  }
  assert.ok(isConflict(refused), 'a 409 conflict');
  const forced = await client.apply(resources.configmaps, cm('applied', { owner: 'b' }), { fieldManager: 'second', force: true });
  assert.equal(forced['data'], { owner: 'b' });
});

test('refs carry their object type: the client infers ConfigMap from resources.configmaps', async () => {
  const got = await cluster.client.get(resources.configmaps, 'default', 'applied');
  // Compiles only because `got` is a ConfigMap (on SvcObject, data would be unknown).
  const data: Record<string, string> | undefined = got.data;
  assert.equal(data, { owner: 'b' });
});

test('createOrUpdate: created, updated, unchanged; a conflicting write in between is absorbed', async () => {
  const { client } = cluster;
  const first = await createOrUpdate<ConfigMap>(client, resources.configmaps, 'default', 'cou', (o) => void (o.data = { a: '1' }));
  assert.is(first.result, 'created');
  const same = await createOrUpdate<ConfigMap>(client, resources.configmaps, 'default', 'cou', (o) => void (o.data = { a: '1' }));
  assert.is(same.result, 'unchanged');
  let runs = 0;
  const second = await createOrUpdate<ConfigMap>(client, resources.configmaps, 'default', 'cou', async (o) => {
    runs++;
    // Someone else writes after our read, the first time only: our update conflicts and is redone.
    if (runs === 1) await client.update(resources.configmaps, 'default', { ...cm('cou', { a: '1', other: 'x' }), metadata: { ...o.metadata } });
    o.data = { ...(o.data ?? {}), b: '2' };
  });
  assert.is(second.result, 'updated');
  assert.is(runs, 2);
  assert.equal(second.object.data, { a: '1', other: 'x', b: '2' });
});

test('finalize: a live object gets the finalizer; once deleted, the cleanup runs and the deletion completes', async () => {
  const { client } = cluster;
  const F = 'example.com/cleanup';
  const obj = await client.create(resources.configmaps, 'default', cm('guarded', { a: '1' }));
  const live = await finalize(client, resources.configmaps, obj, F, async () => assert.unreachable('no cleanup while live'));
  assert.is(live.outcome, 'live');
  assert.ok(live.outcome === 'live' && hasFinalizer(live.object, F));
  const deleting = await client.delete(resources.configmaps, 'default', 'guarded');
  assert.ok(deleting?.metadata.deletionTimestamp, 'the delete waits for the finalizer');
  const cleaned: string[] = [];
  const step = await finalize(client, resources.configmaps, deleting!, F, async (o) => void cleaned.push(o.metadata.name ?? ''));
  assert.is(step.outcome, 'finalized');
  assert.equal(cleaned, ['guarded']);
  let gone = false;
  try {
    await client.get(resources.configmaps, 'default', 'guarded');
  } catch {
    gone = true;
  }
  assert.ok(gone, 'the object is gone once its finalizer is off');
});

test('conditions: one per type, lastTransitionTime kept while the status stays', () => {
  const t0 = Date.UTC(2026, 0, 1);
  let list = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Starting', message: '' }, t0);
  list = setCondition(list, { type: 'Ready', status: 'False', reason: 'StillStarting', message: 'x' }, t0 + 5_000);
  assert.is(list.length, 1);
  assert.is(getCondition(list, 'Ready')?.lastTransitionTime, '2026-01-01T00:00:00Z');
  list = setCondition(list, { type: 'Ready', status: 'True', reason: 'Up', message: '' }, t0 + 9_000);
  assert.is(getCondition(list, 'Ready')?.lastTransitionTime, '2026-01-01T00:00:09Z');
  assert.ok(isConditionTrue(list, 'Ready'));
  assert.not.ok(isConditionTrue(list, 'Degraded'));
});

test.run();
