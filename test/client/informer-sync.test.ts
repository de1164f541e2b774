// Informers: a chunked initial list, SYNCED, then live events; the cache is indexed and frozen.
import { filter, firstValueFrom, Subject, takeUntil } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import type { InformerEvent } from '../../src/client/informer-types.js';
import { createInformerFactory } from '../../src/client/informer-factory.js';
import { watch$ } from '../../src/client/reflector.js';
import { waitForSync } from '../../src/client/shared-informer.js';
import { resources } from '../../src/client/typed.js';
import type { ApiClient } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, observedClient } from '../helpers/client.js';

let server: ApiServerProcess;
let client: ApiClient;
let close: () => Promise<void>;
test.before(async () => {
  server = await startApiServer();
  ({ client, close } = clientFor(server));
  await client.create(resources.namespaces, '', { metadata: { name: 'inf' } });
  for (let i = 0; i < 5; i++) await client.create(resources.configmaps, 'inf', { metadata: { name: `initial-${i}` } });
});
test.after(async () => {
  await close();
  await server.stop();
  server.cleanup();
});

const describe = (e: InformerEvent) => (e.type === 'SYNCED' ? 'SYNCED' : `${e.type} ${e.object.metadata.name}`);

test('watch$ lists in chunks (one snapshot), emits SYNCED once, then live changes', async () => {
  const seen = observedClient(client);
  const events: InformerEvent[] = [];
  const sub = watch$(seen.client, resources.configmaps, { namespace: 'inf' }, { pageSize: 2 }).subscribe((e) => events.push(e));
  try {
    await eventually(() => events.some((e) => e.type === 'SYNCED'), 10_000, 'SYNCED');
    assert.is(seen.calls.list, 3, '5 objects in pages of 2');
    assert.equal(events.map(describe), ['ADDED initial-0', 'ADDED initial-1', 'ADDED initial-2', 'ADDED initial-3', 'ADDED initial-4', 'SYNCED']);
    await eventually(() => seen.calls.watch === 1, 5000, 'the watch');
    await client.create(resources.configmaps, 'inf', { metadata: { name: 'live' } });
    await client.patch(resources.configmaps, 'inf', 'live', 'merge', { data: { a: '1' } });
    await client.delete(resources.configmaps, 'inf', 'initial-0');
    await eventually(() => events.length === 9, 10_000, 'live events');
    assert.equal(events.slice(6).map(describe), ['ADDED live', 'MODIFIED live', 'DELETED initial-0']);
    const mod = events[7] as Extract<InformerEvent, { type: 'MODIFIED' }>;
    assert.is(mod.oldObject.data, undefined);
    assert.equal(mod.object['data'], { a: '1' });
  } finally {
    sub.unsubscribe();
    await client.create(resources.configmaps, 'inf', { metadata: { name: 'initial-0' } });
    await client.delete(resources.configmaps, 'inf', 'live');
  }
});

test('a shared informer keeps an indexed, frozen cache readable synchronously; hasSynced follows SYNCED', async () => {
  const factory = createInformerFactory(client);
  const inf = factory.informer(resources.configmaps, { namespace: 'inf' });
  inf.cache.addIndex('app', (o: SvcObject) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []));
  try {
    assert.is(inf.hasSynced(), false);
    await waitForSync(inf);
    assert.ok(inf.hasSynced());
    assert.is(inf.cache.size, 5);
    const owner = await client.get(resources.namespaces, '', 'inf');
    await client.create(resources.configmaps, 'inf', {
      metadata: {
        name: 'owned',
        labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'inf', uid: owner.metadata.uid! }],
      },
    });
    await eventually(() => inf.cache.get('inf/owned') !== undefined, 10_000, 'the new object in the cache');
    assert.equal(inf.cache.byIndex('owner', owner.metadata.uid!).map((o) => o.metadata.name), ['owned']);
    assert.equal(inf.cache.byIndex('app', 'web').map((o) => o.metadata.name), ['owned']);
    assert.is(inf.cache.list('inf').length, 6);
    assert.ok(Object.isFrozen(inf.cache.get('inf/owned')!.metadata));
  } finally {
    factory.stop();
  }
});

test('a subscriber arriving after the sync first gets the cache as ADDED and SYNCED, then live events', async () => {
  const factory = createInformerFactory(client);
  const inf = factory.informer(resources.configmaps, { namespace: 'inf' });
  const done = new Subject<void>();
  try {
    await waitForSync(inf);
    const late: InformerEvent[] = [];
    inf.events$.pipe(takeUntil(done)).subscribe((e) => late.push(e));
    assert.is(late.length, inf.cache.size + 1, 'replayed synchronously');
    assert.is(late.at(-1)!.type, 'SYNCED');
    const live = firstValueFrom(inf.events$.pipe(filter((e) => e.type === 'ADDED' && e.object.metadata.name === 'later')));
    await client.create(resources.configmaps, 'inf', { metadata: { name: 'later' } });
    await live;
    assert.is(describe(late.at(-1)!), 'ADDED later');
  } finally {
    done.next();
    factory.stop();
  }
});

test.run();
