/**
 * The deployment controller: rolls a Deployment's pod template out through ReplicaSets.
 *
 * - Watches: Deployments. Owns: ReplicaSets. Triggers: pods matching a Deployment's selector (a
 *   Recreate rollout waits for the old pods to be gone).
 * - Writes: ReplicaSets (created as `<name>-<pod-template-hash>`, scaled, annotated with the
 *   revision and the sizes they were made for; adopted and released by selector; old ones beyond
 *   `revisionHistoryLimit` deleted once empty), the Deployment's status (replicas, updated, ready,
 *   available, unavailable, observedGeneration, Available and Progressing conditions) and its
 *   revision annotation.
 * - Strategies: RollingUpdate (the new ReplicaSet grows within replicas + maxSurge, old ones
 *   shrink keeping replicas - maxUnavailable available) and Recreate (old ones to 0, then the new
 *   one once no old pod is left). A resize in the middle of a rollout is spread over the active
 *   ReplicaSets in proportion. Paused: sizes follow `replicas`, no rollout. Going back to an older
 *   template reuses its ReplicaSet under a new revision (what `rollout undo` relies on); revisions
 *   are written under ours and the established annotation name, which real kubectl reads.
 * - Timers: `progressDeadlineSeconds` (Progressing False, ProgressDeadlineExceeded) and
 *   `--deployment-controller-sync-period`.
 * - Lifecycle: machines/lifecycles/deployment.ts names the state each reconcile observes
 *   (paused, scaling, progressing: creating, surging, draining old, waiting; Recreate's steps;
 *   complete; deadline exceeded) and the reconcile takes that state's one step.
 * - Events: ScalingReplicaSet.
 */
