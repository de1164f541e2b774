/**
 * A node's health as the node lifecycle controller sees it (the established `tryUpdateNodeHealth`):
 * when it last heard from the node (`probeTimestamp`: a new heartbeat in the Ready condition, or a
 * renewal of the node's Lease in svc-node-lease) and when Ready last changed
 * (`readyTransitionTimestamp`). Pure rules, no I/O: the controller keeps one record per node and
 * writes the conditions this returns.
 *
 * - A node that never posted a Ready condition is judged against --node-startup-grace-period from
 *   its creation, a node that did against --node-monitor-grace-period.
 * - Past the grace period Ready, MemoryPressure, DiskPressure and PIDPressure become Unknown
 *   (reason NodeStatusUnknown "Kubelet stopped posting node status."; a condition never posted is
 *   added as NodeStatusNeverUpdated "Kubelet never posted node status."). NetworkUnavailable is left
 *   alone: the control plane, not the node agent, owns it.
 */
import type { Condition, Lease, Node } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';

export interface NodeHealth {
  /** The Ready condition as last seen (undefined: the node had none). */
  readonly savedReady: Condition | undefined;
  /** When the controller last heard from the node (ms, its own clock). */
  readonly probeTimestamp: number;
  /** When it saw Ready change last (ms). */
  readonly readyTransitionTimestamp: number;
  /** The Lease's renewTime as last seen (ms; undefined: no Lease seen). */
  readonly leaseRenewTime: number | undefined;
}

export const REASON_STATUS_UNKNOWN = 'NodeStatusUnknown';
export const MESSAGE_STATUS_UNKNOWN = 'Kubelet stopped posting node status.';
export const REASON_NEVER_UPDATED = 'NodeStatusNeverUpdated';
export const MESSAGE_NEVER_UPDATED = 'Kubelet never posted node status.';

/** The conditions the controller turns Unknown (not NetworkUnavailable). */
export const MONITORED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export interface HealthDecision {
  health: NodeHealth;
  gracePeriodMs: number;
  /** Ready as the node (or the last write) left it; for a node without one, Unknown since creation. */
  observedReady: Condition;
  /** Ready after this decision (undefined: none, and none written). */
  currentReady: Condition | undefined;
  /** The whole condition list to write as the node's status, when it must change. */
  writeConditions?: Condition[];
}

export interface HealthSettings {
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
}

export function readyCondition(node: Node): Condition | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

function parseTime(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : undefined;
}

/** The Lease's renewTime in ms (undefined: no Lease or no renewTime). */
export function leaseRenewTime(lease: Lease | undefined): number | undefined {
  return parseTime((lease?.spec as { renewTime?: string } | undefined)?.renewTime);
}

const sameCondition = (a: Condition | undefined, b: Condition | undefined) =>
  a?.status === b?.status && a?.reason === b?.reason && a?.message === b?.message && a?.lastTransitionTime === b?.lastTransitionTime && a?.lastHeartbeatTime === b?.lastHeartbeatTime;

/**
 * One monitor pass over one node: the new health record, and the conditions to write when the
 * node has been silent past its grace period.
 */
export function decideHealth(node: Node, saved: NodeHealth | undefined, lease: Lease | undefined, now: number, s: HealthSettings): HealthDecision {
  const created = parseTime(node.metadata.creationTimestamp) ?? now;
  const current = readyCondition(node);
  let health: NodeHealth;
  let gracePeriodMs: number;
  let observedReady: Condition;
  if (!current) {
    const at = node.metadata.creationTimestamp ?? rfc3339(now);
    observedReady = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: at, lastTransitionTime: at };
    gracePeriodMs = s.nodeStartupGracePeriodMs;
    health = saved ? { ...saved, savedReady: undefined } : { savedReady: undefined, probeTimestamp: created, readyTransitionTimestamp: created, leaseRenewTime: undefined };
  } else {
    observedReady = current;
    gracePeriodMs = s.nodeMonitorGracePeriodMs;
    if (!saved || !saved.savedReady) {
      // First sight of this node, or its first Ready condition (a restarted controller, or a node
      // that just posted): its clocks start now.
      health = { savedReady: current, probeTimestamp: now, readyTransitionTimestamp: now, leaseRenewTime: saved?.leaseRenewTime };
    } else if (saved.savedReady.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = saved.savedReady.lastTransitionTime !== current.lastTransitionTime ? now : saved.readyTransitionTimestamp;
      health = { savedReady: current, probeTimestamp: now, readyTransitionTimestamp: transition, leaseRenewTime: saved.leaseRenewTime };
    } else {
      health = { ...saved, savedReady: current };
    }
  }
  // A renewed Lease is a heartbeat too (the node agent renews it far more often than it posts status).
  const renewed = leaseRenewTime(lease);
  if (renewed !== undefined && (health.leaseRenewTime === undefined || health.leaseRenewTime < renewed)) {
    health = { ...health, leaseRenewTime: renewed, probeTimestamp: now };
  }
  if (now <= health.probeTimestamp + gracePeriodMs) return { health, gracePeriodMs, observedReady, currentReady: current };

  const stamp = rfc3339(now);
  const conditions: Condition[] = (node.status?.conditions ?? []).map((c) => ({ ...c }));
  for (const type of MONITORED_CONDITIONS) {
    const c = conditions.find((x) => x.type === type);
    if (!c) {
      conditions.push({ type, status: 'Unknown', reason: REASON_NEVER_UPDATED, message: MESSAGE_NEVER_UPDATED, lastHeartbeatTime: node.metadata.creationTimestamp ?? stamp, lastTransitionTime: stamp });
    } else if (c.status !== 'Unknown') {
      c.status = 'Unknown';
      c.reason = REASON_STATUS_UNKNOWN;
      c.message = MESSAGE_STATUS_UNKNOWN;
      c.lastTransitionTime = stamp;
    }
  }
  const newReady = conditions.find((c) => c.type === 'Ready');
  if (sameCondition(newReady, observedReady)) return { health, gracePeriodMs, observedReady, currentReady: current };
  return {
    health: { ...health, savedReady: newReady, readyTransitionTimestamp: now },
    gracePeriodMs,
    observedReady,
    currentReady: newReady,
    writeConditions: conditions,
  };
}
