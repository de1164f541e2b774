// The serviceaccount controller against the real API server: every active namespace gets a
// `default` ServiceAccount, a deleted one comes back, a terminating namespace gets none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServiceAccount } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['serviceaccount'], scheduler: false });
});

test.after(async () => {
  await cluster.stop();
});

const account = (ns: string) => cluster.client.get<ServiceAccount>(resources.serviceaccounts, ns, 'default').catch(() => undefined);

test('existing and new namespaces get a default ServiceAccount', async () => {
  await eventually(async () => (await account('default')) !== undefined, 5_000, 'default/default');
  await cluster.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  await eventually(async () => (await account('team-a')) !== undefined, 5_000, 'team-a/default');
});

test('a deleted default ServiceAccount comes back; one that exists is left as it is', async () => {
  await cluster.client.patch(resources.serviceaccounts, 'team-a', 'default', 'merge', { metadata: { labels: { mine: 'yes' } } });
  await new Promise((r) => setTimeout(r, 200));
  assert.is((await account('team-a'))?.metadata.labels?.['mine'], 'yes');
  const before = (await account('team-a'))!.metadata.uid;
  await cluster.client.delete(resources.serviceaccounts, 'team-a', 'default');
  await eventually(async () => {
    const sa = await account('team-a');
    return sa !== undefined && sa.metadata.uid !== before;
  }, 5_000, 'recreated');
});

test('a terminating namespace gets none', async () => {
  await cluster.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } });
  await eventually(async () => (await account('going')) !== undefined, 5_000, 'going/default');
  await cluster.client.delete(resources.namespaces, '', 'going');
  await cluster.client.delete(resources.serviceaccounts, 'going', 'default').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await account('going'), undefined);
});

test.run();
