/**
 * The job controller: runs a Job's pods to completion.
 *
 * - Watches: Jobs. Owns: Pods.
 * - Writes: pods from the template (`<job>-<random>`, slow-start batches), deletes of surplus
 *   pods and of every active pod once the Job has failed; the Job's status (startTime, active,
 *   ready, succeeded, failed, completionTime, Complete / Failed conditions).
 * - Rules: `parallelism` pods at most, `completions` successes (or, without completions, the first
 *   success once no pod is still running); `backoffLimit` failed pods (restarts under OnFailure)
 *   fails it (BackoffLimitExceeded); `activeDeadlineSeconds` after start fails it
 *   (DeadlineExceeded); failed pods are replaced after a back-off of 10 s doubling to 6 min.
 * - Timers: the deadline and the back-off are requeues at the time they end.
 * - Events: SuccessfulCreate, SuccessfulDelete, Completed, BackoffLimitExceeded, DeadlineExceeded.
 * - Lifecycle: machines/lifecycles/job.ts names the state each reconcile observes (active:
 *   creating, backing off, removing surplus, running; complete; failed; deadline exceeded) and the
 *   reconcile takes that state's step. (The Job spec has no `suspend` field yet.)
 * - Guarantees: expectations as the replicaset controller's (a slow watch never starts a pod twice);
 *   a finished Job is left alone.
 */
import type { Job, Pod } from '../../src/api/generated/kinds.js';
import { labelSelectorFromObject } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { claim, controllerRefTo } from '../../src/runtime/owner-references.js';
import { Expectations } from '../internal/expectations.js';
import { BURST_REPLICAS, podFromTemplate, slowStartBatches } from '../internal/pod-template.js';
import { compareForDeletion } from '../internal/pod-state.js';
import { jobLifecycle } from '../../machines/lifecycles/job.js';
import { countPods, finishedJobFacts, isFinished, jobFacts, jobStatus, verdict, type Verdict } from './sync.js';

export function jobController(concurrency: number): ControllerDefinition<Job> {
  let expectations: Expectations | undefined;
  return defineController<Job>({
    name: 'job',
    watches: resources.jobs,
    owns: [resources.pods],
    concurrency,
    lifecycle: jobLifecycle,
    async reconcile(key, ctx) {
      expectations ??= new Expectations(ctx.clock);
      return sync(key, ctx, expectations);
    },
  });
}

async function sync(key: string, ctx: ReconcileContext<Job>, expectations: Expectations): Promise<ReconcileOutcome> {
  const job = ctx.object;
  if (!job) {
    expectations.forget(key);
    ctx.lifecycle.forget();
    return done();
  }
  if (job.metadata.deletionTimestamp) {
    ctx.lifecycle.forget();
    return done();
  }
  if (!job.spec?.selector) return done();
  if (isFinished(job)) {
    // A finished Job is left alone; its state follows from its condition (no pod is read).
    ctx.lifecycle.observe(jobLifecycle, finishedJobFacts(job));
    return done();
  }
  const ns = job.metadata.namespace ?? '';
  const podCache = ctx.cacheOf<Pod>(resources.pods);
  const mine = new Map(podCache.byIndex('owner', job.metadata.uid ?? '').map((p) => [p.metadata.uid ?? '', p]));
  const satisfied = expectations.satisfied(key, { state: (uid) => (!mine.get(uid) ? 'absent' : mine.get(uid)!.metadata.deletionTimestamp ? 'deleting' : 'present') });
  const { owned } = await claim<Pod>(ctx.client, resources.pods, job, resources.jobs, labelSelectorFromObject(job.spec.selector), podCache.byIndex('namespace', ns));
  const now = ctx.clock.now();
  const counts = countPods(owned, job);
  const judged = verdict(job, counts, now);
  // Pods it made but cannot see yet may still run: the machine names no success until they show.
  const facts = jobFacts(job, counts, judged, !satisfied, now);
  const { state } = ctx.lifecycle.observe(jobLifecycle, facts);
  const v: Verdict = state === 'complete' || state === 'failed' || state === 'deadlineExceeded' ? judged : { kind: 'running' };
  let wait: number | undefined;

  // The step of the state observed.
  switch (state) {
    case 'failed':
    case 'deadlineExceeded':
      await deletePods(ctx, job, key, expectations, counts.active);
      if (judged.kind === 'failed') void ctx.recorder.event(job, 'Warning', judged.reason, judged.message);
      break;
    case 'complete':
      void ctx.recorder.event(job, 'Normal', 'Completed', 'Job completed');
      break;
    case 'active.backingOff':
      wait = facts.backoffLeftMs;
      break;
    case 'active.creating':
      await createPods(ctx, job, key, expectations, Math.min(facts.wanted - facts.active, BURST_REPLICAS));
      break;
    case 'active.removingSurplus': {
      const surplus = [...counts.active].sort((a, b) => compareForDeletion(a, b, now)).slice(0, facts.active - facts.wanted);
      await deletePods(ctx, job, key, expectations, surplus);
      break;
    }
    default:
    // active.running: the pods' watch events bring the Job back.
  }

  const status = jobStatus(job, counts, v, now);
  const old = job.status ?? {};
  // A counter's 0 is the same as its absence (a Protobuf write stores none, as the established JSON
  // omits it); a timestamp is compared as it is.
  const changed =
    (['active', 'ready', 'succeeded', 'failed'] as const).some((k) => (old[k] ?? 0) !== (status[k] ?? 0)) ||
    (['startTime', 'completionTime'] as const).some((k) => old[k] !== status[k]) ||
    (old.conditions?.length ?? 0) !== (status.conditions?.length ?? 0);
  if (changed) {
    await ctx.client.updateStatus(resources.jobs, ns, { ...job, status } as SvcObject).catch((e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    });
  }
  if (v.kind === 'running' && job.spec?.activeDeadlineSeconds !== undefined) {
    const start = Date.parse(status.startTime ?? '');
    const left = start + job.spec.activeDeadlineSeconds * 1000 - now;
    wait = Math.min(wait ?? Infinity, Math.max(left, 1));
  }
  return wait !== undefined && Number.isFinite(wait) ? requeueAfter(wait + 1) : done();
}

async function createPods(ctx: ReconcileContext<Job>, job: Job, key: string, expectations: Expectations, count: number): Promise<void> {
  const ref = controllerRefTo(job, resources.jobs);
  const make = () => podFromTemplate(job.spec?.template, { generateName: `${job.metadata.name}-`, namespace: job.metadata.namespace ?? '', controllerRef: ref });
  for (const size of slowStartBatches(count)) {
    const results = await Promise.allSettled(Array.from({ length: size }, () => ctx.client.create<Pod>(resources.pods, job.metadata.namespace ?? '', make())));
    let failed: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') {
        expectations.created(key, r.value.metadata.uid ?? '');
        void ctx.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
      } else failed ??= r.reason;
    }
    if (failed !== undefined) {
      void ctx.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${(failed as Error).message}`);
      if (failed instanceof ApiError && failed.code === 403) return; // namespace terminating, quota: the next event retries
      throw failed;
    }
  }
}

async function deletePods(ctx: ReconcileContext<Job>, job: Job, key: string, expectations: Expectations, pods: readonly Pod[]): Promise<void> {
  await Promise.all(
    pods.map(async (p) => {
      try {
        await ctx.client.delete(resources.pods, job.metadata.namespace ?? '', p.metadata.name ?? '', { preconditions: { uid: p.metadata.uid ?? '' } });
        void ctx.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      } catch (e) {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
      }
      expectations.deleted(key, p.metadata.uid ?? '');
    }),
  );
}
