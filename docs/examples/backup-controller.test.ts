// The backup controller against a whole cluster in this process (node's test runner, as a
// scaffolded project has it). Run: node --test dist/docs/examples/backup-controller.test.js
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resources, startTestCluster, type TestCluster } from 'svc';
import { BACKUP_NAMESPACE, backupController } from './backup-controller.js';

let cluster: TestCluster;

before(async () => {
  // The API server on an embedded store in a temporary folder, and the controller under test.
  cluster = await startTestCluster({ scheduler: false, extraControllers: [backupController] });
  await cluster.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BACKUP_NAMESPACE } });
});

after(async () => {
  await cluster.stop();
});

/** Polls `check` every 50 ms for up to 10 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 10_000; !(await check()); await new Promise((r) => setTimeout(r, 50))) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
  }
}

const backupOf = (name: string) => cluster.client.get(resources.configmaps, BACKUP_NAMESPACE, `default.${name}`).then((cm) => cm.data, () => undefined);

test('labelled ConfigMaps are backed up and followed; others are not; a backup outlives its source', async () => {
  const { client } = cluster;
  for (let i = 0; i < 20; i++) {
    await client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `s${i}`, labels: { replicate: 'true' } }, data: { i: String(i) } });
  }
  await client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' }, data: { a: '1' } });
  await eventually('20 backups', async () => (await client.list(resources.configmaps, { namespace: BACKUP_NAMESPACE })).items.length === 20);
  assert.deepEqual(await backupOf('s7'), { i: '7' });
  assert.equal(await backupOf('plain'), undefined);

  await client.patch(resources.configmaps, 'default', 's7', 'merge', { data: { i: 'seven' } });
  await eventually('the backup follows', async () => (await backupOf('s7'))?.['i'] === 'seven');

  await client.delete(resources.configmaps, 'default', 's7');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await backupOf('s7'), { i: 'seven' }, 'the backup stays');
});
