// On 410 Gone (the resume version was compacted away) the informer re-lists and emits only the
// differences. Server: --watch-cache=false --kvstore-compaction-interval=1s --min-request-timeout=1.
import { firstValueFrom, toArray } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import type { InformerEvent } from '../../src/client/informer-types.js';
import { watch$ } from '../../src/client/reflector.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, observedClient } from '../helpers/client.js';

let server: ApiServerProcess;
let client: ApiClient;
let close: () => Promise<void>;
test.before(async () => {
  server = await startApiServer({ args: ['--watch-cache=false', '--kvstore-compaction-interval=1s', '--min-request-timeout=1'] });
  ({ client, close } = clientFor(server));
});
test.after(async () => {
  await close();
  await server.stop();
  server.cleanup();
});

/** Waits until a watch from `rv` is answered with 410 (the compactor passed it). */
async function compactedPast(rv: string): Promise<ApiError> {
  let last: unknown;
  await eventually(
    async () => {
      last = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'default', resourceVersion: rv, timeoutSeconds: 1 }).pipe(toArray())).catch(
        (e: unknown) => e,
      );
      return last instanceof ApiError;
    },
    20_000,
    `compaction past ${rv}`,
  );
  return last as ApiError;
}

test('a watch from a compacted resourceVersion errors with an ApiError 410 carrying the Status', async () => {
  const cm = await client.create<SvcObject>(resources.configmaps, 'default', { metadata: { name: 'old' } });
  await client.delete(resources.configmaps, 'default', 'old');
  const err = await compactedPast(cm.metadata.resourceVersion!);
  assert.is(err.code, 410);
  assert.is(err.status.kind, 'Status');
  assert.match(err.message, /too old resource version/);
});

test('after 410 the informer re-lists and emits only the differences: no gap, no stale object', async () => {
  for (const name of ['keep', 'change', 'remove']) await client.create(resources.configmaps, 'default', { metadata: { name } });
  const seen = observedClient(client);
  const events: InformerEvent[] = [];
  const sub = watch$(seen.client, resources.configmaps, { namespace: 'default' }).subscribe((e) => events.push(e));
  try {
    await eventually(() => events.some((e) => e.type === 'SYNCED'), 10_000, 'SYNCED');
    const afterSync = events.length;
    // Pause the informer between two watches: the server ends the current one within 2 s.
    const gate = seen.hold();
    await gate.held;
    // The informer resumes from at most the current revision; compaction must pass that.
    const resumeFrom = (await client.list(resources.configmaps, { namespace: 'default' })).metadata.resourceVersion!;
    await client.patch(resources.configmaps, 'default', 'change', 'merge', { data: { v: '1' } });
    await client.delete(resources.configmaps, 'default', 'remove');
    await client.create(resources.configmaps, 'default', { metadata: { name: 'new' } });
    const last = await client.patch(resources.configmaps, 'default', 'change', 'merge', { data: { v: '2' } });
    await compactedPast(resumeFrom);
    gate.release();
    await eventually(() => seen.calls.list === 2, 20_000, 'the re-list');
    await eventually(() => events.length === afterSync + 3, 10_000, 'the differences');
    const diff = events.slice(afterSync).map((e) => (e.type === 'SYNCED' ? 'SYNCED' : `${e.type} ${e.object.metadata.name}`)).sort();
    assert.equal(diff, ['ADDED new', 'DELETED remove', 'MODIFIED change']);
    const changed = events.find((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'change') as Extract<InformerEvent, { type: 'MODIFIED' }>;
    assert.equal(changed.object['data'], { v: '2' }, 'the newest state, not an intermediate one');
    assert.is(changed.object.metadata.resourceVersion, last.metadata.resourceVersion);
    assert.is(events.filter((e) => e.type === 'SYNCED').length, 1, 'SYNCED only once');
    // And it watches on from the new list: later changes still arrive.
    await client.delete(resources.configmaps, 'default', 'keep');
    await eventually(() => events.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'keep'), 10_000, 'a change after the re-list');
  } finally {
    sub.unsubscribe();
  }
});

test.run();
