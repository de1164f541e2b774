/**
 * PodTopologySpread (pre-filter, filter, pre-score, score): spreads pods that match a constraint's
 * selector evenly over the values of its topology key, with the established semantics:
 *
 * - Only nodes that pass the pod's node selector and required node affinity and have every
 *   constraint's key count as domains.
 * - DoNotSchedule: a node is refused when `matching pods in its domain + (1 if the pod matches
 *   itself) - the smallest count of any domain > maxSkew`; a node without the key is refused as
 *   unresolvable.
 * - ScheduleAnyway: fewer matching pods in the node's domain scores higher; each constraint's
 *   count is weighted by log(number of domains + 2) and the result normalised as established.
 * - Pods without constraints get the `defaultConstraints` argument (empty by default), with the
 *   selector of the Services, ReplicaSets, StatefulSets and ReplicationControllers selecting them.
 */
import { labelSelectorFromMap, labelSelectorFromObject, type LabelSelector as ParsedSelector } from '../../../api/labels.js';
import type { CycleData, CycleState } from '../../framework/cycle-state.js';
import type { ClusterEvent, ClusterListers, FilterPlugin, FrameworkHandle, NodeScore, Plugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { Pod, TopologySpreadConstraint } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { Snapshot } from '../../framework/snapshot.js';
import { skip, success, unresolvable, unschedulable, type Verdict } from '../../framework/status.js';
import { affinityOf } from '../node-affinity/index.js';

export const name = 'PodTopologySpread';
export const REASON = "node(s) didn't match pod topology spread constraints";
export const REASON_MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)";
export const events: readonly ClusterEvent[] = [
  { resource: 'Pod', actions: ['Add', 'Update', 'Delete'] },
  { resource: 'Node', actions: ['Add', 'Update', 'Delete'] },
];

export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  selector: ParsedSelector;
}

function compile(c: TopologySpreadConstraint, fallback?: ParsedSelector): Constraint {
  return {
    maxSkew: c.maxSkew ?? 1,
    topologyKey: c.topologyKey ?? '',
    whenUnsatisfiable: c.whenUnsatisfiable === 'ScheduleAnyway' ? 'ScheduleAnyway' : 'DoNotSchedule',
    selector: c.labelSelector ? labelSelectorFromObject(c.labelSelector) : (fallback ?? labelSelectorFromMap({ '\u0000never': '\u0000' })),
  };
}

/** The selector of the workloads that select `pod` (for default constraints), or undefined. */
function defaultSelector(pod: Pod, listers: ClusterListers): ParsedSelector | undefined {
  const ns = pod.metadata.namespace ?? 'default';
  const labels = pod.metadata.labels ?? {};
  const reqs: Record<string, string> = {};
  let found = false;
  const mergeMap = (m: Record<string, string> | undefined) => {
    if (!m || Object.keys(m).length === 0) return;
    const sel = labelSelectorFromMap(m);
    if (!sel.matches(labels)) return;
    Object.assign(reqs, m);
    found = true;
  };
  for (const s of listers.services(ns)) mergeMap(s.spec?.selector);
  for (const rc of listers.replicationControllers(ns)) mergeMap(rc.spec?.selector);
  for (const w of [...listers.replicaSets(ns), ...listers.statefulSets(ns)]) {
    mergeMap(w.spec?.selector?.matchLabels);
  }
  return found ? labelSelectorFromMap(reqs) : undefined;
}

export function constraintsOf(pod: PodInfo, defaults: readonly TopologySpreadConstraint[], listers: ClusterListers | undefined, when: Constraint['whenUnsatisfiable']): Constraint[] {
  const own = pod.pod.spec?.topologySpreadConstraints ?? [];
  if (own.length > 0) return own.map((c) => compile(c)).filter((c) => c.whenUnsatisfiable === when);
  if (defaults.length === 0 || !listers) return [];
  const sel = defaultSelector(pod.pod, listers);
  if (!sel) return [];
  return defaults.map((c) => compile({ ...c, labelSelector: undefined }, sel)).filter((c) => c.whenUnsatisfiable === when);
}

function countMatching(node: NodeInfo, c: Constraint, namespace: string): number {
  let n = 0;
  for (const p of node.pods) {
    const m = p.pod.metadata;
    if (m.namespace !== namespace || m.deletionTimestamp) continue;
    if (c.selector.matches(m.labels ?? {})) n++;
  }
  return n;
}

/** A node counts as a domain when it passes the pod's node constraints and has every key. */
function eligible(pod: PodInfo, node: NodeInfo, constraints: readonly Constraint[]): boolean {
  const n = node.node;
  if (!n) return false;
  const labels = n.metadata.labels ?? {};
  for (const c of constraints) if (labels[c.topologyKey] === undefined) return false;
  return affinityOf(pod).required(n);
}

class FilterState implements CycleData {
  constructor(
    readonly constraints: Constraint[],
    /** Per constraint: domain value -> matching pods. */
    readonly counts: Map<string, number>[],
  ) {}
  clone(): FilterState {
    return new FilterState(this.constraints, this.counts.map((m) => new Map(m)));
  }
}

