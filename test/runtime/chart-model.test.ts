// The chart model and its renderings for nested, parallel, delayed, guarded and invoking machines:
// what the model says, and that Mermaid, DOT and the locally rendered SVG draw it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chartModel, chartStates, toDot, toMermaid, toSvg, type ChartModel, type ChartTransition } from '../../src/runtime/inspection/index.js';
import { demo } from '../helpers/chart-machines.js';

const model: ChartModel = chartModel(demo, 'demo-chart');
const from = (source: string) => model.transitions.filter((t) => t.source === source);
const only = (ts: ChartTransition[], label: string) => {
  const hit = ts.filter((t) => t.label === label);
  assert.is(hit.length, 1, `${label} in ${JSON.stringify(ts.map((t) => t.label))}`);
  return hit[0]!;
};

test('states: paths, kinds, initial children, finals, parallel regions', () => {
  assert.is(model.name, 'demo-chart');
  assert.is(model.machineId, 'demo');
  const states = new Map(chartStates(model).map((s) => [s.path, s]));
  assert.equal([...states.keys()], ['', 'idle', 'waiting', 'busy', 'busy.fetching', 'busy.loaded', 'both', 'both.left', 'both.left.l1', 'both.left.l2', 'both.right', 'both.right.r1', 'both.right.r2', 'failed', 'done']);
  assert.is(states.get('')!.initial, 'idle');
  assert.is(states.get('busy')!.kind, 'compound');
  assert.is(states.get('busy')!.initial, 'busy.fetching');
  assert.is(states.get('busy.loaded')!.kind, 'final');
  assert.is(states.get('both')!.kind, 'parallel');
  assert.is(states.get('both')!.initial, undefined, 'parallel regions are all entered');
  assert.is(states.get('both.left')!.initial, 'both.left.l1');
  assert.equal(model.actors, ['fetcher', 'ticker']);
});

test('invoked and spawned actors, entry actions', () => {
  const states = new Map(chartStates(model).map((s) => [s.path, s]));
  assert.equal(states.get('busy.fetching')!.invokes, [{ id: 'load', src: 'fetcher', systemId: 'loader' }]);
  assert.equal(states.get('busy')!.spawns, [{ id: 'tick', src: 'ticker' }, { id: 'other', src: 'ticker', systemId: 'ticker-1' }]);
  assert.equal(states.get('busy')!.entry, ['log', 'startTicker'], 'an inline spawnChild is listed as a spawn only');
  assert.equal(states.get('waiting')!.entry, [], 'the timers xstate raises for `after` are not actions');
});

test('guards: named, object, not, and, inline', () => {
  const go = from('idle').filter((t) => t.trigger.kind === 'event' && t.trigger.event === 'GO');
  assert.equal(go.map((t) => t.guard), ['ready', '!ready', 'ready && allowed', 'inline guard']);
  assert.equal(go.map((t) => t.targets), [['busy'], ['waiting'], ['busy.fetching'], ['done']]);
  const always = only(from('idle'), 'always [allowed]');
  assert.equal(always.trigger, { kind: 'always' });
});

test('delayed transitions show the delay name and, when known, its milliseconds', () => {
  const w = from('waiting');
  assert.equal(only(w, 'after 500ms').trigger, { kind: 'after', delay: '500', ms: 500 });
  assert.equal(only(w, 'after retry (1000ms)').trigger, { kind: 'after', delay: 'retry', ms: 1000 });
  assert.equal(only(w, 'after jittered').trigger, { kind: 'after', delay: 'jittered' }, 'a computed delay has no fixed ms');
  assert.equal(only(w, 'after retry (1000ms)').targets, ['busy']);
});

test('done/error of invoked actors, done of a compound state, targetless and machine-wide transitions', () => {
  assert.equal(only(from('busy.fetching'), 'done: load').targets, ['busy.loaded']);
  assert.equal(only(from('busy.fetching'), 'error: load').targets, ['failed']);
  assert.equal(only(from('busy'), 'done').trigger, { kind: 'stateDone' });
  const ping = only(from('idle'), 'PING / log');
  assert.equal(ping.targets, []);
  assert.equal(ping.actions, ['log']);
  assert.equal(only(from(''), 'RESET').targets, ['idle']);
  assert.equal(only(from('both'), 'STOP').targets, ['done']);
  assert.equal(only(from('both.left.l1'), 'GO').targets, ['both.left.l2']);
});

