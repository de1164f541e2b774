/**
 * The pure half of the statefulset controller: stable identities (`<set>-<ordinal>` pods with
 * hostname and subdomain, `<template>-<set>-<ordinal>` claims), the pod of an ordinal at a given
 * template, which ordinals a pod and a claim belong to, the status, and the plan of a pass (what
 * its lifecycle, machines/lifecycles/statefulset.ts, decides on).
 */
import type { PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet } from '../../src/api/generated/kinds.js';
import type { OwnerReference } from '../../src/api/types.js';
import type { StatefulSetFacts } from '../../machines/lifecycles/statefulset.js';
import { isPodReady } from '../internal/pod-state.js';
import { LABEL_CONTROLLER_REVISION_HASH } from '../internal/revisions.js';

export const LABEL_POD_NAME = 'statefulset.svc.io/pod-name';

/** The ordinal of a pod of the set (`<set>-<n>`), or undefined for a pod not named so. */
export function ordinalOf(set: StatefulSet, pod: Pod): number | undefined {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

export function claimName(set: StatefulSet, template: string, ordinal: number): string {
  return `${template}-${set.metadata.name}-${ordinal}`;
}

/** The claims the pod of `ordinal` needs, from the set's volumeClaimTemplates. */
export function claimsFor(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => {
    const tpl = t as PersistentVolumeClaim;
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName(set, tpl.metadata.name ?? '', ordinal),
        namespace: set.metadata.namespace ?? '',
        labels: { ...(set.spec?.selector?.matchLabels ?? {}), ...(tpl.metadata.labels ?? {}) },
        ...(tpl.metadata.annotations ? { annotations: { ...tpl.metadata.annotations } } : {}),
      },
      spec: structuredClone(tpl.spec ?? {}),
    } as PersistentVolumeClaim;
  });
}

/** The pod of `ordinal` from `template` at revision `hash`. */
export function podFor(set: StatefulSet, ordinal: number, template: PodTemplateSpec | undefined, hash: string, controllerRef: OwnerReference): Pod {
  const name = `${set.metadata.name}-${ordinal}`;
  const meta = template?.metadata ?? {};
  const spec = structuredClone(template?.spec ?? { containers: [] }) as NonNullable<Pod['spec']>;
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  const claims = (set.spec?.volumeClaimTemplates ?? []).map((t) => t.metadata?.name ?? '');
  if (claims.length) {
    const others = (spec.volumes ?? []).filter((v) => !claims.includes(v.name ?? ''));
    spec.volumes = [...others, ...claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: claimName(set, c, ordinal) } }))] as NonNullable<Pod['spec']>['volumes'];
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace ?? '',
      labels: { ...(meta.labels ?? {}), [LABEL_POD_NAME]: name, [LABEL_CONTROLLER_REVISION_HASH]: hash },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ownerReferences: [controllerRef],
    },
    spec,
  };
}

export const runningAndReady = (p: Pod) => p.status?.phase === 'Running' && isPodReady(p) && !p.metadata.deletionTimestamp;
export const revisionOf = (p: Pod) => p.metadata.labels?.[LABEL_CONTROLLER_REVISION_HASH] ?? '';

export function setStatus(set: StatefulSet, pods: readonly Pod[], current: { name: string; hash: string }, update: { name: string; hash: string }): NonNullable<StatefulSet['status']> {
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const updated = live.filter((p) => revisionOf(p) === update.hash).length;
  const replicas = set.spec?.replicas ?? 1;
  // Once every pod runs the update revision, it is the current one.
  const done = updated === replicas && live.length === replicas;
  return {
    ...set.status,
    observedGeneration: set.metadata.generation ?? 0,
    replicas: live.length,
    readyReplicas: live.filter(runningAndReady).length,
    currentReplicas: done ? updated : live.filter((p) => revisionOf(p) === current.hash).length,
    updatedReplicas: updated,
    currentRevision: done ? update.name : current.name,
    updateRevision: update.name,
    collisionCount: set.status?.collisionCount ?? 0,
  };
}

/** What one pass would touch: the lists the reconcile acts on, and the facts its lifecycle decides on. */
export interface StatefulSetPlan {
  facts: StatefulSetFacts;
  /** Ordinals below replicas without a pod, lowest first. */
  missing: number[];
  /** Failed pods below replicas not yet being deleted, lowest ordinal first. */
  failed: Pod[];
  /** Pods at ordinals >= replicas, highest first. */
  condemned: Pod[];
  /** RollingUpdate: the highest pod >= partition on an older revision. */
  stale: Pod | undefined;
}

/**
 * The pass the established rules take over `byOrdinal` (the set's pods by ordinal): OrderedReady
 * walks 0..replicas-1 and stops at the first ordinal that is missing, Failed or not Running and
 * Ready; Parallel takes every missing and Failed one; then pods above replicas go, highest first;
 * then, once every pod is Running and Ready, a RollingUpdate replaces the highest ordinal >=
 * partition whose revision is not `updateHash`.
 */
export function statefulSetPlan(set: StatefulSet, byOrdinal: ReadonlyMap<number, Pod>, updateHash: string): StatefulSetPlan {
  const replicas = set.spec?.replicas ?? 1;
  const ordered = (set.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = rolling ? set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0 : Infinity;
  const missing: number[] = [];
  const failed: Pod[] = [];
  let blockedOrdinal = -1;
  let blockedBy: StatefulSetFacts['blockedBy'] = '';
  let pods = 0;
  let ready = 0;
  for (let i = 0; i < replicas; i++) {
    const p = byOrdinal.get(i);
    const why = !p ? 'missing' : p.status?.phase === 'Failed' && !p.metadata.deletionTimestamp ? 'failed' : !runningAndReady(p) ? 'unready' : '';
    if (why === 'missing') missing.push(i);
    if (why === 'failed') failed.push(p!);
    if (p && !p.metadata.deletionTimestamp) pods++;
    if (p && runningAndReady(p)) ready++;
    if (why && blockedOrdinal < 0) {
      blockedOrdinal = i;
      blockedBy = why;
    }
  }
  const condemned = [...byOrdinal.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a).map(([, p]) => p);
  const live = [...byOrdinal.entries()].filter(([i]) => i < replicas);
  const allReady = live.length === replicas && live.every(([, p]) => runningAndReady(p));
  const stale = live.filter(([, p]) => revisionOf(p) !== updateHash);
  const toUpdate = stale.filter(([i]) => i >= partition).sort(([a], [b]) => b - a);
  return {
    facts: {
      ordered,
      rolling,
      name: set.metadata.name ?? '',
      replicas,
      partition: rolling ? (partition as number) : 0,
      pods,
      ready,
      missing: missing.length,
      failed: failed.length,
      blockedOrdinal,
      blockedBy,
      condemned: condemned.length,
      condemnedTerminating: condemned.filter((p) => p.metadata.deletionTimestamp).length,
      highestCondemned: condemned.length ? ordinalOf(set, condemned[0]!) ?? -1 : -1,
      staleToUpdate: toUpdate.length,
      highestStale: toUpdate[0]?.[0] ?? -1,
      staleHeld: stale.length - toUpdate.length,
      allReady,
    },
    missing,
    failed,
    condemned,
    stale: toUpdate[0]?.[1],
  };
}
