/**
 * The cronjob controller: creates a Job from a CronJob's template at each scheduled time.
 *
 * - Watches: CronJobs. Owns: Jobs.
 * - Writes: Jobs named `<cronjob>-<scheduled time in minutes since the epoch>` (seconds for a
 *   sub-minute `@every`; a time is never run twice, whatever the restarts), deletes of finished Jobs beyond
 *   `successfulJobsHistoryLimit` / `failedJobsHistoryLimit` (with their pods) and of running ones
 *   under `concurrencyPolicy: Replace`, and the CronJob's status (active, lastScheduleTime,
 *   lastSuccessfulTime).
 * - Rules: the most recent missed time since the last one (or creation) is run; more than 100
 *   missed is warned about (TooManyMissedTimes); a time older than `startingDeadlineSeconds` is
 *   skipped (MissSchedule); `Forbid` skips a time while a Job still runs, `Replace` deletes the
 *   running ones first; `suspend` starts nothing (history is still pruned).
 * - Timers: the next scheduled time is a requeue at that time.
 * - Events: SuccessfulCreate, SuccessfulDelete, SawCompletedJob, MissSchedule, JobAlreadyActive,
 *   TooManyMissedTimes, InvalidSchedule.
 */
import type { CronJob, Job, ObjectReference } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { controllerRefTo } from '../../src/runtime/owner-references.js';
import { mostRecentMissed, parseSchedule } from './schedule.js';

export const ANNOTATION_SCHEDULED_TIMESTAMP = 'batch.svc.io/cronjob-scheduled-timestamp';

const finishedType = (j: Job) => (j.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

export function cronJobController(concurrency: number): ControllerDefinition<CronJob> {
  return defineController<CronJob>({
    name: 'cronjob',
    watches: resources.cronjobs,
    owns: [resources.jobs],
    concurrency,
    reconcile: (key, ctx) => sync(ctx),
  });
}

async function sync(ctx: ReconcileContext<CronJob>): Promise<ReconcileOutcome> {
  const cj = ctx.object;
  if (!cj || cj.metadata.deletionTimestamp) return done();
  const ns = cj.metadata.namespace ?? '';
  const now = ctx.clock.now();
  const jobs = ctx.cacheOf<Job>(resources.jobs).byIndex('owner', cj.metadata.uid ?? '').filter((j) => !j.metadata.deletionTimestamp);
  const running = jobs.filter((j) => !finishedType(j));

  await pruneHistory(ctx, cj, jobs);

  let schedule;
  try {
    schedule = parseSchedule(cj.spec?.schedule ?? '');
  } catch (e) {
    void ctx.recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec?.schedule}: ${(e as Error).message}`);
    return done();
  }
  let active: Job[] = running;
  let lastScheduleTime = cj.status?.lastScheduleTime;
  if (!cj.spec?.suspend) {
    const lastRun = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '');
    const deadline = cj.spec?.startingDeadlineSeconds;
    const since = Math.max(Number.isFinite(lastRun) ? lastRun : now, deadline !== undefined ? now - deadline * 1000 : -Infinity);
    const { time, missed } = mostRecentMissed(schedule, since, now);
    if (missed > 100) void ctx.recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    if (time !== undefined) {
      const started = await startJob(ctx, cj, time, running, schedule.subMinute);
      if (started) {
        active = started.active;
        lastScheduleTime = rfc3339(time);
      }
    }
  }

  const refs: ObjectReference[] = active.map((j) => ({ apiVersion: 'batch/v1', kind: 'Job', name: j.metadata.name ?? '', namespace: ns, uid: j.metadata.uid ?? '' }) as ObjectReference);
  const lastSuccess = jobs
    .filter((j) => finishedType(j) === 'Complete' && j.status?.completionTime)
    .map((j) => j.status!.completionTime!)
    .sort()
    .pop();
  const status = { ...cj.status, active: refs, ...(lastScheduleTime ? { lastScheduleTime } : {}), ...(lastSuccess ? { lastSuccessfulTime: lastSuccess } : {}) };
  if (JSON.stringify(status) !== JSON.stringify({ active: [], ...cj.status })) {
    await ctx.client.updateStatus(resources.cronjobs, ns, { ...cj, status } as SvcObject).catch((e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    });
  }
  const next = schedule.next(now);
  return cj.spec?.suspend || next === undefined ? done() : requeueAfter(Math.max(1, next - now + 1));
}

/** Starts the Job of `time` under the concurrency policy; undefined when the time is skipped. */
async function startJob(ctx: ReconcileContext<CronJob>, cj: CronJob, time: number, running: Job[], subMinute: boolean): Promise<{ active: Job[] } | undefined> {
  const ns = cj.metadata.namespace ?? '';
  const now = ctx.clock.now();
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (deadline !== undefined && time + deadline * 1000 < now) {
    void ctx.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc3339(time)}`);
    return undefined;
  }
  // Minutes since the epoch, as established; a sub-minute `@every` schedule's times need their
  // seconds (all of them: one that falls on a whole minute too, so its Jobs are named alike).
  const name = `${cj.metadata.name}-${subMinute ? Math.floor(time / 1000) : Math.floor(time / 60_000)}`;
  if (running.some((j) => j.metadata.name === name)) return undefined; // this time already runs
  const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
  if (policy === 'Forbid' && running.length) {
    void ctx.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
    return undefined;
  }
  let active = running;
  if (policy === 'Replace') {
    for (const j of running) {
      await ctx.client.delete(resources.jobs, ns, j.metadata.name ?? '', { propagationPolicy: 'Background' }).catch(ignoreGone);
      void ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
    }
    active = [];
  }
  const tpl = cj.spec?.jobTemplate ?? {};
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: ns,
      labels: { ...(tpl.metadata?.labels ?? {}) },
      annotations: { ...(tpl.metadata?.annotations ?? {}), [ANNOTATION_SCHEDULED_TIMESTAMP]: rfc3339(time) },
      ownerReferences: [controllerRefTo(cj, resources.cronjobs)],
    },
    spec: structuredClone(tpl.spec ?? {}) as NonNullable<Job['spec']>,
  };
  try {
    const made = await ctx.client.create<Job>(resources.jobs, ns, job);
    void ctx.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${made.metadata.name}`);
    return { active: [...active, made] };
  } catch (e) {
    // Already made (the cache was behind, or before a restart): that time has run.
    if (e instanceof ApiError && e.code === 409) return { active };
    throw e;
  }
}

/** Deletes the oldest finished Jobs beyond the history limits (their pods with them). */
async function pruneHistory(ctx: ReconcileContext<CronJob>, cj: CronJob, jobs: readonly Job[]): Promise<void> {
  const ns = cj.metadata.namespace ?? '';
  const byAge = (a: Job, b: Job) => ((a.status?.startTime ?? a.metadata.creationTimestamp ?? '') < (b.status?.startTime ?? b.metadata.creationTimestamp ?? '') ? -1 : 1);
  for (const [type, limit] of [['Complete', cj.spec?.successfulJobsHistoryLimit ?? 3], ['Failed', cj.spec?.failedJobsHistoryLimit ?? 1]] as const) {
    const finished = jobs.filter((j) => finishedType(j) === type).sort(byAge);
    for (const j of finished.slice(0, Math.max(0, finished.length - limit))) {
      await ctx.client.delete(resources.jobs, ns, j.metadata.name ?? '', { propagationPolicy: 'Background' }).catch(ignoreGone);
      void ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
    }
  }
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return undefined;
  throw e;
}

