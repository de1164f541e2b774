// Lists whose representation costs CPU per item (a Table, a cold Protobuf list) are built in steps
// that give other requests a turn (src/apiserver/input-limits.ts runInTurns): the stepped forms
// write exactly the bytes of the whole-document forms, and a timer due during a long build runs
// before the build ends, which is what lets /readyz and short requests through.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { podDefinition, type SvcObject } from '../../src/api/index.js';
import { buildTable, tableJsonSteps } from '../../src/codec/table.js';
import { protobufCodec } from '../../src/codec/protobuf/index.js';
import { runInTurns } from '../../src/apiserver/input-limits.js';

const test = suite('lists built in turns of the event loop');

const pod = (i: number): SvcObject =>
  Object.freeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: 'default', uid: `u${i}`, resourceVersion: String(i), creationTimestamp: '2026-11-26T00:00:00Z', labels: { app: 'x' } },
    spec: { nodeName: `node-${i % 7}`, containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] },
    status: { phase: 'Running', podIP: `10.0.${i % 250}.1`, conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'c', ready: true, restartCount: i % 3, image: 'nginx', imageID: 'x', state: { running: { startedAt: '2026-11-26T00:00:00Z' } } }] },
  }) as SvcObject;

const open = { writableEnded: false };

test('the stepped Table is the whole Table, byte for byte, for every includeObject', async () => {
  const items = Array.from({ length: 300 }, (_, i) => pod(i));
  for (const includeObject of ['None', 'Metadata', 'Object'] as const) {
    const opts = { includeObject, now: Date.parse('2026-11-26T01:00:00Z') };
    let text = '';
    await runInTurns(open, tableJsonSteps(podDefinition, items, { resourceVersion: '9', continue: 'c' }, opts), (piece) => (text += piece));
    assert.is(text, JSON.stringify(buildTable(podDefinition, items, { resourceVersion: '9', continue: 'c' }, opts)), includeObject);
  }
  let empty = '';
  await runInTurns(open, tableJsonSteps(podDefinition, [], {}, { includeObject: 'None', now: 0, noHeaders: true }), (p) => (empty += p));
  assert.equal(JSON.parse(empty), buildTable(podDefinition, [], {}, { includeObject: 'None', now: 0, noHeaders: true }));
});

test('the stepped Protobuf list is encodeList, byte for byte', async () => {
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '5' }, items: Array.from({ length: 200 }, (_, i) => pod(i) as unknown as Record<string, unknown>) };
  const stepped = await runInTurns(open, protobufCodec().encodeListSteps(list));
  assert.ok(stepped.equals(protobufCodec().encodeList(list)));
});

test('a timer due during a long build fires before the build ends', async () => {
  // 300 steps of 1 ms of CPU each: without turns the timer would wait the whole 300 ms.
  function* busy(): Generator<void, number, void> {
    for (let i = 0; i < 300; i++) {
      const until = performance.now() + 1;
      while (performance.now() < until);
      yield;
    }
    return 300;
  }
  let stepsAtTimer = -1;
  let steps = 0;
  const fired = new Promise<void>((resolve) =>
    setTimeout(() => {
      stepsAtTimer = steps;
      resolve();
    }, 0),
  );
  const done = await runInTurns(open, busy(), () => steps++);
  await fired;
  assert.is(done, 300);
  assert.ok(stepsAtTimer >= 0 && stepsAtTimer < 100, `the timer ran after ${stepsAtTimer} of 300 steps`);
});

test('a request answered meanwhile (deadline, client gone) stops at its next turn', async () => {
  const res = { writableEnded: false };
  function* forever(): Generator<void, void, void> {
    for (;;) {
      const until = performance.now() + 1;
      while (performance.now() < until);
      yield;
    }
  }
  setTimeout(() => (res.writableEnded = true), 20);
  const err = await runInTurns(res, forever()).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.match(String((err as Error).message), /did not complete within the allotted timeout/);
});

test.run();
