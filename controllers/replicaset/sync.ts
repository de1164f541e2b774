/**
 * The pure half of the ReplicaSet (and ReplicationController) controller: the pod it makes from
 * its template, which surplus pods to delete first, the status the owned pods add up to, and the
 * facts its lifecycle (machines/lifecycles/replicaset.ts) decides on. No I/O here; unit tests drive these directly.
 */
import type { Condition, Pod, ReplicaSet, ReplicationController } from '../../src/api/generated/kinds.js';
import type { OwnerReference } from '../../src/api/types.js';
import { rfc3339 } from '../../src/api/time.js';
import type { ReplicaSetFacts } from '../../machines/lifecycles/replicaset.js';
import { availableAt, compareForDeletion, isPodAvailable, isPodReady } from '../internal/pod-state.js';
import { BURST_REPLICAS, podFromTemplate, slowStartBatches } from '../internal/pod-template.js';

/** A ReplicaSet or a ReplicationController: the fields this controller reads. */
export type ReplicaOwner = ReplicaSet | ReplicationController;

/** The pod a ReplicaSet makes from its template. */
export function podFor(owner: ReplicaOwner, controllerRef: OwnerReference): Pod {
  return podFromTemplate(owner.spec?.template, { generateName: `${owner.metadata.name}-`, namespace: owner.metadata.namespace ?? '', controllerRef });
}

/**
 * The `count` pods to delete, most deletable first. Pods sharing a node with more of the owner's
 * pods go before lone ones (spreading survives a scale-down).
 */
export function podsToDelete(pods: readonly Pod[], count: number, now: number): Pod[] {
  const perNode = new Map<string, number>();
  for (const p of pods) if (p.spec?.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
  const related = (p: Pod) => (p.spec?.nodeName ? perNode.get(p.spec.nodeName) ?? 0 : 0);
  return [...pods].sort((a, b) => compareForDeletion(a, b, now, related)).slice(0, count);
}

// A type (not an interface) so it fits the kinds' open status types.
export type ReplicaStatus = {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration: number;
  conditions?: Condition[];
};

/**
 * The status `pods` (the owner's active pods) add up to, and when the next pod becomes available
 * (ms; undefined when none is waiting out minReadySeconds). `failure` sets the ReplicaFailure
 * condition (a create or delete failed); undefined clears it.
 */
export function replicaStatus(owner: ReplicaOwner, pods: readonly Pod[], now: number, failure: { reason: string; message: string } | undefined): { status: ReplicaStatus; nextAvailableAt: number | undefined } {
  const minReady = owner.spec?.minReadySeconds ?? 0;
  const tplLabels = owner.spec?.template?.metadata?.labels ?? {};
  let fully = 0;
  let ready = 0;
  let available = 0;
  let next: number | undefined;
  for (const p of pods) {
    const labels = p.metadata.labels ?? {};
    if (Object.entries(tplLabels).every(([k, v]) => labels[k] === v)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, now)) available++;
      else {
        const at = availableAt(p, minReady);
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
    }
  }
  const old = (owner.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  const prev = owner.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  const conditions: Condition[] = failure
    ? [...old, { type: 'ReplicaFailure', status: 'True', reason: failure.reason, message: failure.message, lastTransitionTime: prev?.status === 'True' ? prev.lastTransitionTime ?? rfc3339(now) : rfc3339(now) } as Condition]
    : old;
  const status: ReplicaStatus = {
    replicas: pods.length,
    fullyLabeledReplicas: fully,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: owner.metadata.generation ?? 0,
    ...(conditions.length ? { conditions } : {}),
  };
  return { status, nextAvailableAt: next };
}

/** Whether the stored status already says `next` (no write needed). */
export function sameStatus(current: ReplicaOwner['status'], next: ReplicaStatus): boolean {
  const c = current ?? {};
  return (
    (c.replicas ?? 0) === next.replicas &&
    (c.fullyLabeledReplicas ?? 0) === next.fullyLabeledReplicas &&
    (c.readyReplicas ?? 0) === next.readyReplicas &&
    (c.availableReplicas ?? 0) === next.availableReplicas &&
    (c.observedGeneration ?? 0) === next.observedGeneration &&
    JSON.stringify(c.conditions ?? []) === JSON.stringify(next.conditions ?? [])
  );
}

/**
 * What one sync observed, for the lifecycle machine: the shortfall or surplus it would act on (at
 * most BURST_REPLICAS a sync, the shortfall in slow-start batches), whether its own writes are seen
 * yet, and the counts the status just added up (`status`: replicaStatus of the same pods).
 */
export function replicaFacts(
  owner: ReplicaOwner,
  pods: number,
  status: Pick<ReplicaStatus, 'readyReplicas' | 'availableReplicas'>,
  expectations: { satisfied: boolean; creates: number; deletes: number },
): ReplicaSetFacts {
  const replicas = owner.spec?.replicas ?? 1;
  const diff = pods - replicas;
  const toCreate = diff < 0 ? Math.min(-diff, BURST_REPLICAS) : 0;
  return {
    terminating: !!owner.metadata.deletionTimestamp,
    expectationsSatisfied: expectations.satisfied,
    pendingCreates: expectations.creates,
    pendingDeletes: expectations.deletes,
    replicas,
    pods,
    ready: status.readyReplicas,
    available: status.availableReplicas,
    toCreate,
    batches: toCreate ? slowStartBatches(toCreate) : [],
    toDelete: diff > 0 ? Math.min(diff, BURST_REPLICAS) : 0,
  };
}
