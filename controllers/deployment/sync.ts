/**
 * The pure half of the deployment controller, with the established rules: the pod-template hash
 * that names a Deployment's ReplicaSets, which ReplicaSet is the new one, revisions, how far a
 * rolling update may scale the new ReplicaSet up (maxSurge) and the old ones down (maxUnavailable),
 * proportional scaling of a Deployment resized mid-rollout, history cleanup and the status with its
 * Available and Progressing conditions. No I/O: unit tests drive these directly.
 */
import type { Condition, Deployment, PodTemplateSpec, ReplicaSet } from '../../src/api/generated/kinds.js';
import { canonicalJson } from '../../src/api/json-walk.js';
import { rfc3339 } from '../../src/api/time.js';
import {
  ANNOTATION_CHANGE_CAUSE, ANNOTATION_DEPLOYMENT_DESIRED_REPLICAS, ANNOTATION_DEPLOYMENT_MAX_REPLICAS, ANNOTATION_DEPLOYMENT_REVISION,
  ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS, ANNOTATION_DEPLOYMENT_REVISION_HISTORY, LABEL_POD_TEMPLATE_HASH,
} from '../../src/api/well-known-labels.js';
import type { DeploymentFacts } from '../../machines/lifecycles/deployment.js';

/** The template without the pod-template-hash label (what "same template" compares). */
function withoutHash(t: PodTemplateSpec | undefined): PodTemplateSpec {
  const labels = { ...(t?.metadata?.labels ?? {}) };
  delete labels[LABEL_POD_TEMPLATE_HASH];
  return { ...(t ?? {}), metadata: { ...(t?.metadata ?? {}), labels } };
}

export function sameTemplate(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return canonicalJson(withoutHash(a)) === canonicalJson(withoutHash(b));
}

/** The ReplicaSet running the Deployment's current template (the oldest such, should there be several). */
export function findNewReplicaSet(d: Deployment, sets: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...sets].sort(byCreation).find((rs) => sameTemplate(rs.spec?.template, d.spec?.template));
}

export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ca = a.metadata.creationTimestamp ?? '';
  const cb = b.metadata.creationTimestamp ?? '';
  return ca === cb ? ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1) : ca < cb ? -1 : 1;
}

