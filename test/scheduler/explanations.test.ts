import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExplanationStore, type SchedulingAttempt } from '../../src/scheduler/explanations.js';

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

test.run();
