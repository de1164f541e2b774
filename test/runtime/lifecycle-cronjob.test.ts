// The CronJob lifecycle's decision order (pure): an unparseable schedule, suspend, a time missed
// beyond startingDeadlineSeconds, nothing due, then the concurrency policy for the due time; the
// facts come from the cronjob controller's own rules (the due time, the window, the Job's name).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CronJob, Job } from '../../src/api/generated/kinds.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { cronJobLifecycle, type CronJobFacts } from '../../machines/lifecycles/cronjob.js';
import { cronJobFacts, jobNameFor, scheduleOf } from '../../controllers/cronjob/due.js';

const base: CronJobFacts = {
  scheduleError: undefined, suspended: false, dueAt: 60_000, missed: 1, missedDeadline: false, tooLateAt: undefined, startingDeadlineSeconds: undefined,
  concurrencyPolicy: 'Allow', running: 1, lastScheduleTime: undefined, nextAt: 120_000, now: 61_000,
};
const state = (f: Partial<CronJobFacts>) => evaluateLifecycle(cronJobLifecycle, { ...base, ...f }).state;

test('the chart draws the resting states, missed and the three ways a due time goes', () => {
  assert.equal(lifecycleStates(cronJobLifecycle), ['invalidSchedule', 'suspended', 'missed', 'waiting', 'due.starting', 'due.replacing', 'due.skippingForbidden']);
});

test('decision order: schedule, suspend, missed, nothing due, then the concurrency policy', () => {
  assert.is(state({ scheduleError: 'bad', suspended: true }), 'invalidSchedule');
  assert.is(state({ suspended: true, missedDeadline: true }), 'suspended');
  assert.is(state({ missedDeadline: true, dueAt: undefined }), 'missed');
  assert.equal(evaluateLifecycle(cronJobLifecycle, { ...base, dueAt: undefined }), { state: 'waiting', holds: 'next at 1970-01-01T00:02:00.000Z (in 59 s)' });
  assert.is(state({ concurrencyPolicy: 'Forbid' }), 'due.skippingForbidden');
  assert.is(state({ concurrencyPolicy: 'Forbid', running: 0 }), 'due.starting');
  assert.is(state({ concurrencyPolicy: 'Replace' }), 'due.replacing');
  assert.equal(evaluateLifecycle(cronJobLifecycle, { ...base, missed: 150 }), {
    state: 'due.starting', holds: '1970-01-01T00:01:00.000Z due, 150 times missed since the last run (TooManyMissedTimes); concurrencyPolicy Allow, 1 running',
  });
});

const cronJob = (schedule: string, spec: Partial<NonNullable<CronJob['spec']>>, lastScheduleTime?: string): CronJob => ({
  apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj', namespace: 'd', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { schedule, jobTemplate: {}, ...spec }, ...(lastScheduleTime ? { status: { lastScheduleTime } } : {}),
} as CronJob);
const at = (iso: string) => Date.parse(iso);

test('facts from the rules: the due time, a time missed beyond the window, a time whose Job runs', () => {
  const hourly = cronJob('0 * * * *', {});
  const f = cronJobFacts(hourly, scheduleOf(hourly), [], at('2026-01-01T03:30:00Z'));
  assert.equal([f.dueAt, f.missed, f.missedDeadline], [at('2026-01-01T03:00:00Z'), 3, false]);

  const windowed = cronJob('0 * * * *', { startingDeadlineSeconds: 60 }, '2026-01-01T01:00:00Z');
  const m = cronJobFacts(windowed, scheduleOf(windowed), [], at('2026-01-01T03:30:00Z'));
  assert.equal([m.dueAt, m.missed, m.missedDeadline], [undefined, 0, true]);
  assert.is(evaluateLifecycle(cronJobLifecycle, m).state, 'missed');
  const inWindow = cronJobFacts(windowed, scheduleOf(windowed), [], at('2026-01-01T03:00:30Z'));
  assert.equal([inWindow.dueAt, inWindow.missedDeadline], [at('2026-01-01T03:00:00Z'), false]);

  const running = { metadata: { name: jobNameFor(hourly, at('2026-01-01T03:00:00Z'), false) } } as Job;
  assert.is(running.metadata.name, `cj-${at('2026-01-01T03:00:00Z') / 60_000}`);
  assert.is(evaluateLifecycle(cronJobLifecycle, cronJobFacts(hourly, scheduleOf(hourly), [running], at('2026-01-01T03:30:00Z'))).state, 'waiting');

  const bad = cronJob('99 * * * *', {});
  assert.is(evaluateLifecycle(cronJobLifecycle, cronJobFacts(bad, scheduleOf(bad), [], 0)).state, 'invalidSchedule');
  const suspended = cronJob('0 * * * *', { suspend: true });
  assert.equal(cronJobFacts(suspended, scheduleOf(suspended), [], at('2030-01-01T00:00:00Z')).missed, 0, 'a suspended CronJob looks for no time');
});

test.run();
