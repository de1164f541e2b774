/**
 * InterPodAffinity (pre-filter, filter, pre-score, score), with the established semantics:
 *
 * - Required anti-affinity of EXISTING pods is checked symmetrically: a node is refused when a pod
 *   in its topology domain has a required anti-affinity term matching the incoming pod.
 * - The incoming pod's required anti-affinity: no matching pod may run in the node's domain.
 * - The incoming pod's required affinity: a matching pod must run in the node's domain; when no
 *   pod anywhere matches and the pod matches its own terms, it may go anywhere that has the
 *   topology keys (the first pod of a group).
 * - Score: preferred terms of both sides (weights; anti-affinity subtracts) and existing pods'
 *   required affinity terms matching the incoming pod with `hardPodAffinityWeight` (arg, 1 by
 *   default; the legacy --hard-pod-affinity-symmetric-weight), normalised to 0-100.
 *
 * Pre-filter counts matches per topology pair ("key=value") in one pass over the pods that
 * matter, so the filter checks a node in O(terms); preemption's what-ifs adjust the counts.
 */
import type { ClusterEvent, ClusterListers, FilterPlugin, FrameworkHandle, NodeScore, Plugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { CycleData, CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { termMatches, type AffinityTerm, type PodInfo } from '../../framework/pod-info.js';
import type { Snapshot } from '../../framework/snapshot.js';
import { skip, success, unresolvable, unschedulable, type Verdict } from '../../framework/status.js';

export const name = 'InterPodAffinity';
export const REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1;
export const events: readonly ClusterEvent[] = [
  { resource: 'Pod', actions: ['Add', 'Update', 'Delete'] },
  { resource: 'Node', actions: ['Add', 'Update'] },
];

/** topology key -> value -> count. */
type PairCounts = Map<string, Map<string, number>>;

function bump(c: PairCounts, key: string, value: string, by: number): void {
  let m = c.get(key);
  if (!m) c.set(key, (m = new Map()));
  const n = (m.get(value) ?? 0) + by;
  if (n === 0) m.delete(value);
  else m.set(value, n);
}

function clonePairs(c: PairCounts): PairCounts {
  const out: PairCounts = new Map();
  for (const [k, m] of c) out.set(k, new Map(m));
  return out;
}

class PreFilterState implements CycleData {
  constructor(
    /** Existing pods' required anti-affinity terms matching the incoming pod, per topology pair. */
    readonly existingAntiAffinity: PairCounts,
    /** Per incoming required affinity term: pods matching it, per pair. */
    readonly affinity: PairCounts[],
    /** Per incoming required anti-affinity term. */
    readonly antiAffinity: PairCounts[],
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(clonePairs(this.existingAntiAffinity), this.affinity.map(clonePairs), this.antiAffinity.map(clonePairs));
  }
}

const PRE_FILTER_KEY = `${name}/preFilter`;
const PRE_SCORE_KEY = `${name}/preScore`;

function nsLabelsOf(listers: ClusterListers | undefined, pod: PodInfo): Readonly<Record<string, string>> | undefined {
  return listers?.namespaceLabels(pod.pod.metadata.namespace ?? 'default');
}

/** Adds (by=1) or removes (by=-1) one existing pod's contribution to the pre-filter counts. */
function account(st: PreFilterState, incoming: PodInfo, existing: PodInfo, node: NodeInfo, by: 1 | -1, listers?: ClusterListers): void {
  const labels = node.node?.metadata.labels;
  if (!labels) return;
  const incomingNs = nsLabelsOf(listers, incoming);
  for (const t of existing.requiredAntiAffinity) {
    const v = labels[t.topologyKey];
    if (v !== undefined && termMatches(t, incoming.pod, incomingNs)) bump(st.existingAntiAffinity, t.topologyKey, v, by);
  }
  const existingNs = nsLabelsOf(listers, existing);
  incoming.requiredAffinity.forEach((t, i) => {
    const v = labels[t.topologyKey];
    if (v !== undefined && termMatches(t, existing.pod, existingNs)) bump(st.affinity[i]!, t.topologyKey, v, by);
  });
  incoming.requiredAntiAffinity.forEach((t, i) => {
    const v = labels[t.topologyKey];
    if (v !== undefined && termMatches(t, existing.pod, existingNs)) bump(st.antiAffinity[i]!, t.topologyKey, v, by);
  });
}

export function preFilter(state: CycleState, pod: PodInfo, snapshot: Snapshot, listers?: ClusterListers): Verdict {
  const hasOwn = pod.requiredAffinity.length > 0 || pod.requiredAntiAffinity.length > 0;
  if (!hasOwn && snapshot.havePodsWithRequiredAntiAffinity.length === 0) return skip();
  const st = new PreFilterState(new Map(), pod.requiredAffinity.map(() => new Map()), pod.requiredAntiAffinity.map(() => new Map()));
  const incomingNs = nsLabelsOf(listers, pod);
  // Existing anti-affinity: only nodes with such pods need walking.
  for (const n of snapshot.havePodsWithRequiredAntiAffinity) {
    const labels = n.node?.metadata.labels;
    if (!labels) continue;
    for (const ep of n.podsWithRequiredAntiAffinity) {
      for (const t of ep.requiredAntiAffinity) {
        const v = labels[t.topologyKey];
        if (v !== undefined && termMatches(t, pod.pod, incomingNs)) bump(st.existingAntiAffinity, t.topologyKey, v, 1);
      }
    }
  }
  if (hasOwn) {
    for (const n of snapshot.nodeInfoList) {
      const labels = n.node?.metadata.labels;
      if (!labels) continue;
      for (const ep of n.pods) {
        const ns = nsLabelsOf(listers, ep);
        pod.requiredAffinity.forEach((t, i) => {
          const v = labels[t.topologyKey];
          if (v !== undefined && termMatches(t, ep.pod, ns)) bump(st.affinity[i]!, t.topologyKey, v, 1);
        });
        pod.requiredAntiAffinity.forEach((t, i) => {
          const v = labels[t.topologyKey];
          if (v !== undefined && termMatches(t, ep.pod, ns)) bump(st.antiAffinity[i]!, t.topologyKey, v, 1);
        });
      }
    }
  }
  state.write(PRE_FILTER_KEY, st);
  return success();
}

function anyCount(c: PairCounts, key: string, value: string | undefined): boolean {
  return value !== undefined && (c.get(key)?.get(value) ?? 0) > 0;
}

function totalCount(c: PairCounts): number {
  let n = 0;
  for (const m of c.values()) for (const v of m.values()) n += v;
  return n;
}

export function filter(state: CycleState, pod: PodInfo, node: NodeInfo, listers?: ClusterListers): Verdict {
  const st = state.read<PreFilterState>(PRE_FILTER_KEY);
  if (!st) return success();
  const labels = node.node?.metadata.labels ?? {};
  for (const [key, values] of st.existingAntiAffinity) {
    const v = labels[key];
    if (v !== undefined && (values.get(v) ?? 0) > 0) return unschedulable(REASON_EXISTING_ANTI_AFFINITY);
  }
  for (let i = 0; i < pod.requiredAntiAffinity.length; i++) {
    const t = pod.requiredAntiAffinity[i]!;
    if (anyCount(st.antiAffinity[i]!, t.topologyKey, labels[t.topologyKey])) return unschedulable(REASON_ANTI_AFFINITY);
  }
  if (pod.requiredAffinity.length > 0) {
    let allMatch = true;
    for (let i = 0; i < pod.requiredAffinity.length; i++) {
      const t = pod.requiredAffinity[i]!;
      if (!anyCount(st.affinity[i]!, t.topologyKey, labels[t.topologyKey])) {
        allMatch = false;
        break;
      }
    }
    if (!allMatch) {
      // The first pod of a group: nothing matches anywhere, and the pod matches its own terms.
      const nothingAnywhere = st.affinity.every((c) => totalCount(c) === 0);
      const ns = nsLabelsOf(listers, pod);
      const selfMatch = pod.requiredAffinity.every((t) => termMatches(t, pod.pod, ns));
      const hasKeys = pod.requiredAffinity.every((t) => labels[t.topologyKey] !== undefined);
      if (!(nothingAnywhere && selfMatch && hasKeys)) return unresolvable(REASON_AFFINITY);
    }
  }
  return success();
}

// ---- scoring ------------------------------------------------------------------------------

class PreScoreState implements CycleData {
  constructor(readonly topologyScore: PairCounts) {}
  clone(): PreScoreState {
    return this;
  }
}

function addTerms<T extends AffinityTerm>(scores: PairCounts, terms: readonly T[], weightOf: (t: T) => number, target: PodInfo, labels: Readonly<Record<string, string>>, sign: 1 | -1, ns: Readonly<Record<string, string>> | undefined): void {
  for (const t of terms) {
    const v = labels[t.topologyKey];
    if (v === undefined) continue;
    if (termMatches(t, target.pod, ns)) bump(scores, t.topologyKey, v, sign * weightOf(t));
  }
}

export function preScore(state: CycleState, pod: PodInfo, snapshot: Snapshot, hardPodAffinityWeight: number, listers?: ClusterListers): Verdict {
  const hasPreferred = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
  if (!hasPreferred && snapshot.havePodsWithAffinity.length === 0) return skip();
  const scores: PairCounts = new Map();
  const nodes = hasPreferred ? snapshot.nodeInfoList : snapshot.havePodsWithAffinity;
  const incomingNs = nsLabelsOf(listers, pod);
  for (const n of nodes) {
    const labels = n.node?.metadata.labels;
    if (!labels) continue;
    const pods = hasPreferred ? n.pods : n.podsWithAffinity;
    for (const ep of pods) {
      if (hasPreferred) {
        const ns = nsLabelsOf(listers, ep);
        addTerms(scores, pod.preferredAffinity, (t) => t.weight, ep, labels, 1, ns);
        addTerms(scores, pod.preferredAntiAffinity, (t) => t.weight, ep, labels, -1, ns);
      }
      // The existing pod's own terms, seen from the incoming pod (symmetry).
      if (hardPodAffinityWeight > 0) addTerms(scores, ep.requiredAffinity, () => hardPodAffinityWeight, pod, labels, 1, incomingNs);
      addTerms(scores, ep.preferredAffinity, (t) => t.weight, pod, labels, 1, incomingNs);
      addTerms(scores, ep.preferredAntiAffinity, (t) => t.weight, pod, labels, -1, incomingNs);
    }
  }
  if (scores.size === 0) return skip();
  state.write(PRE_SCORE_KEY, new PreScoreState(scores));
  return success();
}

export function score(state: CycleState, node: NodeInfo): number {
  const st = state.read<PreScoreState>(PRE_SCORE_KEY);
  const labels = node.node?.metadata.labels;
  if (!st || !labels) return 0;
  let total = 0;
  for (const [key, values] of st.topologyScore) {
    const v = labels[key];
    if (v !== undefined) total += values.get(v) ?? 0;
  }
  return total;
}

/** Established: (s - min) / (max - min) * 100; all equal -> 0. Raw scores may be negative. */
export function normalize(scores: NodeScore[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    if (s.score < min) min = s.score;
    if (s.score > max) max = s.score;
  }
  const span = max - min;
  for (const s of scores) s.score = span > 0 ? Math.floor((MAX_NODE_SCORE * (s.score - min)) / span) : 0;
}

export function factory(args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const w = args['hardPodAffinityWeight'];
  const hardPodAffinityWeight = typeof w === 'number' ? w : DEFAULT_HARD_POD_AFFINITY_WEIGHT;
  const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (state, pod, snapshot) => ({ verdict: preFilter(state, pod, snapshot, handle.listers) }),
    addPod: (state, pod, added, node) => {
      const st = state.read<PreFilterState>(PRE_FILTER_KEY);
      if (st) account(st, pod, added, node, 1, handle.listers);
    },
    removePod: (state, pod, victim, node) => {
      const st = state.read<PreFilterState>(PRE_FILTER_KEY);
      if (st) account(st, pod, victim, node, -1, handle.listers);
    },
    filter: (state, pod, node) => filter(state, pod, node, handle.listers),
    preScore: (state, pod) => preScore(state, pod, handle.snapshot(), hardPodAffinityWeight, handle.listers),
    score: (state, _pod, node) => score(state, node),
    normalizeScores: (_s, _pod, scores) => normalize(scores),
  };
  return plugin;
}
