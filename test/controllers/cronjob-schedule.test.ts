// Cron schedules: fields, ranges, steps, lists, names, macros, @every, the day-of-month /
// day-of-week rule, and counting missed times.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mostRecentMissed, parseSchedule, ScheduleError } from '../../controllers/cronjob/schedule.js';

const T = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 16));
const next = (spec: string, after: string) => iso(parseSchedule(spec).next(T(after)));

test('minutes, hours, ranges, steps and lists', () => {
  assert.is(next('*/15 * * * *', '2026-01-01T10:07:30Z'), '2026-01-01T10:15');
  assert.is(next('5 9-17/4 * * *', '2026-01-01T10:00:00Z'), '2026-01-01T13:05');
  assert.is(next('0,30 * * * *', '2026-01-01T10:00:00Z'), '2026-01-01T10:30');
  assert.is(next('* * * * *', '2026-01-01T10:00:59Z'), '2026-01-01T10:01');
  assert.is(next('10/20 * * * *', '2026-01-01T10:35:00Z'), '2026-01-01T10:50', 'a/step runs from a to the end');
});

test('month and weekday names, Sunday as 0 or 7, macros', () => {
  assert.is(next('0 0 1 feb *', '2026-01-15T00:00:00Z'), '2026-02-01T00:00');
  assert.is(next('0 8 * * mon-fri', '2026-01-03T09:00:00Z'), '2026-01-05T08:00', '2026-01-03 is a Saturday');
  assert.is(next('0 0 * * 7', '2026-01-01T00:00:00Z'), '2026-01-04T00:00');
  assert.is(next('@hourly', '2026-01-01T10:20:00Z'), '2026-01-01T11:00');
  assert.is(next('@daily', '2026-01-01T10:20:00Z'), '2026-01-02T00:00');
  assert.is(next('@weekly', '2026-01-01T10:20:00Z'), '2026-01-04T00:00');
  assert.is(next('@monthly', '2026-01-31T10:20:00Z'), '2026-02-01T00:00');
  assert.is(next('@yearly', '2026-03-01T00:00:00Z'), '2027-01-01T00:00');
});

test('day of month and day of week both restricted: either matches', () => {
  // The 13th, or any Friday.
  assert.is(next('0 0 13 * fri', '2026-02-01T00:00:00Z'), '2026-02-06T00:00');
  assert.is(next('0 0 13 * fri', '2026-02-10T00:00:00Z'), '2026-02-13T00:00');
  assert.is(next('0 0 31 * *', '2026-02-01T00:00:00Z'), '2026-03-31T00:00', 'months without a 31st are skipped');
});

test('@every runs at a fixed period; bad schedules are errors naming the problem', () => {
  assert.is(parseSchedule('@every 2s').next(T('2026-01-01T00:00:00.500Z')), T('2026-01-01T00:00:02Z'));
  // Job names carry seconds for every time of a sub-minute @every, minutes otherwise.
  assert.equal([parseSchedule('@every 1s').subMinute, parseSchedule('@every 90s').subMinute, parseSchedule('@every 2m').subMinute, parseSchedule('*/5 * * * *').subMinute], [true, true, false, false]);
  assert.throws(() => parseSchedule('* * * *'), (e: unknown) => e instanceof ScheduleError && /expected exactly 5 fields, found 4/.test((e as Error).message));
  assert.throws(() => parseSchedule('61 * * * *'), /outside 0-59/);
  assert.throws(() => parseSchedule('@every 0s'), /at least 1s/);
  assert.is(next('CRON_TZ=UTC 0 * * * *', '2026-01-01T10:20:00Z'), '2026-01-01T11:00');
});

test('missed times: the most recent one is run, and they are counted', () => {
  const s = parseSchedule('*/10 * * * *');
  const r = mostRecentMissed(s, T('2026-01-01T10:00:00Z'), T('2026-01-01T11:05:00Z'));
  assert.equal([iso(r.time), r.missed], ['2026-01-01T11:00', 6]);
  assert.equal(mostRecentMissed(s, T('2026-01-01T10:00:00Z'), T('2026-01-01T10:05:00Z')), { time: undefined, missed: 0 });
  const many = mostRecentMissed(parseSchedule('@every 1s'), T('2026-01-01T00:00:00Z'), T('2026-01-02T00:00:00Z'));
  assert.is(many.time, T('2026-01-02T00:00:00Z'));
  assert.ok(many.missed > 100);
});

test.run();