import type { Deployment, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { canonicalJson } from '../../src/api/json-walk.js';
import { labelSelectorFromObject } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import { ANNOTATION_DEPLOYMENT_REVISION, ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS } from '../../src/api/well-known-labels.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { claim, controllerRefOf, controllerRefTo } from '../../src/runtime/owner-references.js';
import { deploymentLifecycle } from '../../machines/lifecycles/deployment.js';
import {
  deploymentFacts, deploymentStatus, findNewReplicaSet, historyToDelete, maxRevision, newReplicaSetFor, newReplicaSetReplicas, proportionalScale,
  replicaSetAnnotations, revisionOf, rollingSteps,
} from './sync.js';
import { templateHash } from '../internal/revisions.js';

export interface DeploymentControllerOptions {
  concurrency: number;
  /** `--deployment-controller-sync-period`: every Deployment is looked at again this often. */
  syncPeriodMs: number;
}

type Progress = { reason: string; message: string } | undefined;

export function deploymentController(o: DeploymentControllerOptions): ControllerDefinition<Deployment> {
  return defineController<Deployment>({
    name: 'deployment',
    watches: resources.deployments,
    owns: [resources.replicasets],
    concurrency: o.concurrency,
    lifecycle: deploymentLifecycle,
    triggers: [
      {
        resource: resources.pods,
        keysFor: (pod, deployments) => {
          const ns = pod.metadata.namespace ?? '';
          return deployments
            .byIndex('namespace', ns)
            .filter((d) => d.spec?.strategy?.type === 'Recreate' && d.spec.selector && labelSelectorFromObject(d.spec.selector).matches(pod.metadata.labels))
            .map((d) => `${ns}/${d.metadata.name}`);
        },
      },
    ],
    reconcile: (key, ctx) => sync(ctx, o),
  });
}

async function sync(ctx: ReconcileContext<Deployment>, o: DeploymentControllerOptions): Promise<ReconcileOutcome> {
  const d = ctx.object;
  if (!d || d.metadata.deletionTimestamp) {
    ctx.lifecycle.forget();
    return done();
  }
  const ns = d.metadata.namespace ?? '';
  const sel = d.spec?.selector;
  if (!sel || (!sel.matchLabels && !sel.matchExpressions)) {
    ctx.logger.warn('a Deployment with an empty selector selects every pod: nothing done');
    return done();
  }
  const selector = labelSelectorFromObject(sel);
  const { owned } = await claim<ReplicaSet>(ctx.client, resources.replicasets, d, resources.deployments, selector, ctx.cacheOf<ReplicaSet>(resources.replicasets).byIndex('namespace', ns));
  const sets = new Map(owned.map((rs) => [rs.metadata.name ?? '', rs]));
  const current = () => [...sets.values()];
  const write = async (rs: ReplicaSet, replicas: number, annotations?: Record<string, string>): Promise<void> => {
    const before = rs.spec?.replicas ?? 0;
    const patch: Record<string, unknown> = { spec: { replicas, minReadySeconds: d.spec?.minReadySeconds ?? 0 } };
    if (annotations) patch['metadata'] = { annotations };
    const updated = await ctx.client.patch<ReplicaSet>(resources.replicasets, ns, rs.metadata.name ?? '', 'merge', patch);
    sets.set(updated.metadata.name ?? '', updated);
    if (before !== replicas) void ctx.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${replicas > before ? 'up' : 'down'} replica set ${rs.metadata.name} to ${replicas} from ${before}`);
  };

  let newRS = findNewReplicaSet(d, current());
  let progressed: Progress;
  const active = () => current().filter((rs) => (rs.spec?.replicas ?? 0) > 0 || rs === newRS);
  const old = () => current().filter((rs) => rs !== newRS);
  // The rolling-update rules' answer, once: the facts read it and the surging/draining steps carry it out.
  const steps = rollingSteps(d, current(), newRS);
  const { state } = ctx.lifecycle.observe(deploymentLifecycle, deploymentFacts(d, current(), newRS, recreateOldPodsLeft(ctx, d, old()), steps));

  if (state === 'paused' || state === 'scaling') {
    // A resize (or a paused Deployment): sizes follow spec.replicas, in proportion; no rollout step.
    for (const [rs, size] of proportionalScale(d, active().filter((rs) => (rs.spec?.replicas ?? 0) > 0), newRS)) {
      await write(rs, size, replicaSetAnnotations(d, rs, rs === newRS ? revisionOf(rs) || undefined : undefined));
    }
    for (const rs of active()) {
      const ann = replicaSetAnnotations(d, rs, undefined);
      if (rs.metadata.annotations?.['deployment.svc.io/desired-replicas'] !== ann['deployment.svc.io/desired-replicas']) await write(rs, rs.spec?.replicas ?? 0, ann);
    }
    if (newRS) progressed = { reason: 'ReplicaSetUpdated', message: `ReplicaSet "${newRS.metadata.name}" is progressing.` };
  } else {
    const revision = maxRevision(old()) + 1;
    if (state === 'progressing.creatingReplicaSet' || !newRS) {
      const made = await createNewReplicaSet(ctx, d, revision, current());
      if (made === 'collision') return requeueAfter(100);
      newRS = made;
      sets.set(newRS.metadata.name ?? '', newRS);
      progressed = { reason: 'NewReplicaSetCreated', message: `Created new replica set "${newRS.metadata.name}"` };
    } else if (revisionOf(newRS) < revision || (d.spec?.minReadySeconds ?? 0) !== (newRS.spec?.minReadySeconds ?? 0)) {
      // Back to an older template (or first seen): its ReplicaSet becomes the newest revision.
      const bumped = revisionOf(newRS) < revision ? revision : revisionOf(newRS);
      await write(newRS, newRS.spec?.replicas ?? 0, replicaSetAnnotations(d, newRS, bumped));
      newRS = sets.get(newRS.metadata.name ?? '')!;
      progressed = { reason: 'FoundNewReplicaSet', message: `Found new replica set "${newRS.metadata.name}"` };
    }
    const updating = { reason: 'ReplicaSetUpdated', message: `ReplicaSet "${newRS.metadata.name}" is progressing.` };
    // The one step of the state observed (the established controller also takes one per sync).
    switch (state) {
      // A revision bump above changes annotations and minReadySeconds only: the steps still hold.
      case 'progressing.surging':
        await write(newRS, steps!.newReplicasWanted, replicaSetAnnotations(d, newRS, undefined));
        progressed = updating;
        break;
      case 'progressing.drainingOld':
        for (const [rs, size] of steps!.drain) await write(rs, size);
        progressed = updating;
        break;
      case 'progressing.recreate.scalingDownOld':
        for (const rs of old()) if ((rs.spec?.replicas ?? 0) > 0) await write(rs, 0);
        progressed = updating;
        break;
      case 'progressing.recreate.scalingUpNew':
        await write(newRS, d.spec?.replicas ?? 1, replicaSetAnnotations(d, newRS, undefined));
        progressed = updating;
        break;
      default:
      // creatingReplicaSet (done above), waitingForOldPods, waitingForAvailable, complete,
      // deadlineExceeded: nothing to scale; the status below says where it stands.
    }
  }

  const now = ctx.clock.now();
  const { status, deadlineAt } = deploymentStatus({ d, all: current(), newRS, now, progressed });
  const complete = status.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable');
  if (complete && !d.spec?.paused) {
    for (const rs of historyToDelete(d, current().filter((rs) => rs !== newRS))) {
      await ctx.client.delete(resources.replicasets, ns, rs.metadata.name ?? '', { preconditions: { uid: rs.metadata.uid ?? '' } }).catch(ignoreGone);
    }
  }
  const revision = newRS ? String(revisionOf(newRS)) : undefined;
  /** The Deployment as last written here (the status update goes on top of the annotations' update). */
  let written: Deployment = d;
  if (revision && revision !== '0' && (d.metadata.annotations?.[ANNOTATION_DEPLOYMENT_REVISION] !== revision || d.metadata.annotations?.[ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS] !== revision)) {
    // An update, as the established controller writes it (its role may update deployments, not
    // patch them); a stale cache is a 409 and the key is retried.
    const annotations = { ...d.metadata.annotations, [ANNOTATION_DEPLOYMENT_REVISION]: revision, [ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS]: revision };
    const updated = await ctx.client.update(resources.deployments, ns, { ...d, metadata: { ...d.metadata, annotations } }).catch(ignoreGone);
    if (updated) written = updated;
  }
  if (canonicalJson(statusWithoutTimes(d.status)) !== canonicalJson(statusWithoutTimes(status)) || progressed) {
    await ctx.client.updateStatus(resources.deployments, ns, { ...written, status } as SvcObject).catch(ignoreGone);
  }
  const waits = [o.syncPeriodMs];
  if (deadlineAt !== undefined) waits.push(deadlineAt - now + 1);
  return requeueAfter(Math.max(1, Math.min(...waits)));
}

/** Creates the ReplicaSet for the current template; an existing one of that name with another template is a hash collision. */
async function createNewReplicaSet(ctx: ReconcileContext<Deployment>, d: Deployment, revision: number, all: readonly ReplicaSet[]): Promise<ReplicaSet | 'collision'> {
  const ns = d.metadata.namespace ?? '';
  const hash = templateHash(d.spec?.template, d.status?.collisionCount ?? 0);
  const stub = { metadata: {}, spec: { replicas: 0 } } as ReplicaSet;
  const replicas = d.spec?.strategy?.type === 'Recreate' ? 0 : newReplicaSetReplicas(d, all, stub);
  const rs = newReplicaSetFor(d, hash, revision, replicas, controllerRefTo(d, resources.deployments));
  try {
    const made = await ctx.client.create<ReplicaSet>(resources.replicasets, ns, rs);
    if (replicas > 0) void ctx.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${made.metadata.name} to ${replicas}`);
    return made;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
    const existing = await ctx.client.get<ReplicaSet>(resources.replicasets, ns, rs.metadata.name ?? '');
    const ours = controllerRefOf(existing)?.uid === d.metadata.uid;
    if (ours && findNewReplicaSet(d, [existing])) return existing;
    // Same name, other template (or owner): the established answer is a new hash.
    await ctx.client.updateStatus(resources.deployments, ns, { ...d, status: { ...d.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 } } as SvcObject);
    return 'collision';
  }
}

/** Recreate: the old ReplicaSets' pods not yet finished (the new one waits for none to be left); 0 for RollingUpdate. */
function recreateOldPodsLeft(ctx: ReconcileContext<Deployment>, d: Deployment, old: readonly ReplicaSet[]): number {
  if (d.spec?.strategy?.type !== 'Recreate') return 0;
  const pods = ctx.cacheOf<Pod>(resources.pods);
  let left = 0;
  for (const rs of old) for (const p of pods.byIndex('owner', rs.metadata.uid ?? '')) if (p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') left++;
  return left;
}

/**
 * The status as compared: conditions without their times, and a counter's 0 the same as its absence
 * (a Protobuf write stores no 0 there, as the established server's JSON omits it).
 */
function statusWithoutTimes(s: Deployment['status']): unknown {
  return {
    ...s,
    observedGeneration: s?.observedGeneration ?? 0,
    replicas: s?.replicas ?? 0,
    updatedReplicas: s?.updatedReplicas ?? 0,
    readyReplicas: s?.readyReplicas ?? 0,
    availableReplicas: s?.availableReplicas ?? 0,
    unavailableReplicas: s?.unavailableReplicas ?? 0,
    conditions: (s?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })),
  };
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return undefined;
  throw e;
}
