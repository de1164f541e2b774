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
 * - Lifecycle: machines/lifecycles/cronjob.ts names the state each reconcile observes (invalid
 *   schedule, suspended, missed, waiting; due: starting, replacing, skipping under Forbid) and the
 *   reconcile takes that state's step; the history is pruned first in every state.
 */
import type { CronJob, Job, ObjectReference } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { controllerRefTo } from '../../src/runtime/owner-references.js';
import { cronJobLifecycle } from '../../machines/lifecycles/cronjob.js';
import { cronJobFacts, jobNameFor, scheduleOf } from './due.js';

export const ANNOTATION_SCHEDULED_TIMESTAMP = 'batch.svc.io/cronjob-scheduled-timestamp';

const finishedType = (j: Job) => (j.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

export function cronJobController(concurrency: number): ControllerDefinition<CronJob> {
  return defineController<CronJob>({
    name: 'cronjob',
    watches: resources.cronjobs,
    owns: [resources.jobs],
    concurrency,
    lifecycle: cronJobLifecycle,
    reconcile: (key, ctx) => sync(ctx),
  });
}

async function sync(ctx: ReconcileContext<CronJob>): Promise<ReconcileOutcome> {
  const cj = ctx.object;
  if (!cj || cj.metadata.deletionTimestamp) {
    ctx.lifecycle.forget();
    return done();
  }
  const ns = cj.metadata.namespace ?? '';
  const jobs = ctx.cacheOf<Job>(resources.jobs).byIndex('owner', cj.metadata.uid ?? '').filter((j) => !j.metadata.deletionTimestamp);
  const running = jobs.filter((j) => !finishedType(j));

  // In every state, first: finished Jobs beyond the history limits go.
  await pruneHistory(ctx, cj, jobs);

  const parsed = scheduleOf(cj);
  const facts = cronJobFacts(cj, parsed, running, ctx.clock.now());
  const { state } = ctx.lifecycle.observe(cronJobLifecycle, facts);
  // The rule that finds the due time warns of too many missed ones, whatever follows (as established).
  if (facts.missed > 100) void ctx.recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${facts.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
  let active: Job[] = running;
  let lastScheduleTime = cj.status?.lastScheduleTime;

  // The step of the state observed.
  switch (state) {
    case 'invalidSchedule':
      void ctx.recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec?.schedule}: ${facts.scheduleError}`);
      return done();
    case 'missed':
      if (facts.tooLateAt !== undefined) void ctx.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc3339(facts.tooLateAt)}`);
      break;
    case 'due.skippingForbidden':
      void ctx.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      break;
    case 'due.replacing':
    case 'due.starting': {
      const time = facts.dueAt!;
      if (state === 'due.replacing') {
        for (const j of running) {
          await ctx.client.delete(resources.jobs, ns, j.metadata.name ?? '', { propagationPolicy: 'Background' }).catch(ignoreGone);
          void ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
        }
        active = [];
      }
      const made = await createJob(ctx, cj, jobNameFor(cj, time, parsed.schedule!.subMinute), time);
      if (made) active = [...active, made];
      lastScheduleTime = rfc3339(time);
      break;
    }
    default:
    // suspended, waiting: nothing to start; requeued at the next time below.
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
  return state === 'suspended' || facts.nextAt === undefined ? done() : requeueAfter(Math.max(1, facts.nextAt - facts.now + 1));
}

/** Creates the Job of `time` from the template; undefined when it exists already (that time has run). */
async function createJob(ctx: ReconcileContext<CronJob>, cj: CronJob, name: string, time: number): Promise<Job | undefined> {
  const ns = cj.metadata.namespace ?? '';
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
    return made;
  } catch (e) {
    // Already made (the cache was behind, or before a restart): that time has run.
    if (e instanceof ApiError && e.code === 409) return undefined;
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

