/**
 * The pure half of the job controller, with the established rules: how many pods should be
 * running (parallelism, completions left, or the work-queue form without completions), whether the
 * Job is complete or has failed (backoffLimit, activeDeadlineSeconds), the back-off before replacing
 * failed pods (10 s doubling to 6 min) and the status and conditions to write.
 */
import type { Condition, Job, Pod } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';
import type { JobFacts } from '../../machines/lifecycles/job.js';

export const POD_FAILURE_BACKOFF_MS = 10_000;
export const POD_FAILURE_BACKOFF_MAX_MS = 6 * 60_000;

export interface JobCounts {
  active: Pod[];
  succeeded: number;
  failed: number;
  /** Container restarts of the active pods (restartPolicy OnFailure counts these toward backoffLimit). */
  restarts: number;
  /** When the last pod failed (ms), for the back-off. */
  lastFailureAt: number | undefined;
}

export function countPods(pods: readonly Pod[], job: Job): JobCounts {
  const active: Pod[] = [];
  let succeeded = 0;
  let failed = 0;
  let restarts = 0;
  let lastFailureAt: number | undefined;
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded') succeeded++;
    else if (phase === 'Failed') {
      failed++;
      const at = finishedAt(p);
      if (at !== undefined && (lastFailureAt === undefined || at > lastFailureAt)) lastFailureAt = at;
    } else if (!p.metadata.deletionTimestamp) {
      active.push(p);
      for (const s of p.status?.containerStatuses ?? []) restarts += Number((s as { restartCount?: number }).restartCount ?? 0);
    }
  }
  // Finished pods may be removed later (pod GC): the counts never go back.
  return { active, succeeded: Math.max(succeeded, job.status?.succeeded ?? 0), failed: Math.max(failed, job.status?.failed ?? 0), restarts, lastFailureAt };
}

function finishedAt(p: Pod): number | undefined {
  let latest: number | undefined;
  for (const s of p.status?.containerStatuses ?? []) {
    const t = Date.parse(String(((s as { state?: { terminated?: { finishedAt?: string } } }).state?.terminated?.finishedAt) ?? ''));
    if (Number.isFinite(t) && (latest === undefined || t > latest)) latest = t;
  }
  return latest;
}

export function isFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export type Verdict = { kind: 'running' } | { kind: 'complete' } | { kind: 'failed'; reason: string; message: string };

export function verdict(job: Job, c: JobCounts, now: number): Verdict {
  const spec = job.spec ?? {};
  const backoffLimit = spec.backoffLimit ?? 6;
  const onFailure = spec.template?.spec?.restartPolicy === 'OnFailure';
  // OnFailure restarts containers in place: their restarts count toward the limit instead.
  const pastOnFailure = onFailure && (backoffLimit === 0 ? c.restarts > 0 : c.restarts >= backoffLimit);
  if (c.failed > backoffLimit || pastOnFailure) {
    return { kind: 'failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  }
  const start = job.status?.startTime ? Date.parse(job.status.startTime) : NaN;
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && Number.isFinite(start) && start + deadline * 1000 <= now) {
    return { kind: 'failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  }
  if (spec.completions !== undefined && spec.completions !== null) {
    if (c.succeeded >= spec.completions) return { kind: 'complete' };
  } else if (c.succeeded > 0 && c.active.length === 0) return { kind: 'complete' };
  return { kind: 'running' };
}

/** How many pods should be running now. */
export function wantedActive(job: Job, c: JobCounts): number {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  // A work queue: after the first success no pod is added, and the running ones finish their work.
  if (completions === undefined || completions === null) return c.succeeded > 0 ? Math.min(c.active.length, parallelism) : parallelism;
  return Math.max(0, Math.min(parallelism, completions - c.succeeded));
}

/** Milliseconds still to wait before replacing failed pods (0: go). */
export function failureBackoffLeft(c: JobCounts, now: number): number {
  if (c.failed === 0 || c.lastFailureAt === undefined) return 0;
  const wait = Math.min(POD_FAILURE_BACKOFF_MS * 2 ** (c.failed - 1), POD_FAILURE_BACKOFF_MAX_MS);
  return Math.max(0, c.lastFailureAt + wait - now);
}

/** The status for `counts` and `v`, keeping times already set. */
export function jobStatus(job: Job, c: JobCounts, v: Verdict, now: number): NonNullable<Job['status']> {
  const ts = rfc3339(now);
  const conditions: Condition[] = [...(job.status?.conditions ?? [])];
  const finishedCondition = (type: string, reason?: string, message?: string) => {
    if (!conditions.some((x) => x.type === type)) conditions.push({ type, status: 'True', ...(reason ? { reason } : {}), ...(message ? { message } : {}), lastProbeTime: ts, lastTransitionTime: ts } as Condition);
  };
  if (v.kind === 'complete') finishedCondition('Complete');
  if (v.kind === 'failed') finishedCondition('Failed', v.reason, v.message);
  return {
    ...job.status,
    startTime: job.status?.startTime ?? ts,
    active: v.kind === 'running' ? c.active.length : 0,
    succeeded: c.succeeded,
    failed: c.failed,
    ready: c.active.filter((p) => p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')).length,
    ...(v.kind === 'complete' && !job.status?.completionTime ? { completionTime: ts } : {}),
    ...(conditions.length ? { conditions } : {}),
  };
}

/**
 * What the reconcile observed, for the Job's lifecycle (machines/lifecycles/job.ts): the verdict,
 * the pods wanted and the back-off from the rules above, so the state the machine names is the
 * step those rules take.
 */
export function jobFacts(job: Job, c: JobCounts, v: Verdict, expectationsPending: boolean, now: number): JobFacts {
  const outcome = v.kind === 'failed' ? (v.reason === 'DeadlineExceeded' ? 'deadlineExceeded' : 'backoffLimitExceeded') : v.kind;
  return { ...specFacts(job), outcome, expectationsPending, active: c.active.length, wanted: wantedActive(job, c), succeeded: c.succeeded, failed: c.failed, backoffLeftMs: failureBackoffLeft(c, now) };
}

/** A finished Job's facts, from its status alone (a finished Job is left alone: its pods are not read). */
export function finishedJobFacts(job: Job): JobFacts {
  const finished = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  const outcome = finished?.type === 'Complete' ? 'complete' : finished?.reason === 'DeadlineExceeded' ? 'deadlineExceeded' : 'backoffLimitExceeded';
  const s = job.status ?? {};
  return { ...specFacts(job), outcome, expectationsPending: false, active: s.active ?? 0, wanted: 0, succeeded: s.succeeded ?? 0, failed: s.failed ?? 0, backoffLeftMs: 0 };
}

function specFacts(job: Job): Pick<JobFacts, 'completions' | 'parallelism' | 'backoffLimit' | 'activeDeadlineSeconds'> {
  const spec = job.spec ?? {};
  return { completions: spec.completions ?? undefined, parallelism: spec.parallelism ?? 1, backoffLimit: spec.backoffLimit ?? 6, activeDeadlineSeconds: spec.activeDeadlineSeconds ?? undefined };
}
