// The in-process transport: the real API server started in this process, called through its request
// pipeline with no socket. Every stage still runs (validation, admission, dry run, apply, metrics),
// errors are ApiErrors carrying the server's Status, and no object is shared with the server.
import { firstValueFrom, take, toArray } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient, type ClientWatchEvent } from '../../src/client/types.js';
import { connectInProcess, type InProcessConnection } from '../../src/cli/in-process-client.js';
import { eventually } from '../helpers/client.js';
import { type InProcessApiServer, startInProcessApiServer } from '../helpers/in-process-apiserver.js';

let api: InProcessApiServer;
let conn: InProcessConnection;
let client: ApiClient;
test.before(async () => {
  // Secrets without a watch cache and compaction every second: an old secrets version soon is out
  // of the store's history (410). Other kinds keep the default watch cache.
  api = await startInProcessApiServer(['--watch-cache-sizes=secrets#0', '--kvstore-compaction-interval=1s']);
  conn = connectInProcess(api.server, { user: { username: 'system:svc-controller-manager', groups: ['system:authenticated'] } });
  client = conn.client;
  await client.create(resources.namespaces, '', { metadata: { name: 'inproc' } });
});
test.after(async () => {
  await conn.close();
  await api.stop();
});

const cm = (name: string, data: Record<string, string> = {}): SvcObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, ApiError);
    return err as ApiError;
  }
  throw new Error('expected the call to fail');
}

/** A counter of the server's /metrics, read in-process too (a non-resource path through the pipeline). */
async function requestCount(labels: Record<string, string>): Promise<number> {
  const res = await conn.transport.request({ method: 'GET', path: '/metrics' });
  let sum = 0;
  for (const line of String(res.body).split('\n')) {
    const m = /^apiserver_request_total\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum += Number(m[2]);
  }
  return sum;
}

test('create, get, list, update, merge patch and delete go through the pipeline and are counted in its metrics', async () => {
  const before = await requestCount({ verb: 'CREATE', resource: 'configmaps', code: '201' });
  const created = await client.create(resources.configmaps, 'inproc', cm('crud', { a: '1' }));
  assert.ok(created.metadata.uid, 'the server set metadata');
  assert.ok(created.metadata.resourceVersion);
  assert.ok(created.metadata.creationTimestamp);
  assert.is(await requestCount({ verb: 'CREATE', resource: 'configmaps', code: '201' }), before + 1);

  const got = await client.get(resources.configmaps, 'inproc', 'crud');
  assert.equal(got['data'], { a: '1' });
  const list = await client.list(resources.configmaps, { namespace: 'inproc' });
  assert.is(list.kind, 'ConfigMapList');
  assert.ok(Number(list.metadata.resourceVersion) >= Number(created.metadata.resourceVersion));
  assert.equal(list.items.map((i) => i.metadata.name), ['crud']);

  const updated = await client.update(resources.configmaps, 'inproc', { ...got, data: { a: '2' } });
  assert.equal(updated['data'], { a: '2' });
  assert.ok(Number(updated.metadata.resourceVersion) > Number(got.metadata.resourceVersion));
  // Without a fieldManager the manager is the User-Agent's product: the transport's own.
  assert.ok(updated.metadata.managedFields?.some((f) => f.manager === 'svc-in-process' && f.operation === 'Update'));

  const patched = await client.patch(resources.configmaps, 'inproc', 'crud', 'merge', { data: { b: '3' } });
  assert.equal(patched['data'], { a: '2', b: '3' });
  const jsonPatched = await client.patch(resources.configmaps, 'inproc', 'crud', 'json', [{ op: 'remove', path: '/data/a' }]);
  assert.equal(jsonPatched['data'], { b: '3' });

  // A delete that removes the object answers with a Success Status: the client gives undefined.
  assert.is(await client.delete(resources.configmaps, 'inproc', 'crud'), undefined);
  const err = await failure(client.get(resources.configmaps, 'inproc', 'crud'));
  assert.is(err.code, 404);
  assert.is(err.reason, 'NotFound');
  assert.is(err.status.kind, 'Status');
  assert.equal(err.status.details?.name, 'crud');
});

