/**
 * The statefulset controller: pods with stable names, identities and claims, started and stopped in
 * order.
 *
 * - Watches: StatefulSets. Owns: Pods, ControllerRevisions. (Claims are not owned: they outlive the
 *   set, as established.)
 * - Writes: claims `<template>-<set>-<ordinal>` from `volumeClaimTemplates` (created before their
 *   pod, never deleted here), pods `<set>-<ordinal>` (hostname = name, subdomain = serviceName,
 *   labels `statefulset.svc.io/pod-name` and `controller-revision-hash`), pod deletes, the set's
 *   ControllerRevisions and status (replicas, ready, current, updated, currentRevision,
 *   updateRevision, observedGeneration).
 * - OrderedReady (default): pod N is created once 0..N-1 are Running and Ready; scale-down removes
 *   the highest ordinal first, one at a time, once the rest are ready. Parallel: all at once.
 * - RollingUpdate (default): from the highest ordinal down to `partition`, one pod at a time, a pod
 *   of an older revision is deleted and comes back on the new template once the others are ready;
 *   pods below the partition keep (and are recreated on) the current revision. OnDelete: pods
 *   change template only when deleted by someone else.
 * - Lifecycle: machines/lifecycles/statefulset.ts names the state each pass observes (creating in
 *   order or in parallel, replacing a Failed pod, waiting for Ready, scaling down highest ordinal
 *   first or waiting for it to terminate, updating, held by the partition, up to date) and the
 *   pass takes that state's step.
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { controllerRefOf, controllerRefTo } from '../../src/runtime/owner-references.js';
import { currentRevision, pruneRevisions, revisionsOf } from '../internal/revisions.js';
import { statefulSetLifecycle } from '../../machines/lifecycles/statefulset.js';
import { claimsFor, ordinalOf, podFor, setStatus, statefulSetPlan } from './sync.js';

export function statefulSetController(concurrency: number): ControllerDefinition<StatefulSet> {
  return defineController<StatefulSet>({
    name: 'statefulset',
    watches: resources.statefulsets,
    owns: [resources.pods, resources.controllerrevisions],
    concurrency,
    lifecycle: statefulSetLifecycle,
    reconcile: (key, ctx) => sync(ctx),
  });
}

async function sync(ctx: ReconcileContext<StatefulSet>): Promise<ReconcileOutcome> {
  const set = ctx.object;
  if (!set || set.metadata.deletionTimestamp) {
    ctx.lifecycle.forget();
    return done();
  }
  const ns = set.metadata.namespace ?? '';
  const ref = controllerRefTo(set, resources.statefulsets);
  const revisions = revisionsOf(ctx.cacheOf<ControllerRevision>(resources.controllerrevisions), set);
  const update = await currentRevision(ctx.client, set, resources.statefulsets, set.spec?.template, revisions);
  const currentName = set.status?.currentRevision || update.name;
  const currentRev = revisions.find((r) => r.metadata.name === currentName);
  const current = { name: currentName, hash: currentRev ? currentRev.metadata.labels?.['controller-revision-hash'] ?? update.hash : update.hash };
  const currentTemplate = currentRev ? ((currentRev['data'] as { spec?: { template?: PodTemplateSpec } } | undefined)?.spec?.template ?? set.spec?.template) : set.spec?.template;

  const pods = ctx
    .cacheOf<Pod>(resources.pods)
    .byIndex('owner', set.metadata.uid ?? '')
    .filter((p) => controllerRefOf(p)?.uid === set.metadata.uid && ordinalOf(set, p) !== undefined);
  const byOrdinal = new Map(pods.map((p) => [ordinalOf(set, p)!, p]));
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = rolling ? set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0 : Infinity;
  const plan = statefulSetPlan(set, byOrdinal, update.hash);
  const { state } = ctx.lifecycle.observe(statefulSetLifecycle, plan.facts);

  /** Creates the pod of ordinal `i` (its claims first). */
  const createOrdinal = async (i: number) => {
    // Below the partition (or under OnDelete) a new pod keeps the current revision.
    const atUpdate = rolling ? i >= partition || current.name === update.name : false;
    const template = atUpdate || !currentRev ? set.spec?.template : currentTemplate;
    await ensureClaims(ctx, set, i);
    const made = await create(ctx, podFor(set, i, template, atUpdate || !currentRev ? update.hash : current.hash, ref));
    if (made) void ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${made.metadata.name} in StatefulSet ${set.metadata.name} successful`);
  };
  /** Parallel: every pod that needs it at once: the missing created, the Failed and the surplus deleted. */
  const parallelPass = async () => {
    // Ordinal by ordinal, lowest first, as the pass walks them.
    const failed = new Map(plan.failed.map((p) => [ordinalOf(set, p)!, p]));
    for (const i of [...plan.missing, ...failed.keys()].sort((x, y) => x - y)) {
      const p = failed.get(i);
      if (p) await remove(ctx, set, p);
      else await createOrdinal(i);
    }
    for (const p of plan.condemned) if (!p.metadata.deletionTimestamp) await remove(ctx, set, p);
  };

  // The one step of the state observed (machines/lifecycles/statefulset.ts decides it).
  await act(ctx, async () => {
    switch (state) {
      case 'creating.inOrder':
        await createOrdinal(plan.facts.blockedOrdinal);
        break;
      case 'creating.inParallel':
        await parallelPass();
        break;
      case 'replacingFailed':
        if (plan.facts.ordered) await remove(ctx, set, plan.failed[0]!);
        else await parallelPass();
        break;
      case 'scalingDown.deleting':
        // The highest ordinal first: OrderedReady one at a time, Parallel all at once.
        if (plan.facts.ordered) await remove(ctx, set, plan.condemned[0]!);
        else await parallelPass();
        break;
      case 'updating':
        await remove(ctx, set, plan.stale!);
        break;
      default:
      // waitingForReady, scalingDown.waitingForTermination, partitioned, upToDate: nothing to do.
    }
  });

  await pruneRevisions(ctx.client, revisions, new Set([current.name, update.name]), set.spec?.revisionHistoryLimit ?? 10);
  const status = setStatus(set, pods, current, update);
  const keys = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'currentRevision', 'updateRevision'] as const;
  if (keys.some((k) => set.status?.[k] !== status[k])) {
    await ctx.client.updateStatus(resources.statefulsets, ns, { ...set, status } as SvcObject).catch((e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    });
  }
  return done();
}

/** Runs the step; a conflict or a terminating namespace means the cache was behind: the next event retries. */
async function act(ctx: ReconcileContext<StatefulSet>, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    if (e instanceof ApiError && (e.code === 409 || e.code === 403)) {
      ctx.logger.debug({ err: e.message }, 'a write met a newer state; waiting for its event');
      return;
    }
    throw e;
  }
}

async function create(ctx: ReconcileContext<StatefulSet>, pod: Pod): Promise<Pod | undefined> {
  try {
    return await ctx.client.create<Pod>(resources.pods, pod.metadata.namespace ?? '', pod);
  } catch (e) {
    if (e instanceof ApiError && e.code === 409) return undefined; // there already (the cache was behind)
    throw e;
  }
}

async function ensureClaims(ctx: ReconcileContext<StatefulSet>, set: StatefulSet, ordinal: number): Promise<void> {
  for (const claim of claimsFor(set, ordinal)) {
    try {
      await ctx.client.create<PersistentVolumeClaim>(resources.persistentvolumeclaims, claim.metadata.namespace ?? '', claim);
      void ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata.name} Pod ${set.metadata.name}-${ordinal} in StatefulSet ${set.metadata.name} success`);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e; // kept from before: claims outlive pods
    }
  }
}

async function remove(ctx: ReconcileContext<StatefulSet>, set: StatefulSet, pod: Pod): Promise<void> {
  try {
    await ctx.client.delete(resources.pods, pod.metadata.namespace ?? '', pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid ?? '' } });
    void ctx.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  }
}
