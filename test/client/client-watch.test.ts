// watch(): an RxJS Observable over the server's watch stream; unsubscribing closes it.
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resources } from '../../src/client/typed.js';
import type { ApiClient, ClientWatchEvent } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, metric } from '../helpers/client.js';

let server: ApiServerProcess;
let client: ApiClient;
let close: () => Promise<void>;
test.before(async () => {
  server = await startApiServer();
  ({ client, close } = clientFor(server));
});
test.after(async () => {
  await close();
  await server.stop();
  server.cleanup();
});

test('a watch from a resourceVersion delivers ADDED, MODIFIED and DELETED in order', async () => {
  const list = await client.list(resources.configmaps, { namespace: 'default' });
  const events: ClientWatchEvent[] = [];
  const got = firstValueFrom(
    client.watch(resources.configmaps, { namespace: 'default', resourceVersion: list.metadata.resourceVersion! }).pipe(take(3), toArray()),
  );
  await eventually(async () => (await metric(server, 'apiserver_registered_watchers', { resource: 'configmaps' })) === 1, 5000, 'the watch');
  await client.create(resources.configmaps, 'default', { metadata: { name: 'w' }, data: { v: '1' } });
  await client.patch(resources.configmaps, 'default', 'w', 'merge', { data: { v: '2' } });
  await client.delete(resources.configmaps, 'default', 'w');
  events.push(...(await got));
  assert.equal(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w', 'MODIFIED w', 'DELETED w']);
  const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
  assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!);
});

test('unsubscribing closes the watch on the server', async () => {
  const sub = client.watch(resources.secrets, { namespace: 'default' }).subscribe();
  await eventually(async () => (await metric(server, 'apiserver_registered_watchers', { resource: 'secrets' })) === 1, 5000, 'the watch');
  sub.unsubscribe();
  await eventually(async () => (await metric(server, 'apiserver_registered_watchers', { resource: 'secrets' })) === 0, 5000, 'the watch to close');
});

test('a watch the server ends (timeoutSeconds) completes, with a bookmark when allowed', async () => {
  const list = await client.list(resources.configmaps, { namespace: 'default' });
  const events = await firstValueFrom(
    client
      .watch(resources.configmaps, { namespace: 'default', resourceVersion: list.metadata.resourceVersion!, timeoutSeconds: 1, allowWatchBookmarks: true })
      .pipe(toArray()),
  );
  assert.equal(events.map((e) => e.type), ['BOOKMARK']);
  assert.ok(Number(events[0]!.object.metadata.resourceVersion) >= Number(list.metadata.resourceVersion));
});

test('a watch without a resourceVersion starts with the current objects as ADDED', async () => {
  await client.create(resources.configmaps, 'default', { metadata: { name: 'present', labels: { w: 'x' } } });
  const first = await firstValueFrom(
    client.watch(resources.configmaps, { namespace: 'default', labelSelector: 'w=x' }).pipe(filter((e) => e.type === 'ADDED')),
  );
  assert.is(first.object.metadata.name, 'present');
});

test.run();
