import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExplanationStore, MAX_SCORED_NODES_KEPT, type SchedulingAttempt, topScores } from '../../src/scheduler/explanations.js';

function attempt(pod: string, result: SchedulingAttempt['result'] = 'Unschedulable'): SchedulingAttempt {
  return {
    pod, uid: pod, profile: 'default-scheduler', attempt: 1, time: '2026-01-01T00:00:00Z', result, message: 'm', numAllNodes: 1, evaluatedNodes: 1, feasibleNodes: 0,
    filtered: [{ plugin: 'NodeResourcesFit', code: 'Unschedulable', reasons: ['Insufficient cpu'], count: 1, nodes: ['n1'] }],
    scores: [{ node: 'n1', total: 1, plugins: {} }],
    ...(result === 'Scheduled' ? { node: 'n1' } : {}),
  };
}

test('node detail is kept for the most recent pending attempts only; counts stay', () => {
  const s = new ExplanationStore(2, 3);
  for (const p of ['a', 'b', 'c']) s.record(attempt(p));
  assert.is(s.get('a')!.filtered[0]!.nodes, undefined);
  assert.is(s.get('a')!.filtered[0]!.count, 1);
  assert.equal(s.get('a')!.scores, []);
  assert.equal(s.get('c')!.filtered[0]!.nodes, ['n1']);
  s.record(attempt('a'));
  assert.equal(s.get('a')!.filtered[0]!.nodes, ['n1'], 'a new attempt has detail again');
  assert.is(s.get('b')!.filtered[0]!.nodes, undefined, 'the oldest detailed one lost it');
});

test('a scheduled or deleted pod moves to the bounded ring of recent attempts', () => {
  const s = new ExplanationStore(10, 2);
  s.record(attempt('x', 'Scheduled'));
  assert.is(s.size, 0);
  assert.is(s.get('x')!.ended, 'bound to n1');
  s.record(attempt('y'));
  s.finish('y', 'deleted');
  s.record(attempt('z', 'Scheduled'));
  assert.is(s.get('x'), undefined, 'the ring keeps 2');
  assert.is(s.get('y')!.ended, 'deleted');
});

test('topScores keeps the best nodes, best first, equal totals in node order, with each plugin\'s score', () => {
  const totals = Array.from({ length: 500 }, (_, i) => ({ name: `n${i}`, score: (i * 37) % 101 }));
  const perPlugin = new Map([['P', totals.map((t) => t.score / 2)]]);
  const expected = totals.map((t, i) => ({ t, i })).sort((a, b) => b.t.score - a.t.score || a.i - b.i).slice(0, MAX_SCORED_NODES_KEPT);
  const got = topScores(totals, perPlugin);
  assert.equal(got.map((g) => g.node), expected.map((e) => e.t.name));
  assert.equal(got[0]!.plugins, { P: expected[0]!.t.score / 2 });
  assert.equal(topScores([{ name: 'a', score: 1.5 }, { name: 'b', score: 2.5 }], new Map()).map((g) => g.node), ['b', 'a'], 'fractional totals still order');
});

test.run();
