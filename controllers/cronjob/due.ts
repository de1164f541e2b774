/**
 * The pure half of the cronjob controller's decision, with the established rules: which scheduled
 * time is due (the most recent one since the last run or creation, no earlier than
 * startingDeadlineSeconds before now), how many were missed, whether a time was missed for good,
 * and the name of a time's Job. `cronJobFacts` puts them together for the CronJob's lifecycle
 * (machines/lifecycles/cronjob.ts), so the state it names is the step these rules take.
 */
import type { CronJob, Job } from '../../src/api/generated/kinds.js';
import type { CronJobFacts } from '../../machines/lifecycles/cronjob.js';
import { mostRecentMissed, parseSchedule, type Schedule } from './schedule.js';

/**
 * The Job of scheduled time `time`: minutes since the epoch, as established; a sub-minute `@every`
 * schedule's times need their seconds (all of them: one that falls on a whole minute too, so its
 * Jobs are named alike).
 */
export function jobNameFor(cj: CronJob, time: number, subMinute: boolean): string {
  return `${cj.metadata.name}-${subMinute ? Math.floor(time / 1000) : Math.floor(time / 60_000)}`;
}

/** The schedule, or why it does not parse. */
export function scheduleOf(cj: CronJob): { schedule: Schedule; error?: undefined } | { schedule?: undefined; error: string } {
  try {
    return { schedule: parseSchedule(cj.spec?.schedule ?? '') };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The facts, and the due time the reconcile acts on (undefined when none is). */
export function cronJobFacts(cj: CronJob, parsed: ReturnType<typeof scheduleOf>, running: readonly Job[], now: number): CronJobFacts {
  const spec = cj.spec ?? {};
  const deadline = spec.startingDeadlineSeconds ?? undefined;
  const base: CronJobFacts = {
    scheduleError: parsed.error,
    suspended: spec.suspend === true,
    dueAt: undefined,
    missed: 0,
    missedDeadline: false,
    tooLateAt: undefined,
    startingDeadlineSeconds: deadline,
    concurrencyPolicy: spec.concurrencyPolicy ?? 'Allow',
    running: running.length,
    lastScheduleTime: cj.status?.lastScheduleTime ?? undefined,
    nextAt: undefined,
    now,
  };
  const schedule = parsed.schedule;
  // Suspended or unparseable: no time is looked for (and no TooManyMissedTimes is warned).
  if (!schedule || base.suspended) return base;
  const lastRunAt = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '');
  const lastRun = Number.isFinite(lastRunAt) ? lastRunAt : now;
  // The controller schedules nothing older than the starting deadline.
  const windowStart = deadline !== undefined ? now - deadline * 1000 : -Infinity;
  const { time, missed } = mostRecentMissed(schedule, Math.max(lastRun, windowStart), now);
  base.missed = missed;
  base.nextAt = schedule.next(now);
  if (time === undefined) {
    // None due in the window: was one missed before it (one look at the schedule, not a scan)?
    const first = windowStart > lastRun ? schedule.next(lastRun) : undefined;
    base.missedDeadline = first !== undefined && first <= windowStart;
    return base;
  }
  // The established check on the time found (the window above keeps it from firing but for clock steps).
  if (deadline !== undefined && time + deadline * 1000 < now) {
    base.missedDeadline = true;
    base.tooLateAt = time;
    return base;
  }
  // The Job of this time already runs (the status did not catch up): nothing is due.
  if (running.some((j) => j.metadata.name === jobNameFor(cj, time, schedule.subMinute))) return base;
  base.dueAt = time;
  return base;
}