export function revisionOf(o: { metadata: { annotations?: Record<string, string> } }): number {
  const n = Number(o.metadata.annotations?.[ANNOTATION_DEPLOYMENT_REVISION]);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export function maxRevision(sets: readonly ReplicaSet[]): number {
  return sets.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/** An int or a percentage of `total`, rounded up (surge) or down (unavailable). */
export function resolveIntOrPercent(v: number | string | undefined, total: number, roundUp: boolean, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return Number(v) || 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** maxSurge and maxUnavailable as numbers; both 0 would stall a rollout, so unavailable becomes 1. */
export function surgeAndUnavailable(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec?.replicas ?? 1;
  if (d.spec?.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: replicas };
  const ru = d.spec?.strategy?.rollingUpdate;
  const maxSurge = resolveIntOrPercent(ru?.maxSurge, replicas, true, Math.ceil(replicas / 4));
  let maxUnavailable = resolveIntOrPercent(ru?.maxUnavailable, replicas, false, Math.floor(replicas / 4));
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}

const specReplicas = (rs: ReplicaSet) => rs.spec?.replicas ?? 0;
/**
 * Available pods a ReplicaSet will keep: its status, but never more than its (maybe just lowered)
 * spec, since a status written before a scale-down still counts the pods being deleted.
 */
const available = (rs: ReplicaSet) => Math.min(rs.status?.availableReplicas ?? 0, specReplicas(rs));
export const sumSpec = (sets: readonly ReplicaSet[]) => sets.reduce((s, rs) => s + specReplicas(rs), 0);
export const sumAvailable = (sets: readonly ReplicaSet[]) => sets.reduce((s, rs) => s + available(rs), 0);
const reportedAvailable = (sets: readonly ReplicaSet[]) => sets.reduce((s, rs) => s + (rs.status?.availableReplicas ?? 0), 0);

/** Rolling update, scale up: the new ReplicaSet's replicas within replicas + maxSurge pods in all. */
export function newReplicaSetReplicas(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const replicas = d.spec?.replicas ?? 1;
  const current = specReplicas(newRS);
  if (d.spec?.strategy?.type === 'Recreate') return replicas;
  if (current >= replicas) return replicas;
  const { maxSurge } = surgeAndUnavailable(d);
  const room = replicas + maxSurge - sumSpec(all);
  if (room <= 0) return current;
  return current + Math.min(room, replicas - current);
}

/**
 * Rolling update, scale down: how many old pods may go now, keeping replicas - maxUnavailable
 * available; unhealthy old pods (not available) go first. Returns each old ReplicaSet's new size.
 */
export function scaleDownOld(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet, old: readonly ReplicaSet[]): Map<ReplicaSet, number> {
  const out = new Map<ReplicaSet, number>();
  if (sumSpec(old) === 0) return out;
  const replicas = d.spec?.replicas ?? 1;
  const { maxUnavailable } = surgeAndUnavailable(d);
  const minAvailable = replicas - maxUnavailable;
  const newUnavailable = specReplicas(newRS) - available(newRS);
  let budget = sumSpec(all) - minAvailable - Math.max(0, newUnavailable);
  if (budget <= 0) return out;
  const sorted = [...old].sort(byCreation);
  const size = new Map(sorted.map((rs) => [rs, specReplicas(rs)]));
  // First the old pods that are not available anyway.
  for (const rs of sorted) {
    if (budget <= 0) break;
    const unhealthy = Math.min(size.get(rs)! - available(rs), budget);
    if (unhealthy > 0) {
      size.set(rs, size.get(rs)! - unhealthy);
      budget -= unhealthy;
    }
  }
  // Then available ones, as long as enough stay available.
  let spare = sumAvailable(all) - minAvailable;
  for (const rs of sorted) {
    if (spare <= 0) break;
    const take = Math.min(size.get(rs)!, spare, Math.max(0, available(rs)));
    if (take > 0) {
      size.set(rs, size.get(rs)! - take);
      spare -= take;
    }
  }
  for (const rs of sorted) if (size.get(rs) !== specReplicas(rs)) out.set(rs, size.get(rs)!);
  return out;
}

/**
 * A Deployment resized while several ReplicaSets are active: spread the change over them in
 * proportion to their size (largest first; the rest of the rounding to the largest), within
 * replicas + maxSurge. Returns the new sizes of the ReplicaSets that change.
 */
export function proportionalScale(d: Deployment, active: readonly ReplicaSet[], newRS: ReplicaSet | undefined): Map<ReplicaSet, number> {
  const out = new Map<ReplicaSet, number>();
  const replicas = d.spec?.replicas ?? 1;
  if (!active.length) return out;
  if (active.length === 1) {
    if (specReplicas(active[0]!) !== replicas) out.set(active[0]!, replicas);
    return out;
  }
  const { maxSurge } = surgeAndUnavailable(d);
  const allowed = replicas + maxSurge;
  const total = sumSpec(active);
  let toAdd = allowed - total;
  if (toAdd === 0) return out;
  const ordered = [...active].sort((a, b) => specReplicas(b) - specReplicas(a) || (a === newRS ? -1 : b === newRS ? 1 : byCreation(b, a)));
  const sizes = new Map(ordered.map((rs) => [rs, specReplicas(rs)]));
  let added = 0;
  for (const rs of ordered) {
    const share = total > 0 ? Math.trunc((specReplicas(rs) * toAdd) / total) : 0;
    const next = Math.max(0, specReplicas(rs) + share);
    added += next - specReplicas(rs);
    sizes.set(rs, next);
  }
  toAdd -= added;
  if (toAdd !== 0) sizes.set(ordered[0]!, Math.max(0, sizes.get(ordered[0]!)! + toAdd));
  for (const rs of ordered) if (sizes.get(rs) !== specReplicas(rs)) out.set(rs, sizes.get(rs)!);
  return out;
}

/** Whether a ReplicaSet's annotations say it was sized for a different Deployment size (a resize). */
export function isScalingEvent(d: Deployment, active: readonly ReplicaSet[]): boolean {
  const replicas = String(d.spec?.replicas ?? 1);
  return active.some((rs) => {
    const desired = rs.metadata.annotations?.[ANNOTATION_DEPLOYMENT_DESIRED_REPLICAS];
    return desired !== undefined && desired !== replicas;
  });
}

/** The annotations a Deployment's ReplicaSet carries: the Deployment's own (some excepted) and the sizing ones. */
export function replicaSetAnnotations(d: Deployment, rs: ReplicaSet | undefined, revision: number | undefined): Record<string, string> {
  const skip = new Set([ANNOTATION_DEPLOYMENT_REVISION, ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS, ANNOTATION_DEPLOYMENT_REVISION_HISTORY, ANNOTATION_DEPLOYMENT_DESIRED_REPLICAS, ANNOTATION_DEPLOYMENT_MAX_REPLICAS, 'svc.io/last-applied-configuration', 'kubectl.kubernetes.io/last-applied-configuration']);
  const out: Record<string, string> = { ...(rs?.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!skip.has(k)) out[k] = v;
  if (!d.metadata.annotations?.[ANNOTATION_CHANGE_CAUSE]) delete out[ANNOTATION_CHANGE_CAUSE];
  const { maxSurge } = surgeAndUnavailable(d);
  out[ANNOTATION_DEPLOYMENT_DESIRED_REPLICAS] = String(d.spec?.replicas ?? 1);
  out[ANNOTATION_DEPLOYMENT_MAX_REPLICAS] = String((d.spec?.replicas ?? 1) + maxSurge);
  if (revision !== undefined) {
    const old = rs ? revisionOf(rs) : 0;
    if (old && old !== revision) {
      const history = (rs?.metadata.annotations?.[ANNOTATION_DEPLOYMENT_REVISION_HISTORY] ?? '').split(',').filter(Boolean);
      out[ANNOTATION_DEPLOYMENT_REVISION_HISTORY] = [...history, String(old)].join(',');
    }
    out[ANNOTATION_DEPLOYMENT_REVISION] = String(revision);
    out[ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS] = String(revision);
  }
  return out;
}

/** The new ReplicaSet for the Deployment's template, named `<deployment>-<hash>`. */
export function newReplicaSetFor(d: Deployment, hash: string, revision: number, replicas: number, controllerRef: NonNullable<ReplicaSet['metadata']['ownerReferences']>[number]): ReplicaSet {
  const tpl = d.spec?.template ?? {};
  const labels = { ...(tpl.metadata?.labels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash };
  const selector = d.spec?.selector ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace ?? '',
      labels,
      annotations: replicaSetAnnotations(d, undefined, revision),
      ownerReferences: [controllerRef],
    },
    spec: {
      replicas,
      minReadySeconds: d.spec?.minReadySeconds ?? 0,
      selector: { ...selector, matchLabels: { ...(selector.matchLabels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash } },
      template: { ...structuredClone(tpl), metadata: { ...(tpl.metadata ?? {}), labels } },
    },
  };
}

/** Old ReplicaSets beyond revisionHistoryLimit that are empty, oldest first: the ones to delete. */
export function historyToDelete(d: Deployment, old: readonly ReplicaSet[]): ReplicaSet[] {
  const limit = d.spec?.revisionHistoryLimit ?? 10;
  const empty = old.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp);
  const excess = old.length - limit;
  if (excess <= 0) return [];
  return [...empty].sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b)).slice(0, excess);
}

export interface DeploymentStatusInput {
  d: Deployment;
  all: readonly ReplicaSet[];
  newRS: ReplicaSet | undefined;
  now: number;
  /** A ReplicaSet was created, scaled or updated in this sync (progress for the deadline). */
  progressed: { reason: string; message: string } | undefined;
}

/** Every replica updated and available, and no other pod counted: what Progressing=True NewReplicaSetAvailable says. */
export function isComplete(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet | undefined): boolean {
  const replicas = d.spec?.replicas ?? 1;
  const total = all.reduce((s, rs) => s + (rs.status?.replicas ?? 0), 0);
  return !!newRS && (newRS.status?.replicas ?? 0) === replicas && (newRS.status?.availableReplicas ?? 0) >= replicas && total === replicas;
}

/** A rolling update's possible steps now: the new ReplicaSet's size and the old ones' new sizes. */
export interface RollingSteps {
  newReplicasWanted: number;
  drain: Map<ReplicaSet, number>;
}

/** The rolling-update rules' steps for the sets observed; undefined for Recreate or without a new ReplicaSet. */
export function rollingSteps(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet | undefined): RollingSteps | undefined {
  if (!newRS || d.spec?.strategy?.type === 'Recreate') return undefined;
  return { newReplicasWanted: newReplicaSetReplicas(d, all, newRS), drain: scaleDownOld(d, all, newRS, all.filter((rs) => rs !== newRS)) };
}

/**
 * What the reconcile observed, for the Deployment's lifecycle (machines/lifecycles/deployment.ts):
 * each fact from the rule that acts on it (`steps` are the rolling-update rules' own answer, which
 * the reconcile then carries out), so the state the machine names is the step those rules take.
 */
export function deploymentFacts(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet | undefined, oldPodsLeft: number, steps: RollingSteps | undefined): DeploymentFacts {
  const replicas = d.spec?.replicas ?? 1;
  const old = all.filter((rs) => rs !== newRS);
  const { maxSurge, maxUnavailable } = surgeAndUnavailable(d);
  const recreate = d.spec?.strategy?.type === 'Recreate';
  const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
  return {
    paused: d.spec?.paused === true,
    recreate,
    replicas,
    maxSurge,
    maxUnavailable,
    scalingEvent: !!newRS && isScalingEvent(d, all.filter((rs) => specReplicas(rs) > 0)),
    hasNewReplicaSet: !!newRS,
    newReplicas: newRS ? specReplicas(newRS) : 0,
    newReplicasWanted: steps ? steps.newReplicasWanted : newRS ? specReplicas(newRS) : 0,
    newAvailable: newRS ? available(newRS) : 0,
    oldReplicas: sumSpec(old),
    canDrainOld: (steps?.drain.size ?? 0) > 0,
    available: sumAvailable(all),
    oldPodsLeft,
    complete: isComplete(d, all, newRS),
    deadlineExceeded: progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded',
    progressDeadlineSeconds: d.spec?.progressDeadlineSeconds,
  };
}

/** The status the ReplicaSets add up to, with Available and Progressing; `deadlineAt` when a deadline runs. */
export function deploymentStatus(i: DeploymentStatusInput): { status: NonNullable<Deployment['status']>; deadlineAt: number | undefined } {
  const { d, all, newRS, now } = i;
  const replicas = d.spec?.replicas ?? 1;
  const { maxUnavailable } = surgeAndUnavailable(d);
  const total = all.reduce((s, rs) => s + (rs.status?.replicas ?? 0), 0);
  const availableCount = reportedAvailable(all);
  const updated = newRS?.status?.replicas ?? 0;
  let conditions = [...(d.status?.conditions ?? [])];
  const set = (type: string, status: string, reason: string, message: string, touch: boolean) => {
    const prev = conditions.find((c) => c.type === type);
    const ts = rfc3339(now);
    const same = prev && prev.status === status && prev.reason === reason && prev.message === message;
    const next = {
      type,
      status,
      reason,
      message,
      lastUpdateTime: same && !touch ? (prev['lastUpdateTime'] as string | undefined) ?? ts : ts,
      lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime ?? ts : ts,
    } as Condition;
    conditions = prev ? conditions.map((c) => (c.type === type ? next : c)) : [...conditions, next];
  };
  if (availableCount >= replicas - maxUnavailable) set('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', false);
  else set('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', false);

  const complete = isComplete(d, all, newRS);
  const name = newRS?.metadata.name ?? '';
  let deadlineAt: number | undefined;
  const progressing = conditions.find((c) => c.type === 'Progressing');
  if (d.spec?.paused) {
    if (progressing?.reason !== 'DeploymentPaused') set('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', true);
  } else if (complete) {
    set('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${name}" has successfully progressed.`, false);
  } else if (i.progressed) {
    set('Progressing', 'True', i.progressed.reason, i.progressed.message, true);
  } else if (progressing?.reason === 'DeploymentPaused') {
    set('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', true);
  } else if (!progressing) {
    set('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${name}" is progressing.`, true);
  }
  const p = conditions.find((c) => c.type === 'Progressing');
  const seconds = d.spec?.progressDeadlineSeconds;
  if (!complete && !d.spec?.paused && p && p.status !== 'False' && seconds !== undefined && seconds < 2_147_483_647) {
    const since = Date.parse(String(p['lastUpdateTime'] ?? p.lastTransitionTime ?? ''));
    if (Number.isFinite(since)) {
      if (since + seconds * 1000 <= now) set('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${name}" has timed out progressing.`, true);
      else deadlineAt = since + seconds * 1000;
    }
  }
  return {
    status: {
      observedGeneration: d.metadata.generation ?? 0,
      replicas: total,
      updatedReplicas: updated,
      readyReplicas: all.reduce((s, rs) => s + (rs.status?.readyReplicas ?? 0), 0),
      availableReplicas: availableCount,
      unavailableReplicas: Math.max(0, total - availableCount, replicas - availableCount),
      ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
      conditions,
    },
    deadlineAt,
  };
}