test('DOT: clusters for compound and parallel states, ids per state path, lhead into clusters', () => {
  const dot = toDot(model);
  assert.match(dot, /subgraph "cluster_busy" \{\n\s+graph \[id="state-busy", class="state state-compound"/);
  assert.match(dot, /subgraph "cluster_both" \{\n\s+graph \[id="state-both", class="state state-parallel".*dashed/);
  assert.match(dot, /"s:busy.loaded" \[id="state-busy.loaded", class="state state-final".*peripheries=2\]/);
  // Labels are padded and split at " / " (no label runs into its neighbour's); the whole label is the tooltip.
  assert.match(dot, /"s:waiting" -> "init:busy" \[lhead="cluster_busy", label=" after retry \(1000ms\) ", tooltip="after retry \(1000ms\)"/);
  assert.match(dot, /"any:" -> "s:idle" \[label=" RESET "/, 'a machine-wide transition starts from "any state"');
  assert.match(dot, /"s:idle" -> "s:idle" \[label=" PING \\n \/ log ", tooltip="PING \/ log", style=dashed/);
  assert.match(dot, /graph \[compound=true, rankdir=TB, nodesep=0\.6, ranksep=0\.5/, 'room between nodes and ranks for labels');
  assert.match(dot, /"s:busy.fetching" \[id="state-busy.fetching", class="state state-atomic", label="fetching\\ninvoke fetcher \(load\)"\]/);
});

test('Mermaid: composite blocks declare their children, parallel regions are separated by --', () => {
  const mmd = toMermaid(model);
  assert.ok(mmd.startsWith('stateDiagram-v2\n'));
  const lines = mmd.split('\n').map((l) => l.trim());
  const block = (name: string) => {
    const start = lines.indexOf(`state ${name} {`);
    assert.ok(start >= 0, `block ${name}`);
    let depth = 0;
    for (let i = start; i < lines.length; i++) {
      if (lines[i]!.endsWith('{')) depth++;
      if (lines[i] === '}') depth--;
      if (depth === 0) return lines.slice(start + 1, i);
    }
    throw new Error(`unclosed ${name}`);
  };
  assert.ok(block('busy').includes('[*] --> fetching'));
  assert.ok(block('busy').includes('loaded --> [*]'));
  const both = block('both');
  assert.ok(both.includes('--'), 'regions separated');
  assert.ok(both.indexOf('state left {') < both.indexOf('--') && both.indexOf('--') < both.indexOf('state right {'));
  assert.ok(block('left').includes('l2'), 'a state first named by a transition is declared in its block');
  assert.ok(lines.includes('waiting --> busy : after retry (1000ms)'));
  assert.ok(lines.includes('machine_any --> idle : RESET'));
  assert.ok(lines.includes('fetching --> failed : error: load'));
  assert.ok(lines.includes('state "busy<br/>spawn ticker (tick)<br/>spawn ticker (other)<br/>entry / log, startTicker" as busy'), 'details in the label');
  assert.ok(lines.indexOf('state "busy<br/>spawn ticker (tick)<br/>spawn ticker (other)<br/>entry / log, startTicker" as busy') < lines.indexOf('state busy {'));
});

test('SVG (Graphviz in WebAssembly): every state has its element, with its path as id', async () => {
  const svg = await toSvg(model);
  assert.match(svg, /^<\?xml/);
  for (const s of chartStates(model)) {
    if (s.path === '') continue;
    assert.match(svg, new RegExp(`<g id="state&#45;${s.path.replace(/\./g, '\\.')}" class="(node|cluster) state state&#45;${s.kind}"`), s.path);
  }
  assert.is(await toSvg(model), svg, 'rendering is deterministic');
});

test.run();
