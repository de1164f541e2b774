/**
 * Zones and their states, as the established node lifecycle controller judges them (pure rules).
 *
 * - A node's zone key is its region and zone labels (`topology.svc.io/region`, `topology.svc.io/zone`,
 *   or the older `failure-domain.beta.svc.io/*`) joined as `region:\0:zone`; no labels: the key ''.
 * - Zone state (`computeZoneState`) from its nodes' Ready conditions: no node Ready and some not:
 *   FullDisruption; more than two not Ready and at least --unhealthy-zone-threshold of the zone:
 *   PartialDisruption; else Normal.
 * - Eviction rate of a zone (`zoneEvictionQps`): Normal: --node-eviction-rate; PartialDisruption:
 *   --secondary-node-eviction-rate when the zone has more than --large-cluster-size-threshold nodes,
 *   else 0 (stopped); FullDisruption: --node-eviction-rate (the zone itself is assumed gone) —
 *   unless every zone is in FullDisruption, then `planDisruption` stops all evictions and lifts
 *   the NoExecute taints (the controller more likely lost the nodes than they all died).
 * - Nodes labelled `node-role.svc.io/master` (gate LegacyNodeRoleBehavior, on) or
 *   `node.svc.io/exclude-disruption` (gate NodeDisruptionExclusion, off) count in no zone's state.
 */
import type { Condition, Node } from '../../src/api/generated/kinds.js';
import { LABEL_REGION, LABEL_ZONE } from '../../src/api/well-known-labels.js';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

export const LEGACY_LABEL_ZONE = 'failure-domain.beta.svc.io/zone';
export const LEGACY_LABEL_REGION = 'failure-domain.beta.svc.io/region';
export const LABEL_NODE_ROLE_MASTER = 'node-role.svc.io/master';
export const LABEL_EXCLUDE_DISRUPTION = 'node.svc.io/exclude-disruption';

export function zoneKey(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const region = labels[LABEL_REGION] ?? labels[LEGACY_LABEL_REGION] ?? '';
  const zone = labels[LABEL_ZONE] ?? labels[LEGACY_LABEL_ZONE] ?? '';
  if (!region && !zone) return '';
  return `${region}:\x00:${zone}`;
}

/** The zone key as people read it (`region/zone`, or `zone`). */
export function zoneName(key: string): string {
  if (!key) return '(no zone)';
  const [region, zone] = key.split(':\x00:');
  return region ? `${region}/${zone}` : zone!;
}

export function excludedFromDisruption(node: Node, gates: Readonly<Record<string, boolean>>): boolean {
  const labels = node.metadata.labels ?? {};
  if ((gates['LegacyNodeRoleBehavior'] ?? true) && labels[LABEL_NODE_ROLE_MASTER] !== undefined) return true;
  if ((gates['NodeDisruptionExclusion'] ?? false) && labels[LABEL_EXCLUDE_DISRUPTION] !== undefined) return true;
  return false;
}

export function computeZoneState(readyConditions: readonly (Condition | undefined)[], unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  // float32 in the established code; the comparison is the same for these small ratios.
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

export interface EvictionRates {
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
}

export function zoneEvictionQps(state: ZoneState, zoneSize: number, r: EvictionRates): number {
  switch (state) {
    case 'PartialDisruption':
      return zoneSize > r.largeClusterSizeThreshold ? r.secondaryNodeEvictionRate : 0;
    case 'Normal':
    case 'FullDisruption':
    case 'Initial':
      return r.nodeEvictionRate;
  }
}

/** What one pass's zone states mean for the rate limiters and the taints. */
export interface DisruptionPlan {
  /** The zone states to keep after this pass. */
  states: Map<string, ZoneState>;
  /** New eviction rates by zone (only zones whose limiter changes). */
  rates: Map<string, number>;
  /** Every zone just went into FullDisruption: lift all NoExecute taints, cancel queued work. */
  enterMasterDisruption: boolean;
  /** Some zone recovered from all being in FullDisruption: restart every node's clocks now. */
  exitMasterDisruption: boolean;
  /** Zones whose state changed (for the log). */
  changed: [string, ZoneState][];
}

/**
 * The established `handleDisruption`: `previous` the zone states kept so far, `current` each
 * zone's nodes' Ready conditions now.
 */
export function planDisruption(previous: ReadonlyMap<string, ZoneState>, current: ReadonlyMap<string, readonly (Condition | undefined)[]>, threshold: number, r: EvictionRates): DisruptionPlan {
  const states = new Map(previous);
  const newStates = new Map<string, ZoneState>();
  let allAre = true;
  for (const [zone, conds] of current) {
    const { state } = computeZoneState(conds, threshold);
    if (state !== 'FullDisruption') allAre = false;
    newStates.set(zone, state);
    if (!states.has(zone)) states.set(zone, 'Initial');
  }
  // Zones without nodes are forgotten; a zone seen for the first time is 'Initial' (not disrupted).
  for (const zone of [...states.keys()]) if (!current.has(zone)) states.delete(zone);
  let allWere = true;
  for (const state of states.values()) if (state !== 'FullDisruption') allWere = false;
  const plan: DisruptionPlan = { states, rates: new Map(), enterMasterDisruption: false, exitMasterDisruption: false, changed: [] };
  if (allAre && allWere) return plan;
  if (allAre) {
    for (const zone of states.keys()) {
      plan.rates.set(zone, 0);
      states.set(zone, 'FullDisruption');
      plan.changed.push([zone, 'FullDisruption']);
    }
    plan.enterMasterDisruption = true;
    return plan;
  }
  if (allWere) {
    plan.exitMasterDisruption = true;
    for (const zone of states.keys()) {
      const s = newStates.get(zone) ?? 'Normal';
      plan.rates.set(zone, zoneEvictionQps(s, current.get(zone)?.length ?? 0, r));
      states.set(zone, s);
      plan.changed.push([zone, s]);
    }
    return plan;
  }
  for (const [zone, was] of states) {
    const s = newStates.get(zone);
    if (!s || s === was) continue;
    plan.rates.set(zone, zoneEvictionQps(s, current.get(zone)?.length ?? 0, r));
    states.set(zone, s);
    plan.changed.push([zone, s]);
  }
  return plan;
}
