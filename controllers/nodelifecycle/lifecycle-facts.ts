/**
 * The node lifecycle's facts (machines/lifecycles/nodelifecycle.ts) from what a node's pass has:
 * the Node, its NoSchedule diff (./taints.ts), its zone's queue and state (./zones.ts,
 * ./eviction-queue.ts) and the taint manager's plan for its pods (`planEvictions`, over
 * ./taint-manager.ts `judgePod`). Pure; no calls, no cache scans.
 */
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import type { Taint } from '../../src/api/kind-parts.js';
import type { NodeFacts } from '../../machines/lifecycles/nodelifecycle.js';
import { readyCondition } from './health.js';
import { judgePod, type ScheduledEviction } from './taint-manager.js';
import { noExecuteTaints } from './taints.js';
import { zoneName } from './zones.js';

export const podKey = (p: Pod) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;

/** The taint manager's verdicts on a node's pods, before anything is done with them. */
export interface EvictionPlan {
  /** Pods to delete now. */
  deleteNow: Pod[];
  /** Pods waiting out their tolerationSeconds, with their (new or kept) scheduled eviction. */
  wait: Array<[Pod, ScheduledEviction]>;
  /** Pods whose scheduled eviction is cancelled (the taint went, or they tolerate it for ever). */
  cancel: Pod[];
  /** Scheduled evictions dropped without an Event (the pod is being deleted already, or goes now). */
  drop: string[];
  /** The earliest scheduled eviction (ms; Infinity: none). */
  nextAt: number;
}

export function planEvictions(pods: readonly Pod[], taints: readonly Taint[], scheduled: ReadonlyMap<string, ScheduledEviction>, now: number): EvictionPlan {
  const plan: EvictionPlan = { deleteNow: [], wait: [], cancel: [], drop: [], nextAt: Infinity };
  for (const pod of pods) {
    const k = podKey(pod);
    if (pod.metadata.deletionTimestamp) {
      plan.drop.push(k);
      continue;
    }
    const verdict = judgePod(pod, taints, scheduled.get(k), now);
    switch (verdict.kind) {
      case 'none':
        break;
      case 'cancel':
        plan.cancel.push(pod);
        break;
      case 'wait':
        plan.wait.push([pod, verdict.eviction]);
        plan.nextAt = Math.min(plan.nextAt, verdict.eviction.fireAt);
        break;
      case 'deleteNow':
        plan.drop.push(k);
        plan.deleteNow.push(pod);
        break;
    }
  }
  return plan;
}

export interface NodeZoneView {
  zone: string;
  state: string;
  qps: number;
  queued: boolean;
}

export function nodeFacts(node: Node, diff: { add: readonly Taint[]; remove: readonly Taint[] }, zone: NodeZoneView, taintManager: boolean, plan: EvictionPlan | undefined, now: number): NodeFacts {
  const ready = readyCondition(node)?.status;
  const keys = (ts: readonly Taint[]) => ts.map((t) => t.key ?? '').join(', ');
  const noExecute = noExecuteTaints(node);
  return {
    ready: ready === 'True' || ready === 'False' || ready === 'Unknown' ? ready : 'none',
    noScheduleChanges: diff.add.length + diff.remove.length,
    noScheduleText: [diff.add.length ? `add ${keys(diff.add)}` : '', diff.remove.length ? `remove ${keys(diff.remove)}` : ''].filter(Boolean).join('; '),
    noExecuteTaints: noExecute.length,
    noExecuteText: keys(noExecute),
    taintManager,
    zone: zoneName(zone.zone),
    zoneState: zone.state,
    zoneQps: zone.qps,
    queued: zone.queued,
    evictNow: plan?.deleteNow.length ?? 0,
    tolerating: plan?.wait.length ?? 0,
    nextEvictionInMs: plan && plan.nextAt !== Infinity ? Math.max(0, plan.nextAt - now) : undefined,
  };
}