test('failures are ApiErrors with the server Status: conflict, already exists, bad query, wrong precondition', async () => {
  const first = await client.create(resources.configmaps, 'inproc', cm('errors'));
  const exists = await failure(client.create(resources.configmaps, 'inproc', cm('errors')));
  assert.is(exists.code, 409);
  assert.is(exists.reason, 'AlreadyExists');

  await client.patch(resources.configmaps, 'inproc', 'errors', 'merge', { data: { x: '1' } });
  const stale = await failure(client.update(resources.configmaps, 'inproc', first));
  assert.is(stale.code, 409);
  assert.is(stale.reason, 'Conflict');

  const badPre = await failure(client.delete(resources.configmaps, 'inproc', 'errors', { preconditions: { uid: 'not-the-uid' } }));
  assert.is(badPre.code, 409);
  assert.match(badPre.message, /uid|UID/);

  const unknownParam = await failure(conn.transport.request({ method: 'GET', path: '/api/v1/namespaces/inproc/configmaps', query: { bogus: '1' } }));
  assert.is(unknownParam.code, 400);
  assert.match(unknownParam.message, /unknown query parameter "bogus"/);

  const noSuchPath = await failure(conn.transport.request({ method: 'GET', path: '/api/v1/namespaces/inproc/nothings' }));
  assert.is(noSuchPath.code, 404);
  await client.delete(resources.configmaps, 'inproc', 'errors');
});

test('validation and admission run: an invalid object is a 422 with causes, a missing namespace a 404', async () => {
  const invalid = await failure(client.create(resources.configmaps, 'inproc', cm('Not_A_Valid_Name')));
  assert.is(invalid.code, 422);
  assert.is(invalid.reason, 'Invalid');
  assert.ok((invalid.status.details?.causes ?? []).some((c) => c.field === 'metadata.name'), JSON.stringify(invalid.status));

  const badPod = await failure(
    client.create(resources.pods, 'inproc', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } } as SvcObject),
  );
  assert.is(badPod.code, 422);
  assert.ok((badPod.status.details?.causes ?? []).some((c) => String(c.field).startsWith('spec.containers')), JSON.stringify(badPod.status));

  // NamespaceLifecycle admission: no writes into a namespace that does not exist.
  const noNs = await failure(client.create(resources.configmaps, 'no-such-namespace', cm('x')));
  assert.is(noNs.code, 404);
  assert.match(noNs.message, /namespace/);
});

test('a body structuredClone cannot copy is a 400 ApiError before the server sees it', async () => {
  const err = await failure(client.create(resources.configmaps, 'inproc', { ...cm('uncopyable'), data: { f: (() => 'x') as unknown as string } }));
  assert.is(err.code, 400);
  assert.match(err.message, /cannot be copied into the API server/);
  assert.is((await failure(client.get(resources.configmaps, 'inproc', 'uncopyable'))).code, 404);
});

test('dry run: the would-be object comes back, nothing is stored', async () => {
  const dry = await client.create(resources.configmaps, 'inproc', cm('dry', { k: 'v' }), { dryRun: true });
  assert.is(dry.metadata.name, 'dry');
  assert.ok(dry.metadata.uid);
  assert.is(dry.metadata.resourceVersion, undefined);
  const err = await failure(client.get(resources.configmaps, 'inproc', 'dry'));
  assert.is(err.code, 404);

  await client.create(resources.configmaps, 'inproc', cm('dry', { k: 'v' }));
  const dryPatch = await client.patch(resources.configmaps, 'inproc', 'dry', 'merge', { data: { k: 'changed' } }, { dryRun: true });
  assert.equal(dryPatch['data'], { k: 'changed' });
  assert.equal((await client.get(resources.configmaps, 'inproc', 'dry'))['data'], { k: 'v' });
  await client.delete(resources.configmaps, 'inproc', 'dry', { dryRun: true });
  assert.is((await client.get(resources.configmaps, 'inproc', 'dry')).metadata.name, 'dry');
  await client.delete(resources.configmaps, 'inproc', 'dry');
});

