// The shared informer factory: one list + watch per (resource, selector) however many subscribers
// (checked with the server's apiserver_registered_watchers metric).
import { Subject, takeUntil } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createInformerFactory, informerKey } from '../../src/client/informer-factory.js';
import { waitForSync } from '../../src/client/shared-informer.js';
import { resources } from '../../src/client/typed.js';
import type { ApiClient } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, metric, observedClient } from '../helpers/client.js';

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

const watchers = () => metric(server, 'apiserver_registered_watchers', { resource: 'configmaps' });

test('the same (resource, selector) is one informer; empty selector fields equal absent ones', () => {
  const factory = createInformerFactory(client);
  assert.is(factory.informer(resources.configmaps), factory.informer(resources.configmaps, { namespace: '', labelSelector: '' }));
  assert.is.not(factory.informer(resources.configmaps), factory.informer(resources.configmaps, { namespace: 'default' }));
  assert.is.not(factory.informer(resources.configmaps), factory.informer(resources.secrets));
  assert.is(informerKey(resources.leases, { labelSelector: 'a=b' }), 'coordination.svc.io/v1/leases?labelSelector=a%3Db');
  factory.stop();
});

test('two subscribers of one informer share one list and one watch on the server', async () => {
  const seen = observedClient(client);
  const factory = createInformerFactory(seen.client);
  const done = new Subject<void>();
  try {
    const a = factory.informer(resources.configmaps, { namespace: 'default' });
    const b = factory.informer(resources.configmaps, { namespace: 'default' });
    const gotA: string[] = [];
    const gotB: string[] = [];
    a.events$.pipe(takeUntil(done)).subscribe((e) => gotA.push(e.type));
    b.events$.pipe(takeUntil(done)).subscribe((e) => gotB.push(e.type));
    await waitForSync(a);
    await eventually(async () => (await watchers()) === 1, 5000, 'one watcher');
    await client.create(resources.configmaps, 'default', { metadata: { name: 'shared' } });
    await eventually(() => gotA.includes('ADDED') && gotB.includes('ADDED'), 10_000, 'both subscribers');
    assert.is(await watchers(), 1);
    assert.equal({ list: seen.calls.list, watch: seen.calls.watch }, { list: 1, watch: 1 });
    // Another selector is another informer and another watch.
    const c = factory.informer(resources.configmaps, { namespace: 'default', labelSelector: 'x=y' });
    c.events$.pipe(takeUntil(done)).subscribe();
    await waitForSync(c);
    await eventually(async () => (await watchers()) === 2, 5000, 'two watchers');
  } finally {
    done.next();
    factory.stop();
  }
  await eventually(async () => (await watchers()) === 0, 5000, 'stop() to close every watch');
});

test.run();
