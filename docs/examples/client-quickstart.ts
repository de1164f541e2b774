// docs/client.md's example: a client from a svcconfig file, CRUD, a watch, and an informer.
// Run: node dist/docs/examples/client-quickstart.js --svcconfig <file> [--master <url>]
import { parseArgs } from 'node:util';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { connect, createInformerFactory, resources, typed, waitForSync, type SvcObject, type InformerEvent } from 'svc';

interface ConfigMap extends SvcObject {
  data?: Record<string, string>;
}

const { values } = parseArgs({ options: { svcconfig: { type: 'string' }, master: { type: 'string' } } });
const { client, close } = connect({ svcconfig: values.svcconfig, master: values.master, qps: 20, burst: 30 });

// CRUD through the typed helper for a built-in kind.
const configMaps = typed<ConfigMap>(client, resources.configmaps);
const created = await configMaps.create('default', { metadata: { name: 'quickstart' }, data: { greeting: 'hello' } });
console.log(`created ${created.metadata.name} at resourceVersion ${created.metadata.resourceVersion}`);
const patched = await configMaps.patch('default', 'quickstart', 'merge', { data: { greeting: 'hi' } });
console.log(`patched: greeting=${patched.data?.greeting}`);

// A watch from the version we know: the next two changes.
const next2 = firstValueFrom(configMaps.watch({ namespace: 'default', resourceVersion: patched.metadata.resourceVersion! }).pipe(take(2), toArray()));

// An informer: list + watch, an indexed cache, events as an Observable.
const factory = createInformerFactory(client);
const informer = factory.informer<ConfigMap>(resources.configmaps, { namespace: 'default' });
const deleted = firstValueFrom(informer.events$.pipe(filter((e): e is Extract<InformerEvent<ConfigMap>, { type: 'DELETED' }> => e.type === 'DELETED')));
await waitForSync(informer);
console.log(`informer synced: ${informer.cache.list('default').map((o) => o.metadata.name).join(', ')}`);

await configMaps.update('default', { ...patched, data: { greeting: 'hey' } });
await configMaps.delete('default', 'quickstart');
console.log(`watch saw: ${(await next2).map((e) => e.type).join(', ')}`);
const gone = await deleted;
console.log(`informer saw ${gone.type} ${gone.object.metadata.name}; cache size now ${informer.cache.size}`);

factory.stop();
await close();
