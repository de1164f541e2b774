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
import { countPods, failureBackoffLeft, isFinished, jobStatus, verdict, wantedActive } from './sync.js';

export function jobController(concurrency: number): ControllerDefinition<Job> {
  let expectations: Expectations | undefined;
  return defineController<Job>({
    name: 'job',
    watches: resources.jobs,
    owns: [resources.pods],
    concurrency,
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
    return done();
  }
  if (isFinished(job) || job.metadata.deletionTimestamp || !job.spec?.selector) return done();
  const ns = job.metadata.namespace ?? '';
  const podCache = ctx.cacheOf<Pod>(resources.pods);
  const mine = new Map(podCache.byIndex('owner', job.metadata.uid ?? '').map((p) => [p.metadata.uid ?? '', p]));
  const satisfied = expectations.satisfied(key, { state: (uid) => (!mine.get(uid) ? 'absent' : mine.get(uid)!.metadata.deletionTimestamp ? 'deleting' : 'present') });
  const { owned } = await claim<Pod>(ctx.client, resources.pods, job, resources.jobs, labelSelectorFromObject(job.spec.selector), podCache.byIndex('namespace', ns));
  const now = ctx.clock.now();
  const counts = countPods(owned, job);
  // Pods it made but cannot see yet may still run: no verdict of success until they show.
  const judged = verdict(job, counts, now);
  const v = judged.kind === 'complete' && !satisfied ? ({ kind: 'running' } as const) : judged;
  let wait: number | undefined;

  if (v.kind === 'failed') {
    await deletePods(ctx, job, key, expectations, counts.active);
    void ctx.recorder.event(job, 'Warning', v.reason, v.message);
  } else if (v.kind === 'complete') {
    void ctx.recorder.event(job, 'Normal', 'Completed', 'Job completed');
  } else if (satisfied) {
    const diff = wantedActive(job, counts) - counts.active.length;
    if (diff > 0) {
      const left = failureBackoffLeft(counts, now);
      if (left > 0) wait = left;
      else await createPods(ctx, job, key, expectations, Math.min(diff, BURST_REPLICAS));
    } else if (diff < 0) {
      const surplus = [...counts.active].sort((a, b) => compareForDeletion(a, b, now)).slice(0, -diff);
      await deletePods(ctx, job, key, expectations, surplus);
    }
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
