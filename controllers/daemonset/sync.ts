/**
 * The pure half of the daemonset controller: which nodes should run the DaemonSet's pod (node
 * selector, required node affinity, and NoSchedule/NoExecute taints tolerated by the template's
 * tolerations plus the ones every daemon pod gets, as established), the pod made for a node
 * (pinned to it by required node affinity on `metadata.name`), the plan of a pass (what its
 * lifecycle, machines/lifecycles/daemonset.ts, decides on), and the status.
 */
import type { DaemonSet, Node, Pod } from '../../src/api/generated/kinds.js';
import type { Toleration } from '../../src/api/kind-parts.js';
import { compileTerms, taintTolerated } from '../../src/api/node-selection.js';
import type { OwnerReference } from '../../src/api/types.js';
import type { DaemonSetFacts } from '../../machines/lifecycles/daemonset.js';
import {
  TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE,
} from '../../src/api/well-known-labels.js';
import { isPodAvailable, isPodReady } from '../internal/pod-state.js';
import { podFromTemplate } from '../internal/pod-template.js';
import { LABEL_CONTROLLER_REVISION_HASH } from '../internal/revisions.js';

/** Tolerations every daemon pod gets, so it runs on nodes that are unready, pressured or cordoned. */
export function daemonTolerations(ds: DaemonSet): Toleration[] {
  const out: Toleration[] = [
    { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute' },
    { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
    { key: TAINT_NODE_DISK_PRESSURE, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINT_NODE_PID_PRESSURE, operator: 'Exists', effect: 'NoSchedule' },
    { key: TAINT_NODE_UNSCHEDULABLE, operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (ds.spec?.template?.spec?.hostNetwork) out.push({ key: TAINT_NODE_NETWORK_UNAVAILABLE, operator: 'Exists', effect: 'NoSchedule' });
  return out;
}

/** Whether the DaemonSet's pod belongs on `node`. */
export function shouldRun(ds: DaemonSet, node: Node): boolean {
  if (node.metadata.deletionTimestamp) return false;
  const spec = ds.spec?.template?.spec ?? {};
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && terms.length && !compileTerms(terms)(node)) return false;
  const tolerations = [...((spec.tolerations ?? []) as Toleration[]), ...daemonTolerations(ds)];
  for (const taint of node.spec?.taints ?? []) {
    if ((taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !taintTolerated(taint, tolerations)) return false;
  }
  return true;
}

/** The node a daemon pod is for: its nodeName, else the node its affinity pins it to. */
export function nodeOf(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const t of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  }
  return undefined;
}

/** The pod for `node`: the template, the revision hash label, the daemon tolerations, pinned to the node. */
export function daemonPod(ds: DaemonSet, node: string, hash: string, controllerRef: OwnerReference): Pod {
  const pod = podFromTemplate(ds.spec?.template, { generateName: `${ds.metadata.name}-`, namespace: ds.metadata.namespace ?? '', controllerRef });
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [LABEL_CONTROLLER_REVISION_HASH]: hash };
  const spec = pod.spec!;
  const mine = (spec.tolerations ?? []) as Toleration[];
  const extra = daemonTolerations(ds).filter((t) => !mine.some((m) => m.key === t.key && m.effect === t.effect));
  spec.tolerations = [...mine, ...extra] as NonNullable<Pod['spec']>['tolerations'];
  spec.affinity = {
    ...(spec.affinity ?? {}),
    nodeAffinity: {
      ...(spec.affinity?.nodeAffinity ?? {}),
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
    },
  };
  return pod;
}

/** maxUnavailable of a RollingUpdate as a number of nodes (percent of the desired count, rounded up; at least 1). */
export function maxUnavailable(ds: DaemonSet, desired: number): number {
  const v = ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  if (typeof v === 'number') return Math.max(1, v);
  const m = /^(\d+)%$/.exec(v);
  return Math.max(1, m ? Math.ceil((Number(m[1]) * desired) / 100) : Number(v) || 1);
}

/** What one pass would do: the lists the reconcile acts on, and the facts its lifecycle decides on. */
export interface DaemonPlan {
  facts: DaemonSetFacts;
  /** Nodes that should run the pod and have none. */
  toCreate: string[];
  /** Failed pods, extra pods on a node (the oldest stays) and pods on nodes that should not run one. */
  misplaced: Pod[];
  /** RollingUpdate: old-revision pods deleted now (unavailable ones first, within maxUnavailable). */
  toReplace: Pod[];
}

/**
 * The pass the established rules take: per node that should run the pod (`eligible`), create one
 * where none is live, delete Failed and extra ones; delete every pod on other nodes; RollingUpdate:
 * delete old-revision pods (unavailable ones first) while at most maxUnavailable nodes are without
 * an available pod. `podsByNode`: the live pods by node, oldest first. `expectations`: whether the
 * controller's own writes are seen yet (the facts carry it; the lists are the same either way).
 */
export function daemonPlan(
  ds: DaemonSet,
  eligible: ReadonlySet<string>,
  podsByNode: ReadonlyMap<string, Pod[]>,
  hash: string,
  now: number,
  expectations: { satisfied: boolean; creates: number; deletes: number },
): DaemonPlan {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const toCreate: string[] = [];
  const misplaced: Pod[] = [];
  let updatedAvailable = 0;
  for (const node of eligible) {
    const pods = podsByNode.get(node) ?? [];
    misplaced.push(...pods.filter((p) => p.status?.phase === 'Failed'));
    const live = pods.filter((p) => p.status?.phase !== 'Failed');
    if (live.length === 0) toCreate.push(node);
    else {
      misplaced.push(...live.slice(1)); // one pod per node: the oldest stays
      if (live[0]!.metadata.labels?.[LABEL_CONTROLLER_REVISION_HASH] === hash && isPodAvailable(live[0]!, minReady, now)) updatedAvailable++;
    }
  }
  for (const [node, pods] of podsByNode) if (!eligible.has(node)) misplaced.push(...pods);

  const rolling = (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const budget = maxUnavailable(ds, eligible.size);
  const unavailableBefore = [...eligible].filter((n) => {
    const p = (podsByNode.get(n) ?? []).find((x) => x.status?.phase !== 'Failed');
    return !p || !isPodAvailable(p, minReady, now);
  }).length;
  const old = [...eligible]
    .map((n) => (podsByNode.get(n) ?? [])[0])
    .filter((p): p is Pod => !!p && p.metadata.labels?.[LABEL_CONTROLLER_REVISION_HASH] !== hash && !misplaced.includes(p));
  const toReplace: Pod[] = [];
  if (rolling) {
    // Unavailable old pods first: replacing them costs no availability.
    old.sort((a, b) => Number(isPodAvailable(a, 0, now)) - Number(isPodAvailable(b, 0, now)));
    let unavailable = unavailableBefore;
    for (const p of old) {
      const wasAvailable = isPodAvailable(p, minReady, now);
      if (wasAvailable && unavailable >= budget) break;
      toReplace.push(p);
      if (wasAvailable) unavailable++;
    }
  }
  return {
    facts: {
      expectationsSatisfied: expectations.satisfied,
      pendingCreates: expectations.creates,
      pendingDeletes: expectations.deletes,
      rolling,
      desired: eligible.size,
      toCreate: toCreate.length,
      misplaced: misplaced.length,
      toReplace: toReplace.length,
      oldLeft: old.length - toReplace.length,
      unavailable: unavailableBefore,
      maxUnavailable: budget,
      updatedAvailable,
    },
    toCreate,
    misplaced,
    toReplace,
  };
}

export function daemonStatus(ds: DaemonSet, eligible: ReadonlySet<string>, podsByNode: ReadonlyMap<string, Pod[]>, hash: string, now: number): NonNullable<DaemonSet['status']> {
  let current = 0;
  let mis = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const [node, pods] of podsByNode) {
    if (!pods.length) continue;
    if (!eligible.has(node)) {
      mis++;
      continue;
    }
    current++;
    const p = pods[0]!;
    if (isPodReady(p)) ready++;
    if (isPodAvailable(p, ds.spec?.minReadySeconds ?? 0, now)) available++;
    if (p.metadata.labels?.[LABEL_CONTROLLER_REVISION_HASH] === hash) updated++;
  }
  return {
    ...ds.status,
    desiredNumberScheduled: eligible.size,
    currentNumberScheduled: current,
    numberMisscheduled: mis,
    numberReady: ready,
    numberAvailable: available,
    numberUnavailable: Math.max(0, eligible.size - available),
    updatedNumberScheduled: updated,
    observedGeneration: ds.metadata.generation ?? 0,
  };
}
