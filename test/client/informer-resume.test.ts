// Informers resume from the last seen resourceVersion when the server ends the watch
// (--min-request-timeout=1: every watch ends after 1-2 s): no event lost, none duplicated.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InformerEvent } from '../../src/client/informer-types.js';
import { watch$ } from '../../src/client/reflector.js';
import { resources } from '../../src/client/typed.js';
import type { ApiClient } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, observedClient } from '../helpers/client.js';

let server: ApiServerProcess;
let client: ApiClient;
let close: () => Promise<void>;
test.before(async () => {
  server = await startApiServer({ args: ['--min-request-timeout=1'] });
  ({ client, close } = clientFor(server));
});
test.after(async () => {
  await close();
  await server.stop();
  server.cleanup();
});

test('across several server-side watch timeouts every change arrives exactly once, in order', async () => {
  const seen = observedClient(client);
  const events: InformerEvent[] = [];
  const sub = watch$(seen.client, resources.configmaps, { namespace: 'default' }).subscribe((e) => events.push(e));
  try {
    await eventually(() => events.some((e) => e.type === 'SYNCED'), 10_000, 'SYNCED');
    const written: string[] = [];
    // Keep writing while at least three watches end and are resumed.
    const writeUntil = Date.now() + 60_000;
    let i = 0;
    while (seen.calls.watch < 4 && Date.now() < writeUntil) {
      const name = `r-${i % 4}`;
      if (i < 4) await client.create(resources.configmaps, 'default', { metadata: { name }, data: { n: String(i) } });
      else await client.patch(resources.configmaps, 'default', name, 'merge', { data: { n: String(i) } });
      written.push(name);
      i++;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(seen.calls.watch >= 4, `watch resumed ${seen.calls.watch - 1} times`);
    assert.is(seen.calls.list, 1, 'resuming never re-lists');
    await eventually(() => events.length === written.length + 1, 10_000, `${written.length} change events`);
    const changes = events.filter((e): e is Exclude<InformerEvent, { type: 'SYNCED' }> => e.type !== 'SYNCED');
    assert.equal(changes.map((e) => e.object.metadata.name), written, 'one event per write, in write order');
    assert.equal(changes.slice(0, 4).map((e) => e.type), ['ADDED', 'ADDED', 'ADDED', 'ADDED']);
    assert.ok(changes.slice(4).every((e) => e.type === 'MODIFIED'));
    const rvs = changes.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs.every((rv, k) => k === 0 || rv > rvs[k - 1]!), 'resourceVersions strictly increase: no duplicate');
    assert.equal(changes.map((e) => e.object['data']), written.map((_, k) => ({ n: String(k) })));
  } finally {
    sub.unsubscribe();
  }
});

test.run();
