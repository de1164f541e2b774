/**
 * DefaultPreemption (post-filter): when no node fits a pod, find a node where removing pods of
 * lower priority makes it fit, evict those pods (graceful deletes) and nominate the node
 * (`status.nominatedNodeName`, set by the scheduler). As established:
 *
 * - A pod with `preemptionPolicy: Never` never preempts; a pod already nominated to a node where
 *   lower-priority pods are still terminating waits instead of preempting again.
 * - Only nodes refused as Unschedulable are candidates (unresolvable reasons such as taints or
 *   node selectors cannot be cured by removing pods).
 * - Per candidate: remove every lower-priority pod, check the pod fits, then give pods back
 *   (highest priority first; those whose PodDisruptionBudget would be violated first) while it
 *   still fits; the rest are the victims.
 * - The node chosen: fewest PDB violations, then the lowest highest-victim priority, then the
 *   smallest sum of victim priorities, then the fewest victims.
 * - Lower-priority pods nominated to that node lose their nomination.
 * At most max(100, 10% of nodes) candidates are evaluated per attempt, from a rotating start.
 */
import { labelSelectorFromObject } from '../../../api/labels.js';
import { resources } from '../../../client/typed.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { FrameworkHandle, Plugin, PostFilterPlugin, PostFilterResult } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodDisruptionBudget } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { isSuccess, success, unresolvable, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'DefaultPreemption';
export const MIN_CANDIDATE_NODES_ABSOLUTE = 100;
export const MIN_CANDIDATE_NODES_PERCENTAGE = 10;

export interface Candidate {
  node: string;
  victims: PodInfo[];
  pdbViolations: number;
}

/** Whether the pod may preempt at all (policy, and not already waiting on a preemption). */
export function eligibleToPreempt(pod: PodInfo, nodeOf: (name: string) => NodeInfo | undefined): Verdict {
  if (pod.preemptionPolicy === 'Never') return unresolvable('not eligible due to preemptionPolicy=Never.');
  const nominated = pod.pod.status?.nominatedNodeName;
  if (nominated) {
    const n = nodeOf(nominated);
    if (n && n.pods.some((p) => p.pod.metadata.deletionTimestamp && p.priority < pod.priority)) {
      return unschedulable('not eligible due to a terminating pod on the nominated node.');
    }
  }
  return success();
}

/** Victims whose removal would push a PDB's disruptionsAllowed below 0, split from the others. */
export function splitByPdb(victims: readonly PodInfo[], pdbsOf: (ns: string) => readonly PodDisruptionBudget[]): { violating: PodInfo[]; fine: PodInfo[] } {
  const allowed = new Map<PodDisruptionBudget, number>();
  const violating: PodInfo[] = [];
  const fine: PodInfo[] = [];
  for (const v of victims) {
    let violates = false;
    for (const pdb of pdbsOf(v.pod.metadata.namespace ?? 'default')) {
      const sel = pdb.spec?.selector;
      if (!sel || !labelSelectorFromObject(sel).matches(v.pod.metadata.labels ?? {})) continue;
      const left = (allowed.get(pdb) ?? (pdb.status?.disruptionsAllowed ?? 0)) - 1;
      allowed.set(pdb, left);
      if (left < 0) violates = true;
    }
    (violates ? violating : fine).push(v);
  }
  return { violating, fine };
}

const byPriorityDesc = (a: PodInfo, b: PodInfo) => b.priority - a.priority;

/** The fewest victims on `node` that make room for `pod`, or undefined when none do. */
export function selectVictimsOnNode(state: CycleState, pod: PodInfo, node: NodeInfo, handle: Pick<FrameworkHandle, 'filters' | 'listers'>): Candidate | undefined {
  const runner = handle.filters();
  const potential = node.pods.filter((p) => p.priority < pod.priority);
  if (potential.length === 0) return undefined;
  const copy = node.clone();
  const st = state.clone();
  for (const v of potential) {
    copy.removePod(v.uid);
    runner.removePod(st, pod, v, copy);
  }
  if (!isSuccess(runner.runFilters(st, pod, copy))) return undefined;
  const { violating, fine } = splitByPdb([...potential].sort(byPriorityDesc), (ns) => handle.listers.podDisruptionBudgets(ns));
  const victims: PodInfo[] = [];
  let pdbViolations = 0;
  const reprieve = (v: PodInfo): boolean => {
    copy.addPod(v);
    runner.addPod(st, pod, v, copy);
    if (isSuccess(runner.runFilters(st, pod, copy))) return true;
    copy.removePod(v.uid);
    runner.removePod(st, pod, v, copy);
    victims.push(v);
    return false;
  };
  for (const v of violating) if (!reprieve(v)) pdbViolations++;
  for (const v of fine) reprieve(v);
  return { node: node.name, victims, pdbViolations };
}

/** The established order of candidates; the first is chosen. */
export function pickCandidate(cands: readonly Candidate[]): Candidate | undefined {
  const highest = (c: Candidate) => (c.victims.length ? Math.max(...c.victims.map((v) => v.priority)) : -Infinity);
  const sum = (c: Candidate) => c.victims.reduce((s, v) => s + v.priority, 0);
  return [...cands].sort(
    (a, b) => a.pdbViolations - b.pdbViolations || highest(a) - highest(b) || sum(a) - sum(b) || a.victims.length - b.victims.length,
  )[0];
}

export function factory(_args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  let offset = 0;
  const plugin: PostFilterPlugin = {
    name,
    async postFilter(state, pod, rejections): Promise<PostFilterResult> {
      const snap = handle.snapshot();
      const eligible = eligibleToPreempt(pod, (n) => snap.get(n));
      if (!isSuccess(eligible)) return { verdict: eligible };
      const all = snap.nodeInfoList;
      const want = Math.max(MIN_CANDIDATE_NODES_ABSOLUTE, Math.floor((all.length * MIN_CANDIDATE_NODES_PERCENTAGE) / 100));
      const cands: Candidate[] = [];
      for (let i = 0; i < all.length && cands.length < want; i++) {
        const n = all[(offset + i) % all.length]!;
        if (rejections.get(n.name)?.code !== 'Unschedulable') continue;
        const c = selectVictimsOnNode(state, pod, n, handle);
        if (c) cands.push(c);
      }
      offset = all.length ? (offset + 1) % all.length : 0;
      const best = pickCandidate(cands);
      if (!best) return { verdict: unschedulable('No preemption victims found for incoming pod.') };
      const preemptor = `${pod.pod.metadata.namespace}/${pod.pod.metadata.name}`;
      await Promise.all(
        best.victims.map(async (v) => {
          try {
            await handle.client.delete(resources.pods, v.pod.metadata.namespace ?? '', v.pod.metadata.name ?? '', { preconditions: { uid: v.uid } });
            handle.event(v.pod, 'Normal', 'Preempted', `Preempted by ${preemptor} on node ${best.node}`);
          } catch {
            // Already gone, or changed: either way it no longer holds the room.
          }
        }),
      );
      // Lower-priority pods nominated here would otherwise count against the room just made.
      await Promise.all(
        handle.nominatedPodsFor(best.node)
          .filter((p) => p.priority < pod.priority && p.uid !== pod.uid)
          .map((p) =>
            handle.client
              .patch(resources.pods, p.pod.metadata.namespace ?? '', p.pod.metadata.name ?? '', 'merge', { status: { nominatedNodeName: null } }, { subresource: 'status' })
              .catch(() => undefined),
          ),
      );
      return { verdict: success(), nominatedNodeName: best.node, victims: best.victims.length };
    },
  };
  return plugin;
}
