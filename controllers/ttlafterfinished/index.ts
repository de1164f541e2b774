/**
 * The ttl-after-finished controller (feature gate TTLAfterFinished, alpha, off by default): deletes
 * a finished Job `ttlSecondsAfterFinished` after it finished, with its pods.
 *
 * - Watches: Jobs.
 * - Writes: the Job's delete (background propagation, uid precondition) once its time is up.
 * - Timers: a finished Job with time left is looked at again when it runs out.
 * - Guarantees: it looks the Job up again before deleting, so a TTL changed meanwhile is honoured.
 */
import type { Job } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

/** When the Job finished (ms): its completion time, else its Complete/Failed condition's transition. */
export function finishedAt(job: Job): number | undefined {
  const c = (job.status?.conditions ?? []).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (!c) return undefined;
  const t = Date.parse(job.status?.completionTime ?? c.lastTransitionTime ?? '');
  return Number.isFinite(t) ? t : undefined;
}

/** Milliseconds until the Job may be deleted (≤ 0: now); undefined when it has no TTL or is not finished. */
export function timeLeft(job: Job, now: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  const at = finishedAt(job);
  if (ttl === undefined || ttl === null || at === undefined) return undefined;
  return at + ttl * 1000 - now;
}

export function ttlAfterFinishedController(concurrency: number): ControllerDefinition<Job> {
  return defineController<Job>({
    name: 'ttl-after-finished',
    watches: resources.jobs,
    concurrency,
    async reconcile(key, ctx) {
      const cached = ctx.object;
      if (!cached || cached.metadata.deletionTimestamp || timeLeft(cached, ctx.clock.now()) === undefined) return done();
      const left = timeLeft(cached, ctx.clock.now())!;
      if (left > 0) return requeueAfter(left + 1);
      // The cache may be behind: the Job as stored decides.
      let job: Job;
      try {
        job = await ctx.client.get<Job>(resources.jobs, ctx.namespace ?? '', ctx.name);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return done();
        throw e;
      }
      const fresh = timeLeft(job, ctx.clock.now());
      if (fresh === undefined) return done();
      if (fresh > 0) return requeueAfter(fresh + 1);
      try {
        await ctx.client.delete(resources.jobs, ctx.namespace ?? '', ctx.name, { propagationPolicy: 'Background', preconditions: { uid: job.metadata.uid ?? '' } });
        ctx.logger.info('deleted a finished Job whose TTL ran out');
      } catch (e) {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
      }
      return done();
    },
  });
}
