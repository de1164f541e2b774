// A watch served from the store (no watch cache, or a start before the cache's in-memory window)
// whose catch-up alone is more than the server queues for a watch (MAX_QUEUED_CHANGES) ends with a
// 410 ERROR event, so its client lists again instead of resuming from the same revision and asking
// for the same replay for ever (one informer did that every second in a 30,000-pod cluster, each
// time decoding 46,000 changes for itself). Both cases take the same path in the watch handler;
// this test uses the first, which needs no waiting for the cache's window to move.
import { firstValueFrom, toArray } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { MAX_QUEUED_CHANGES } from '../../src/apiserver/handlers/watch.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { connectInProcess, type InProcessConnection } from '../../src/cli/in-process-client.js';
import { type InProcessApiServer, startInProcessApiServer } from '../helpers/in-process-apiserver.js';

let api: InProcessApiServer;
let conn: InProcessConnection;
let client: ApiClient;
test.before(async () => {
  api = await startInProcessApiServer(['--watch-cache-sizes=configmaps#0']);
  conn = connectInProcess(api.server);
  client = conn.client;
  await client.create(resources.namespaces, '', { metadata: { name: 'replay' } });
});
test.after(async () => {
  await conn.close();
  await api.stop();
});

const cm = (name: string): SvcObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'replay' }, data: { v: name } });

async function createMany(prefix: string, n: number): Promise<number> {
  let next = 0;
  let last = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) {
        const made = await client.create(resources.configmaps, 'replay', cm(`${prefix}-${next++}`));
        last = Math.max(last, Number(made.metadata.resourceVersion));
      }
    }),
  );
  return last;
}

test('a watch whose replay from the store is more than a watch may queue ends with 410; one within it gets every change, then live ones', async () => {
  const start = Number((await client.list(resources.configmaps, { namespace: 'replay' })).metadata.resourceVersion);
  await createMany('a', MAX_QUEUED_CHANGES + 200);
  const middle = Number((await client.list(resources.configmaps, { namespace: 'replay', limit: 1 })).metadata.resourceVersion);
  const last = await createMany('b', 300);

  const tooOld = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'replay', resourceVersion: String(start), allowWatchBookmarks: true }).pipe(toArray())).then(
    (events) => events,
    (e: unknown) => e,
  );
  assert.instance(tooOld, ApiError, 'the watch ended with an error');
  assert.is((tooOld as ApiError).code, 410);
  assert.match((tooOld as ApiError).message, /too old resource version/);

  // From `middle`: 300 creates, within the bound: every one, in order, then a live change.
  const seen: number[] = [];
  let failed: unknown;
  const sub = client.watch(resources.configmaps, { namespace: 'replay', resourceVersion: String(middle) }).subscribe({
    next: (e) => seen.push(Number(e.object.metadata.resourceVersion)),
    error: (err: unknown) => (failed = err),
  });
  try {
    for (const until = Date.now() + 30_000; !seen.includes(last); ) {
      if (failed || Date.now() > until) throw new Error(`the replay did not reach ${last} (got ${seen.length}, last ${seen.at(-1)}): ${String(failed)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = await client.create(resources.configmaps, 'replay', cm('after'));
    for (const until = Date.now() + 10_000; !seen.includes(Number(after.metadata.resourceVersion)); ) {
      if (failed || Date.now() > until) throw new Error(`the live change did not arrive: ${String(failed)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    sub.unsubscribe();
  }
  assert.is(seen.length, 301, 'the 300 creates after it and the live one');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `in order, once: ${seen[i - 1]} then ${seen[i]}`);
  assert.ok(seen[0]! > middle);
});

test.run();
