// Event recorder against the real apiserver: core/v1 Events, repeats aggregated by PATCHing count
// and lastTimestamp within the window, a per-object rate limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import type { SvcObject } from '../../src/api/types.js';
import { EventRecorder } from '../../src/runtime/event-recorder.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { realClient } from '../helpers/real-client.js';

let server: ApiServerProcess;
let conn: ReturnType<typeof realClient>;
test.before(async () => {
  server = await startApiServer();
  conn = realClient(server);
});
test.after(async () => {
  await conn.close();
  await server.stop();
  server.cleanup();
});

async function configMap(name: string): Promise<SvcObject> {
  const r = await server.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });
  assert.is(r.status, 201);
  return r.json as SvcObject;
}

async function eventsFor(name: string): Promise<Array<Record<string, unknown>>> {
  const r = await server.request('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`);
  return (r.json as { items: Array<Record<string, unknown>> }).items;
}

function recorder(over: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {}) {
  const clock = new SimulatedClock();
  clock.set(Date.now());
  return { clock, rec: new EventRecorder({ client: conn.client, component: 'mirror-controller', clock, ...over }) };
}

test('an event is a core/v1 Event about the object, with source, count 1 and timestamps', async () => {
  const cm = await configMap('ev-shape');
  const { rec } = recorder();
  assert.is(await rec.event(cm, 'Normal', 'Mirrored', 'copied to 3 namespaces'), 'created');
  const [ev] = await eventsFor('ev-shape');
  assert.ok(ev);
  assert.equal(ev!['involvedObject'], { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'ev-shape', uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion });
  assert.equal([ev!['type'], ev!['reason'], ev!['message'], ev!['count']], ['Normal', 'Mirrored', 'copied to 3 namespaces', 1]);
  assert.equal(ev!['source'], { component: 'mirror-controller' });
  assert.is(ev!['firstTimestamp'], ev!['lastTimestamp']);
});

test('a repeat within the window bumps count and lastTimestamp of the same Event', async () => {
  const cm = await configMap('ev-repeat');
  const { rec, clock } = recorder();
  await rec.event(cm, 'Warning', 'Failed', 'no space left');
  clock.increment(5_000);
  assert.is(await rec.event(cm, 'Warning', 'Failed', 'no space left'), 'aggregated');
  clock.increment(5_000);
  await rec.event(cm, 'Warning', 'Failed', 'no space left');
  const evs = await eventsFor('ev-repeat');
  assert.is(evs.length, 1);
  assert.is(evs[0]!['count'], 3);
  assert.is(Date.parse(String(evs[0]!['lastTimestamp'])) - Date.parse(String(evs[0]!['firstTimestamp'])), 10_000);
});

test('concurrent repeats still make one Event', async () => {
  const cm = await configMap('ev-concurrent');
  const { rec } = recorder();
  const outs = await Promise.all(Array.from({ length: 5 }, () => rec.event(cm, 'Normal', 'Synced', 'ok')));
  assert.equal(outs, ['created', 'aggregated', 'aggregated', 'aggregated', 'aggregated']);
  const evs = await eventsFor('ev-concurrent');
  assert.is(evs.length, 1);
  assert.is(evs[0]!['count'], 5);
});

test('a different message, or a repeat after the window, is a new Event', async () => {
  const cm = await configMap('ev-new');
  const { rec, clock } = recorder({ aggregationWindowMs: 60_000 });
  await rec.event(cm, 'Normal', 'Synced', 'a');
  await rec.event(cm, 'Normal', 'Synced', 'b');
  clock.increment(60_001);
  assert.is(await rec.event(cm, 'Normal', 'Synced', 'a'), 'created');
  assert.is((await eventsFor('ev-new')).length, 3);
});

test('events past the per-object burst are dropped until tokens come back', async () => {
  const cm = await configMap('ev-spam');
  const { rec, clock } = recorder({ burst: 3, qps: 1 / 300 });
  const outs = [];
  for (let i = 0; i < 5; i++) outs.push(await rec.event(cm, 'Normal', 'Tick', `n${i}`));
  assert.equal(outs, ['created', 'created', 'created', 'dropped', 'dropped']);
  clock.increment(300_000);
  assert.is(await rec.event(cm, 'Normal', 'Tick', 'later'), 'created');
});

test('a failed write is reported, not thrown', async () => {
  const { rec } = recorder();
  const ghost: SvcObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'no-such-namespace' } };
  assert.is(await rec.event(ghost, 'Normal', 'R', 'm'), 'failed');
});

test.run();