test('server-side apply creates and updates with the field manager recorded; a conflict is a 409', async () => {
  const applied = await client.patch(resources.configmaps, 'inproc', 'applied', 'apply', cm('applied', { owner: 'a' }), { fieldManager: 'tool-a' });
  assert.equal(applied['data'], { owner: 'a' });
  assert.ok(applied.metadata.managedFields?.some((f) => f.manager === 'tool-a' && f.operation === 'Apply'));
  const conflict = await failure(client.patch(resources.configmaps, 'inproc', 'applied', 'apply', cm('applied', { owner: 'b' }), { fieldManager: 'tool-b' }));
  assert.is(conflict.code, 409);
  const forced = await client.patch(resources.configmaps, 'inproc', 'applied', 'apply', cm('applied', { owner: 'b' }), { fieldManager: 'tool-b', force: true });
  assert.equal(forced['data'], { owner: 'b' });
  await client.delete(resources.configmaps, 'inproc', 'applied');
});

test('the caller owns what it sent and what get/list return; watch objects are frozen; the server is unaffected', async () => {
  const sent = cm('owned', { v: 'original' });
  const created = await client.create(resources.configmaps, 'inproc', sent);
  assert.not.ok(Object.isFrozen(sent), 'the server did not freeze the caller object');
  assert.not.ok(Object.isFrozen(sent.metadata));
  assert.is(sent.metadata.uid, undefined, 'the server did not write into the caller object');
  (sent['data'] as Record<string, string>)['v'] = 'changed after the call';
  assert.equal((await client.get(resources.configmaps, 'inproc', 'owned'))['data'], { v: 'original' });

  // Returned objects are the caller's own, mutable copies.
  assert.not.ok(Object.isFrozen(created));
  (created['data'] as Record<string, string>)['v'] = 'mutated result';
  created.metadata.labels = { hacked: 'yes' };
  const got = await client.get(resources.configmaps, 'inproc', 'owned');
  assert.equal(got['data'], { v: 'original' });
  assert.is(got.metadata.labels, undefined);
  (got['data'] as Record<string, string>)['v'] = 'mutated get';
  const listed = await client.list(resources.configmaps, { namespace: 'inproc' });
  const item = listed.items.find((i) => i.metadata.name === 'owned')!;
  assert.equal(item['data'], { v: 'original' }, 'a list is not affected by a mutated get result');
  (item['data'] as Record<string, string>)['v'] = 'mutated list item';

  // Watch events share the server's stored object, deep-frozen: nobody can change it.
  const first = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'inproc', fieldSelector: 'metadata.name=owned', timeoutSeconds: 5 }));
  assert.is(first.type, 'ADDED');
  assert.ok(Object.isFrozen(first.object) && Object.isFrozen(first.object['data']), 'watch objects are frozen');
  assert.throws(() => ((first.object['data'] as Record<string, string>)['v'] = 'mutated event'), /read only/);
  const second = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'inproc', fieldSelector: 'metadata.name=owned', timeoutSeconds: 5 }));
  assert.equal(second.object['data'], { v: 'original' });
  assert.equal((await client.get(resources.configmaps, 'inproc', 'owned'))['data'], { v: 'original' });
  await client.delete(resources.configmaps, 'inproc', 'owned');
});

