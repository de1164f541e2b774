// Table columns of the built-in kinds: the established short durations, the pod status summary,
// and the default Name / Created At layout for kinds without a definition.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinResources, humanDuration, limitRangeDefinition, podColumns, serviceColumns } from '../../src/api/index.js';
import { buildTable } from '../../src/codec/table.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('ages use the established short durations', () => {
  const cases: [number, string][] = [
    [-500, '0s'], [5 * S, '5s'], [119 * S, '119s'], [2 * M, '2m'], [5 * M + 7 * S, '5m7s'], [10 * M + 30 * S, '10m'], [179 * M, '179m'],
    [3 * H, '3h'], [3 * H + 20 * M, '3h20m'], [20 * H, '20h'], [2 * D, '2d'], [3 * D + 4 * H, '3d4h'], [100 * D, '100d'],
    [800 * D, '2y70d'], [9 * 365 * D, '9y'], [-5 * S, '<invalid>'],
  ];
  for (const [ms, want] of cases) assert.is(humanDuration(ms), want, `${ms} ms`);
});

const created = '2026-01-01T00:00:00Z';
const now = Date.parse(created) + 5 * M;

test('pod cells: ready containers, status, restarts, age, IP, node', () => {
  const pod = {
    metadata: { name: 'web', creationTimestamp: created },
    spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Running',
      podIP: '10.0.0.7',
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 2, state: { running: {} } },
        { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  };
  assert.equal(podColumns.cells(pod, now), ['web', '1/2', 'CrashLoopBackOff', 3, '5m', '10.0.0.7', 'n1', '<none>', '<none>']);
});

test('pod status shows init progress and Terminating', () => {
  const init = {
    metadata: { name: 'i', creationTimestamp: created },
    spec: { initContainers: [{ name: 'x' }, { name: 'y' }], containers: [{ name: 'a' }] },
    status: { phase: 'Pending', initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }, { state: { running: {} } }] },
  };
  assert.is(podColumns.cells(init, now)[2], 'Init:1/2');
  const gone = { metadata: { name: 'g', creationTimestamp: created, deletionTimestamp: created }, spec: { containers: [] }, status: { phase: 'Running' } };
  assert.is(podColumns.cells(gone, now)[2], 'Terminating');
});

test('service cells: type, cluster IP, external IP and ports', () => {
  const svc = {
    metadata: { name: 's', creationTimestamp: created },
    spec: { type: 'NodePort', clusterIP: '10.96.0.10', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { app: 'x' } },
  };
  assert.equal(serviceColumns.cells(svc, now), ['s', 'NodePort', '10.96.0.10', '<none>', '80:30080/TCP,53/UDP', '5m', 'app=x']);
});

test('every declared column layout gives one cell per column', () => {
  const obj = { metadata: { name: 'x', creationTimestamp: created } };
  const declared = builtinResources().filter((d) => d.tableColumns);
  assert.ok(declared.length >= 18, `${declared.length} kinds declare columns`);
  for (const def of declared) {
    const t = def.tableColumns!;
    assert.is(t.cells(obj, now).length, t.columns.length, def.plural);
  }
});

test('a kind without a definition gets Name (string) and Created At (date)', () => {
  assert.is(limitRangeDefinition.tableColumns, undefined);
  const table = buildTable(limitRangeDefinition, [{ metadata: { name: 'lr', creationTimestamp: created } }], { resourceVersion: '7' }, { includeObject: 'None', now });
  assert.equal(table.columnDefinitions.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
  assert.equal(table.rows, [{ cells: ['lr', created] }]);
  assert.equal(table.metadata, { resourceVersion: '7' });
});

test.run();
