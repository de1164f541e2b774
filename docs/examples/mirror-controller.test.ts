// Testing the mirror controller against a whole cluster in this process: the API server, the
// built-in namespace controller (so a deleted namespace really goes away) and the mirror itself.
// Run: node dist/docs/examples/mirror-controller.test.js
import { test } from 'uvu';
import * as assert from 'uvu/assert';
// Everything comes from the package's entry point, as in a project of yours.
import { resources, startTestCluster, type ApiClient, type TestCluster } from 'svc';
import { mirrorController } from './mirror-controller.js';

let cluster: TestCluster;
let client: ApiClient;

test.before(async () => {
  // About a tenth of a second: no process, no port to wait for.
  cluster = await startTestCluster({ controllers: ['namespace'], extraControllers: [mirrorController], scheduler: false });
  client = cluster.client;
});

test.after(async () => {
  await cluster.stop();
});

/** Polls `check` every 50 ms for up to `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const copyIn = (ns: string) => client.get(resources.configmaps, ns, 'settings').catch(() => undefined);

test('a labelled ConfigMap is copied into every namespace, new ones included', async () => {
  await client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  await client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', labels: { mirror: 'true' } }, data: { color: 'blue' } });
  await eventually(async () => (await copyIn('team-a'))?.['data'] !== undefined);
  assert.equal((await copyIn('team-a'))?.['data'], { color: 'blue' });
  await client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
  await eventually(async () => (await copyIn('team-b')) !== undefined);
});

test('a deleted namespace goes away with its copy (the namespace controller runs here)', async () => {
  await client.delete(resources.namespaces, '', 'team-b');
  await eventually(async () => client.get(resources.namespaces, '', 'team-b').then(() => false, () => true));
});

test.run();