test('watch: events as they happen, resume from a resourceVersion, clean end at the server timeout', async () => {
  const events: ClientWatchEvent[] = [];
  let completed = false;
  const sub = client.watch(resources.configmaps, { namespace: 'inproc', labelSelector: 'w=1', timeoutSeconds: 30 }).subscribe({
    next: (e) => events.push(e),
    complete: () => (completed = true),
  });
  try {
    const a: SvcObject = await client.create(resources.configmaps, 'inproc', { ...cm('w-a'), metadata: { name: 'w-a', labels: { w: '1' } } });
    await eventually(() => events.length === 1, 5000, 'ADDED w-a');
    await client.patch(resources.configmaps, 'inproc', 'w-a', 'merge', { data: { n: '1' } });
    await client.delete(resources.configmaps, 'inproc', 'w-a');
    await eventually(() => events.length === 3, 5000, 'MODIFIED and DELETED');
    assert.equal(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w-a', 'MODIFIED w-a', 'DELETED w-a']);
    assert.equal(events[1]!.object['data'], { n: '1' });

    // Resume: from the create's version, the later changes only.
    const resumed = await firstValueFrom(
      client.watch(resources.configmaps, { namespace: 'inproc', labelSelector: 'w=1', resourceVersion: a.metadata.resourceVersion!, timeoutSeconds: 5 }).pipe(take(2), toArray()),
    );
    assert.equal(resumed.map((e) => e.type), ['MODIFIED', 'DELETED']);
  } finally {
    sub.unsubscribe();
  }
  assert.not.ok(completed, 'unsubscribing is not a completion');

  // The server ends the watch at timeoutSeconds: the Observable completes (with a bookmark first when allowed).
  const started = Date.now();
  const all = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'inproc', labelSelector: 'w=none', allowWatchBookmarks: true, timeoutSeconds: 1 }).pipe(toArray()));
  assert.ok(Date.now() - started >= 900, 'ended by the server timeout');
  assert.ok(all.every((e) => e.type === 'BOOKMARK'));
});

test('watch: a resourceVersion older than the watch window is an ApiError 410 with the Status', async () => {
  const first: SvcObject = await client.create(resources.secrets, 'inproc', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's0' } });
  for (let i = 1; i <= 4; i++) await client.create(resources.secrets, 'inproc', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } });
  let err: unknown;
  await eventually(
    async () => {
      err = await firstValueFrom(client.watch(resources.secrets, { namespace: 'inproc', resourceVersion: first.metadata.resourceVersion!, timeoutSeconds: 1 }).pipe(toArray())).then(
        () => undefined,
        (e: unknown) => e,
      );
      return err !== undefined;
    },
    20_000,
    'compaction past the first secret',
  );
  assert.instance(err, ApiError);
  assert.is((err as ApiError).code, 410);
  assert.is((err as ApiError).reason, 'Gone');
  assert.is((err as ApiError).status.kind, 'Status');
});

test('a watch request the server refuses is an ApiError at once (bad selector: 400)', async () => {
  const err = await firstValueFrom(client.watch(resources.configmaps, { namespace: 'inproc', labelSelector: '!!bad' })).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, ApiError);
  assert.is((err as ApiError).code, 400);
});

test('in-flight limits apply to in-process calls: over --max-mutating-requests-inflight is a 429 ApiError', async () => {
  const limited = await startInProcessApiServer(['--max-requests-inflight=1', '--max-mutating-requests-inflight=1']);
  const c = connectInProcess(limited.server);
  try {
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        c.client.create(resources.configmaps, 'default', cm(`burst-${i}`)).then(
          () => 'created',
          (e: unknown) => (e instanceof ApiError ? `${e.code} ${e.reason} retry=${e.retryAfterSeconds}` : String(e)),
        ),
      ),
    );
    assert.ok(outcomes.includes('created'), outcomes.join('\n'));
    assert.ok(outcomes.includes('429 TooManyRequests retry=1'), outcomes.join('\n'));
    assert.ok(outcomes.every((o) => o === 'created' || o === '429 TooManyRequests retry=1'), outcomes.join('\n'));
  } finally {
    await c.close();
    await limited.stop();
  }
});

test('shutdown ends open in-process watches cleanly and later calls get 503', async () => {
  const other = await startInProcessApiServer();
  const c = connectInProcess(other.server);
  let completed = false;
  let failed: unknown;
  const sub = c.client.watch(resources.namespaces, { timeoutSeconds: 60 }).subscribe({ complete: () => (completed = true), error: (e: unknown) => (failed = e) });
  try {
    await eventually(async () => (await c.client.list(resources.namespaces)).items.length > 0, 5000, 'the server to serve');
    await new Promise((r) => setTimeout(r, 100));
    const stopping = other.server.shutdown();
    await eventually(() => completed || failed !== undefined, 10_000, 'the watch to end');
    assert.ok(completed, `completed, not failed: ${String(failed)}`);
    await stopping;
    const err = await failure(c.client.list(resources.namespaces));
    assert.is(err.code, 503);
  } finally {
    sub.unsubscribe();
    await other.stop();
  }
});

test.run();
