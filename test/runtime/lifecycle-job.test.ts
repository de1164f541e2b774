// The Job lifecycle's decision order (pure): the verdict first (backoffLimit, deadline, completion —
// a completion only once the watch shows every pod made), then how many pods to run, the back-off
// holding a replacement back; the facts come from the job controller's own rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Job, Pod } from '../../src/api/generated/kinds.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { jobLifecycle, type JobFacts } from '../../machines/lifecycles/job.js';
import { countPods, finishedJobFacts, jobFacts, verdict } from '../../controllers/job/sync.js';

const base: JobFacts = {
  outcome: 'running', expectationsPending: false, active: 1, wanted: 2, succeeded: 1, failed: 0, completions: 5, parallelism: 2, backoffLimit: 6,
  activeDeadlineSeconds: undefined, backoffLeftMs: 0,
};
const state = (f: Partial<JobFacts>) => evaluateLifecycle(jobLifecycle, { ...base, ...f }).state;

test('the chart draws the active steps and the three ends', () => {
  assert.equal(lifecycleStates(jobLifecycle), ['active.creating', 'active.backingOff', 'active.removingSurplus', 'active.running', 'complete', 'failed', 'deadlineExceeded']);
});

test('the verdict comes first, in the controller order; a completion waits for pods not yet seen', () => {
  assert.is(state({ outcome: 'backoffLimitExceeded', expectationsPending: true }), 'failed');
  assert.is(state({ outcome: 'deadlineExceeded', backoffLeftMs: 5_000 }), 'deadlineExceeded');
  assert.is(state({ outcome: 'complete' }), 'complete');
  assert.is(state({ outcome: 'complete', expectationsPending: true }), 'active.running');
});

test('then the pods: the back-off holds a replacement back; too few are created, too many removed', () => {
  assert.equal(evaluateLifecycle(jobLifecycle, { ...base, failed: 2, backoffLeftMs: 19_500 }), { state: 'active.backingOff', holds: '2 failed of backoffLimit 6: replacing in 20 s; 1 of 2 running' });
  assert.is(state({ expectationsPending: true }), 'active.running', 'no count is trusted while pods made are not seen');
  assert.equal(evaluateLifecycle(jobLifecycle, base), { state: 'active.creating', holds: '1 of 2 wanted pods running (parallelism 2; 1 of 5 succeeded)' });
  assert.is(state({ active: 3 }), 'active.removingSurplus');
  assert.is(state({ active: 2, backoffLeftMs: 1_000 }), 'active.running', 'a back-off does not matter when no pod is missing');
});

test('facts from the rules: a failed pod within its back-off; a finished Job from its condition alone', () => {
  const now = Date.parse('2026-01-01T00:00:05Z');
  const job: Job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'd' }, spec: { backoffLimit: 2, template: { spec: { containers: [] } } }, status: { startTime: '2026-01-01T00:00:00Z' } };
  const failedPod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { finishedAt: '2026-01-01T00:00:04Z' } } }] } } as unknown as Pod;
  const c = countPods([failedPod], job);
  const f = jobFacts(job, c, verdict(job, c, now), false, now);
  assert.equal([f.outcome, f.active, f.wanted, f.failed, f.backoffLeftMs], ['running', 0, 1, 1, 9_000]);
  assert.is(evaluateLifecycle(jobLifecycle, f).state, 'active.backingOff');
  const done = { ...job, status: { failed: 3, conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }] } } as Job;
  assert.is(evaluateLifecycle(jobLifecycle, finishedJobFacts(done)).state, 'deadlineExceeded');
  const limit = { ...job, status: { failed: 3, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] } } as Job;
  assert.is(evaluateLifecycle(jobLifecycle, finishedJobFacts(limit)).holds, '3 pods failed, backoffLimit 2');
});

test.run();
