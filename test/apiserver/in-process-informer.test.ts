// A shared informer over the in-process transport: it lists in chunks, syncs, follows live changes,
// resumes after the server ends its watch (--min-request-timeout=1 ends each within 1-2 s), and its
// frozen cache never freezes or shares the objects the server keeps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import type { InformerEvent } from '../../src/client/informer-types.js';
import { createInformerFactory } from '../../src/client/informer-factory.js';
import { waitForSync } from '../../src/client/shared-informer.js';
import { resources } from '../../src/client/typed.js';
import { connectInProcess, type InProcessConnection } from '../../src/cli/in-process-client.js';
import { eventually, observedClient } from '../helpers/client.js';
import { type InProcessApiServer, startInProcessApiServer } from '../helpers/in-process-apiserver.js';

let api: InProcessApiServer;
let conn: InProcessConnection;
test.before(async () => {
  api = await startInProcessApiServer(['--min-request-timeout=1']);
  conn = connectInProcess(api.server);
  await conn.client.create(resources.namespaces, '', { metadata: { name: 'inf' } });
  for (let i = 0; i < 5; i++) await conn.client.create(resources.configmaps, 'inf', { metadata: { name: `initial-${i}` } });
});
test.after(async () => {
  await conn.close();
  await api.stop();
});

test('the informer syncs over the in-process transport and follows changes across server-ended watches', async () => {
  const seen = observedClient(conn.client);
  const factory = createInformerFactory(seen.client, { pageSize: 2 });
  const inf = factory.informer(resources.configmaps, { namespace: 'inf' });
  const events: InformerEvent[] = [];
  const sub = inf.events$.subscribe((e) => events.push(e));
  try {
    await waitForSync(inf);
    assert.is(inf.cache.size, 5);
    assert.is(seen.calls.list, 3, '5 objects in pages of 2');
    const client = conn.client;
    await client.create(resources.configmaps, 'inf', { metadata: { name: 'live', labels: { app: 'web' } }, data: { v: '1' } } as SvcObject);
    await eventually(() => inf.cache.get('inf/live') !== undefined, 5000, 'live in the cache');
    // Let the server end the first watch; the informer resumes from its last version (no re-list).
    await eventually(() => seen.calls.watch >= 2, 10_000, 'a second watch after the server ended the first');
    await client.patch(resources.configmaps, 'inf', 'live', 'merge', { data: { v: '2' } });
    await client.delete(resources.configmaps, 'inf', 'initial-0');
    await eventually(() => inf.cache.get('inf/live')?.['data'] !== undefined && (inf.cache.get('inf/live')!['data'] as Record<string, string>)['v'] === '2', 5000, 'the patch');
    await eventually(() => inf.cache.get('inf/initial-0') === undefined, 5000, 'the delete');
    assert.is(seen.calls.list, 3, 'resumed by watch, never re-listed');
    const names = events.map((e) => (e.type === 'SYNCED' ? 'SYNCED' : `${e.type} ${e.object.metadata.name}`));
    assert.equal(names.slice(-3), ['ADDED live', 'MODIFIED live', 'DELETED initial-0']);

    // The cache is frozen, yet the server's copy is not affected by it and the client still gets mutable objects.
    assert.ok(Object.isFrozen(inf.cache.get('inf/live')!.metadata));
    const fresh = await client.get(resources.configmaps, 'inf', 'live');
    assert.not.ok(Object.isFrozen(fresh.metadata));
    fresh.metadata.labels = { app: 'changed-locally' };
    assert.equal(inf.cache.get('inf/live')!.metadata.labels, { app: 'web' });
  } finally {
    sub.unsubscribe();
    factory.stop();
  }
});

test.run();
