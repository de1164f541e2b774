// The guide's backup controller (docs/examples/backup-controller.ts) against a test cluster: every
// labelled ConfigMap gets its copy in `backups`, the copy follows the source's data, an unlabelled
// one gets none, a deleted source's backup stays; and the guide shows the file as it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { backupController, BACKUP_NAMESPACE } from '../../docs/examples/backup-controller.js';
import { ROOT } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';

let cluster: TestCluster;
test.before(async () => {
  cluster = await startTestCluster({ scheduler: false, extraControllers: [backupController] });
  await cluster.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BACKUP_NAMESPACE } });
});
test.after(async () => {
  await cluster.stop();
});

const backupData = async (name: string) => {
  try {
    return (await cluster.client.get(resources.configmaps, BACKUP_NAMESPACE, name)).data;
  } catch {
    return undefined;
  }
};

test('labelled ConfigMaps are backed up and followed; others are not; a backup outlives its source', async () => {
  const { client } = cluster;
  for (let i = 0; i < 20; i++) await client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `s${i}`, labels: { replicate: 'true' } }, data: { i: String(i) } });
  await client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' }, data: { a: '1' } });
  await eventually(async () => (await client.list(resources.configmaps, { namespace: BACKUP_NAMESPACE })).items.length === 20, 10_000, '20 backups');
  assert.equal(await backupData('default.s7'), { i: '7' });
  assert.is(await backupData('default.plain'), undefined);
  await client.patch(resources.configmaps, 'default', 's7', 'merge', { data: { i: 'seven' } });
  await eventually(async () => (await backupData('default.s7'))?.['i'] === 'seven', 10_000, 'the backup follows');
  await client.delete(resources.configmaps, 'default', 's7');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await backupData('default.s7'), { i: 'seven' }, 'the backup stays');
});

test('docs/writing-controllers.md shows the example as it is', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'writing-controllers.md'), 'utf8');
  assert.ok(doc.includes(readFileSync(join(ROOT, 'docs', 'examples', 'backup-controller.ts'), 'utf8')));
});

test.run();
