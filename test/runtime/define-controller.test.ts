// defineController end to end: the docs' copy controller against the real apiserver over HTTPS,
// with the project's client and shared informers; metrics, Events and a drained stop.
import { Registry } from 'prom-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyController } from '../../docs/examples/runtime/copy-controller.js';
import { controllerMachine } from '../../machines/controller.js';
import { createInformerFactory, type ApiClient, type SharedInformerFactory } from '../../src/client/index.js';
import type { RunningController } from '../../src/runtime/index.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { realClient } from '../helpers/real-client.js';
import { capturedLogger } from '../helpers/sim.js';

let server: ApiServerProcess;
let conn: { client: ApiClient; close(): Promise<void> };
let informers: SharedInformerFactory;
let controller: RunningController;
const registry = new Registry();
const log = capturedLogger();
const base = '/api/v1/namespaces/default/configmaps';

async function eventually<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 20_000; ; ) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function getCopy(name: string, pred: (o: Record<string, unknown>) => boolean = () => true) {
  const r = await server.request('GET', `${base}/${name}-copy`);
  return r.status === 200 && pred(r.json) ? (r.json as Record<string, unknown>) : undefined;
}

test.before(async () => {
  server = await startApiServer();
  conn = realClient(server);
  informers = createInformerFactory(conn.client);
  controller = copyController.start({ client: conn.client, informers, logger: log.logger, registry });
});
test.after(async () => {
  await controller.stop();
  informers.stop();
  await conn.close();
  await server.stop();
  server.cleanup();
});

test('the definition exposes the controller machine for charts', () => {
  assert.is(copyController.machine, controllerMachine);
  assert.is(copyController.name, 'configmap-copy');
});

test('caches sync and the controller runs with its concurrency in workers', async () => {
  await eventually('running', async () => (controller.actor.getSnapshot().matches('running') ? true : undefined));
  const workers = Object.keys(controller.actor.getSnapshot().children).filter((k) => k.startsWith('worker-'));
  assert.is(workers.length, 2);
});

test('a labelled ConfigMap gets an owned copy, and an Event says so', async () => {
  const r = await server.request('POST', base, { metadata: { name: 'greeting', labels: { copy: 'yes' } }, data: { hello: 'world' } });
  assert.is(r.status, 201);
  const copy = await eventually('the copy', () => getCopy('greeting'));
  assert.equal(copy['data'], { hello: 'world' });
  const owner = (copy['metadata'] as { ownerReferences: Array<Record<string, unknown>> }).ownerReferences[0]!;
  assert.equal([owner['kind'], owner['name'], owner['uid'], owner['controller']], ['ConfigMap', 'greeting', r.json.metadata.uid, true]);
  const ev = await eventually('the Event', async () => {
    const e = await server.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=greeting');
    return e.json.items.find((i: { reason: string }) => i.reason === 'Copied') as Record<string, unknown> | undefined;
  });
  assert.equal(ev['source'], { component: 'configmap-copy' });
});

test('changing the original updates the copy; deleting the copy brings it back (owned)', async () => {
  await server.request('PATCH', `${base}/greeting`, { data: { hello: 'there' } }, { 'content-type': 'application/merge-patch+json' });
  await eventually('the updated copy', () => getCopy('greeting', (o) => (o['data'] as Record<string, string>)['hello'] === 'there'));
  const before = await getCopy('greeting');
  const del = await server.request('DELETE', `${base}/greeting-copy`);
  assert.is(del.status, 200);
  await eventually('the re-created copy', () =>
    getCopy('greeting', (o) => (o['metadata'] as { uid: string }).uid !== (before!['metadata'] as { uid: string }).uid),
  );
});

test('unlabelled ConfigMaps are not copied', async () => {
  await server.request('POST', base, { metadata: { name: 'plain' }, data: { a: 'b' } });
  await server.request('POST', base, { metadata: { name: 'marker', labels: { copy: 'yes' } } });
  await eventually('the marker copy', () => getCopy('marker'));
  assert.is((await server.request('GET', `${base}/plain-copy`)).status, 404);
});

test('workqueue metrics carry the controller name', async () => {
  const text = await registry.metrics();
  assert.match(text, /workqueue_adds_total\{name="configmap-copy"\} [1-9]/);
  assert.match(text, /workqueue_work_duration_seconds_count\{name="configmap-copy"\} [1-9]/);
  assert.match(text, /workqueue_depth\{name="configmap-copy"\}/);
});

test('stop drains and ends in stopped', async () => {
  assert.is(await controller.stop(), 'stopped');
  assert.is(controller.actor.getSnapshot().value, 'stopped');
});

test.run();
