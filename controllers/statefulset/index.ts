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
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { controllerRefOf, controllerRefTo } from '../../src/runtime/owner-references.js';
import { currentRevision, pruneRevisions, revisionsOf } from '../internal/revisions.js';
import { claimsFor, ordinalOf, podFor, revisionOf, runningAndReady, setStatus } from './sync.js';

export function statefulSetController(concurrency: number): ControllerDefinition<StatefulSet> {
  return defineController<StatefulSet>({
    name: 'statefulset',
    watches: resources.statefulsets,
    owns: [resources.pods, resources.controllerrevisions],
    concurrency,
    reconcile: (key, ctx) => sync(ctx),
  });
}

async function sync(ctx: ReconcileContext<StatefulSet>): Promise<ReconcileOutcome> {
  const set = ctx.object;
  if (!set || set.metadata.deletionTimestamp) return done();
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
  const replicas = set.spec?.replicas ?? 1;
  const ordered = (set.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = rolling ? set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0 : Infinity;

  await act(ctx, async () => {
    // Make or mend 0..replicas-1.
    for (let i = 0; i < replicas; i++) {
      const pod = byOrdinal.get(i);
      if (!pod) {
        // Below the partition (or under OnDelete) a new pod keeps the current revision.
        const atUpdate = rolling ? i >= partition || current.name === update.name : false;
        const template = atUpdate || !currentRev ? set.spec?.template : currentTemplate;
        await ensureClaims(ctx, set, i);
        const made = await create(ctx, podFor(set, i, template, atUpdate || !currentRev ? update.hash : current.hash, ref));
        if (made) void ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${made.metadata.name} in StatefulSet ${set.metadata.name} successful`);
        if (ordered) return;
        continue;
      }
      if (pod.status?.phase === 'Failed' && !pod.metadata.deletionTimestamp) {
        await remove(ctx, set, pod);
        if (ordered) return;
        continue;
      }
      if (ordered && !runningAndReady(pod)) return; // wait for it before the next ordinal
    }
    // Scale down: the highest ordinal first.
    const condemned = [...byOrdinal.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a).map(([, p]) => p);
    if (condemned.length) {
      if (ordered) {
        if (condemned.some((p) => p.metadata.deletionTimestamp)) return;
        await remove(ctx, set, condemned[0]!);
      } else for (const p of condemned) if (!p.metadata.deletionTimestamp) await remove(ctx, set, p);
      return;
    }
    // Rolling update: one pod at a time, from the top down to the partition, once all are ready.
    if (!rolling) return;
    const live = [...byOrdinal.entries()].filter(([i]) => i < replicas);
    if (live.length < replicas || live.some(([, p]) => !runningAndReady(p))) return;
    const stale = live.filter(([i, p]) => i >= partition && revisionOf(p) !== update.hash).sort(([a], [b]) => b - a)[0];
    if (stale) await remove(ctx, set, stale[1]);
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
