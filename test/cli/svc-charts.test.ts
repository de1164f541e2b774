// `svc charts`, the real executable: every format, one machine to standard output or all into a
// folder, user modules by path (machines and defineController definitions), and clear errors.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILTIN_CONTROLLERS } from '../../controllers/registry.js';
import { defaultCharts } from '../../src/cli/svc-charts.js';
import { chartModel, projectMachines, toMermaid } from '../../src/runtime/inspection/index.js';

const svc = fileURLToPath(new URL('../../src/cli/svc.js', import.meta.url));
const examples = fileURLToPath(new URL('../../docs/examples/runtime/', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [svc, 'charts', ...args], { encoding: 'utf8', timeout: 60_000 });
}

test('--list names every project machine and every built-in controller', () => {
  const r = run(['--list']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').map((l) => l.split('\t')[0]), [...projectMachines().map((m) => m.name), ...BUILTIN_CONTROLLERS.map((c) => c.name)]);
  assert.match(r.stdout, /^deployment\tcontroller: .* Lifecycle of each Deployment: paused, scaling, progressing\.creatingReplicaSet/m);
});

test('a built-in controller by name: its lifecycle next to its plumbing; one the defaults leave off says why', () => {
  const r = run(['deployment', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  const model = JSON.parse(r.stdout) as { root: { children: Array<{ children: Array<{ key: string }> }> } };
  assert.equal(model.root.children[0]!.children.map((c) => c.key), ['lifecycle', 'plumbing']);
  assert.match(r.stdout, /"label": "1 \[paused\]"/);
  const off = run(['csrsigning']);
  assert.is(off.status, 1);
  assert.match(off.stderr, /controller "csrsigning" cannot be charted with the default settings: no CA to sign with/);
});

test('one machine to standard output: Mermaid by default, the same text as the library', () => {
  const r = run(['--machine', 'leader-election']);
  assert.is(r.status, 0, r.stderr);
  const le = projectMachines().find((m) => m.name === 'leader-election')!;
  assert.is(r.stdout, toMermaid(chartModel(le.machine, le.name)));
});

test('--format svg, dot and json', () => {
  const svg = run(['--machine', 'controller', '--format', 'svg']);
  assert.is(svg.status, 0, svg.stderr);
  assert.match(svg.stdout, /<svg[\s\S]*id="state&#45;running"/);
  const dot = run(['--machine', 'controller', '--format', 'dot']);
  assert.match(dot.stdout, /^digraph "controller" \{/);
  const json = run(['--machine', 'leaderElection', '--format', 'json']);
  assert.is(json.status, 0, json.stderr);
  const model = JSON.parse(json.stdout) as { name: string; machineId: string; transitions: Array<{ label: string }> };
  assert.is(model.name, 'leader-election', '--machine also takes the machine id');
  assert.is(model.machineId, 'leaderElection');
  assert.ok(model.transitions.some((t) => t.label === 'after renewDeadline'));
});

test('--out writes one file per machine', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-charts-')), 'nested');
  const r = run(['--out', dir, '--format', 'svg']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(readdirSync(dir).sort(), defaultCharts().map((m) => `${m.name}.svg`).sort());
  assert.match(readFileSync(join(dir, 'worker.svg'), 'utf8'), /id="state&#45;working"/);
  assert.match(r.stdout, /wrote .*worker\.svg/);
});

test('user modules by path: a defineController definition (charted from its definition) and a plain machine', () => {
  const r = run(['--list', join(examples, 'copy-controller.js'), join(examples, 'poller-machine.js')]);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^configmap-copy\t/m);
  assert.match(r.stdout, /^poller\t/m);
  const one = run(['--machine', 'poller', join(examples, 'poller-machine.js')]);
  assert.is(one.status, 0, one.stderr);
  assert.match(one.stdout, /^stateDiagram-v2\n {2}%% poller \(machine poller\)/);
  const copy = run([join(examples, 'copy-controller.js'), '--format', 'json']);
  assert.is(copy.status, 0, copy.stderr);
  // A definition is charted from itself: what it watches feeding its queue, workers, outcomes.
  const model = JSON.parse(copy.stdout) as { machineId: string; root: { children: { path: string; description?: string }[] }; transitions: { label: string }[] };
  assert.is(model.machineId, 'configmap-copy');
  assert.ok(model.root.children.some((c) => c.path === 'watch_configmaps' && c.description?.startsWith('watches ConfigMap')), JSON.stringify(model.root.children));
  for (const outcome of ['done()', 'requeueAfter(ms)', 'error / back off', 'TerminalError']) assert.ok(model.transitions.some((t) => t.label.startsWith(outcome)), outcome);
});

test('a definition exported twice (named and default) is one chart', () => {
  const mirror = fileURLToPath(new URL('../../docs/examples/mirror-controller.js', import.meta.url));
  const r = run(['--list', mirror]);
  assert.is(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim().split('\n').map((l) => l.split('\t')[0]), ['configmap-mirror']);
  const one = run([mirror]);
  assert.is(one.status, 0, one.stderr);
  assert.match(one.stdout, /^stateDiagram-v2/);
});

test('errors: several machines without --out, unknown machine, unknown format, unloadable or machine-less module', () => {
  const several = run([]);
  assert.is(several.status, 1);
  assert.match(several.stderr, /\d+ machines to export \(leader-election, controller, worker, scheduler, node-agent, deployment[^)]*\); choose one with --machine NAME or write them all with --out DIR/);
  const unknown = run(['--machine', 'nope']);
  assert.is(unknown.status, 1);
  assert.match(unknown.stderr, /--machine: unknown machine "nope"; known: leader-election, controller, worker, scheduler, node-agent/);
  const format = run(['--format', 'png', '--machine', 'worker']);
  assert.is(format.status, 1);
  assert.match(format.stderr, /'--format <format>' argument 'png' is invalid\. Allowed choices are mermaid, svg, dot, json/);
  const missing = run(['/nonexistent/module.js']);
  assert.is(missing.status, 1);
  assert.match(missing.stderr, /cannot load module \/nonexistent\/module\.js: /);
  const dir = mkdtempSync(join(tmpdir(), 'svc-charts-'));
  writeFileSync(join(dir, 'broken.mjs'), 'export const x = ;\n');
  writeFileSync(join(dir, 'plain.mjs'), 'export const answer = 42;\n');
  const broken = run([join(dir, 'broken.mjs')]);
  assert.is(broken.status, 1);
  assert.match(broken.stderr, /cannot load module .*broken\.mjs: .*Unexpected token/);
  const plain = run([join(dir, 'plain.mjs')]);
  assert.is(plain.status, 1);
  assert.match(plain.stderr, /plain\.mjs exports no state machine and no defineController definition/);
  for (const r of [several, unknown, format, missing, broken, plain]) assert.is(r.stdout, '');
});

test.run();