/** Per constraint: matching pods per topology domain, over the nodes eligible for the pod. */
function countPerDomain(pod: PodInfo, snapshot: Snapshot, constraints: readonly Constraint[]): Map<string, number>[] {
  const ns = pod.pod.metadata.namespace ?? 'default';
  const counts = constraints.map(() => new Map<string, number>());
  for (const n of snapshot.nodeInfoList) {
    if (!eligible(pod, n, constraints)) continue;
    const labels = n.node!.metadata.labels!;
    constraints.forEach((c, i) => {
      const v = labels[c.topologyKey]!;
      counts[i]!.set(v, (counts[i]!.get(v) ?? 0) + countMatching(n, c, ns));
    });
  }
  return counts;
}

const FILTER_KEY = `${name}/preFilter`;
const SCORE_KEY = `${name}/preScore`;

export function preFilter(state: CycleState, pod: PodInfo, snapshot: Snapshot, defaults: readonly TopologySpreadConstraint[], listers?: ClusterListers): Verdict {
  const constraints = constraintsOf(pod, defaults, listers, 'DoNotSchedule');
  if (constraints.length === 0) return skip();
  const counts = countPerDomain(pod, snapshot, constraints);
  state.write(FILTER_KEY, new FilterState(constraints, counts));
  return success();
}

function adjust(state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo, by: 1 | -1): void {
  const st = state.read<FilterState>(FILTER_KEY);
  if (!st || !eligible(pod, node, st.constraints)) return;
  if (other.pod.metadata.namespace !== pod.pod.metadata.namespace) return;
  const labels = node.node!.metadata.labels!;
  st.constraints.forEach((c, i) => {
    if (!c.selector.matches(other.pod.metadata.labels ?? {})) return;
    const v = labels[c.topologyKey]!;
    st.counts[i]!.set(v, (st.counts[i]!.get(v) ?? 0) + by);
  });
}

export function filter(state: CycleState, pod: PodInfo, node: NodeInfo): Verdict {
  const st = state.read<FilterState>(FILTER_KEY);
  if (!st) return success();
  const labels = node.node?.metadata.labels ?? {};
  for (let i = 0; i < st.constraints.length; i++) {
    const c = st.constraints[i]!;
    const v = labels[c.topologyKey];
    if (v === undefined) return unresolvable(REASON_MISSING_LABEL);
    const counts = st.counts[i]!;
    let min = Infinity;
    for (const n of counts.values()) if (n < min) min = n;
    if (min === Infinity) min = 0;
    const self = c.selector.matches(pod.pod.metadata.labels ?? {}) ? 1 : 0;
    const skew = (counts.get(v) ?? 0) + self - min;
    if (skew > c.maxSkew) return unschedulable(REASON);
  }
  return success();
}

class ScoreState implements CycleData {
  constructor(
    readonly constraints: Constraint[],
    readonly counts: Map<string, number>[],
    readonly weights: number[],
  ) {}
  clone(): ScoreState {
    return this;
  }
}

export function preScore(state: CycleState, pod: PodInfo, snapshot: Snapshot, defaults: readonly TopologySpreadConstraint[], listers?: ClusterListers): Verdict {
  const constraints = constraintsOf(pod, defaults, listers, 'ScheduleAnyway');
  if (constraints.length === 0) return skip();
  const counts = countPerDomain(pod, snapshot, constraints);
  // Established: more domains weigh more, logarithmically.
  const weights = counts.map((m) => Math.log(m.size + 2));
  state.write(SCORE_KEY, new ScoreState(constraints, counts, weights));
  return success();
}

/** Raw score: weighted matching pods in the node's domains (-1 marks a node without the keys). */
export function score(state: CycleState, node: NodeInfo): number {
  const st = state.read<ScoreState>(SCORE_KEY);
  if (!st) return 0;
  const labels = node.node?.metadata.labels ?? {};
  let total = 0;
  for (let i = 0; i < st.constraints.length; i++) {
    const v = labels[st.constraints[i]!.topologyKey];
    if (v === undefined) return -1;
    total += (st.counts[i]!.get(v) ?? 0) * st.weights[i]!;
  }
  return total;
}

/** Established: fewer is better; nodes without the keys score 0. */
export function normalize(scores: NodeScore[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    if (s.score < 0) continue;
    if (s.score < min) min = s.score;
    if (s.score > max) max = s.score;
  }
  for (const s of scores) {
    if (s.score < 0) s.score = 0;
    else if (max <= 0) s.score = MAX_NODE_SCORE;
    else s.score = Math.floor((MAX_NODE_SCORE * (max + min - s.score)) / max);
  }
}

export function factory(args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const defaults = (Array.isArray(args['defaultConstraints']) ? args['defaultConstraints'] : []) as TopologySpreadConstraint[];
  const plugin: PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (state, pod, snapshot) => ({ verdict: preFilter(state, pod, snapshot, defaults, handle.listers) }),
    addPod: (state, pod, added, node) => adjust(state, pod, added, node, 1),
    removePod: (state, pod, victim, node) => adjust(state, pod, victim, node, -1),
    filter: (state, pod, node) => filter(state, pod, node),
    preScore: (state, pod) => preScore(state, pod, handle.snapshot(), defaults, handle.listers),
    score: (state, _pod, node) => score(state, node),
    normalizeScores: (_s, _pod, scores) => normalize(scores),
  };
  return plugin;
}
