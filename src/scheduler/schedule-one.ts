/**
 * The placement decision for one pod (the established `schedulePod`): pre-filter, filter nodes
 * until enough feasible ones are found (round-robin from where the last cycle stopped), score
 * them, pick the best (ties broken at random). Pure over the snapshot: it assumes nothing and
 * writes nothing; the scheduler acts on the outcome.
 */
import type { CycleState } from './framework/cycle-state.js';
import type { Framework } from './framework/framework.js';
import type { NodeScore } from './framework/interfaces.js';
import { NodeInfo } from './framework/node-info.js';
import type { PodInfo } from './framework/pod-info.js';
import type { Snapshot } from './framework/snapshot.js';
import { isRejection, isSuccess, type Verdict } from './framework/status.js';

/** Below this many nodes every node is evaluated; above, at least this many feasible ones are sought. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** The adaptive percentage never goes below this. */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
/** Adaptive percentage: 50% minus 1% per this many nodes (the established formula). */
const ADAPTIVE_NODES_PER_PERCENT = 125;

/** How many feasible nodes to look for among `numAllNodes` (percentage 0 = adaptive). */
export function numFeasibleNodesToFind(numAllNodes: number, percentageOfNodesToScore: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentageOfNodesToScore >= 100) return numAllNodes;
  let adaptive = percentageOfNodesToScore;
  if (adaptive <= 0) {
    adaptive = 50 - Math.floor(numAllNodes / ADAPTIVE_NODES_PER_PERCENT);
    if (adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.floor((numAllNodes * adaptive) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/** Why a pod fits nowhere: the verdict of every evaluated node, or the pre-filter that refused it outright. */
export interface Diagnosis {
  nodeVerdicts: Map<string, Verdict>;
  /** Set when a pre-filter rejected the pod on every node. */
  preFilter?: Verdict;
  unschedulablePlugins: Set<string>;
}

export type ScheduleOutcome =
  | {
      kind: 'scheduled';
      nodeName: string;
      evaluatedNodes: number;
      feasibleNodes: number;
      /** Per feasible node: total and per-plugin scores (for explanations). */
      scores: NodeScore[];
      /** Each plugin's scores, by position in `scores`. */
      pluginScores: Map<string, ArrayLike<number>>;
      /** Verdicts of nodes that were evaluated and refused. */
      diagnosis: Diagnosis;
    }
  | { kind: 'unschedulable'; numAllNodes: number; diagnosis: Diagnosis }
  | { kind: 'error'; message: string; diagnosis: Diagnosis };

export interface ScheduleOptions {
  percentageOfNodesToScore: number;
  /** Nominated pods (priority >= the pod's) on a node, counted as if running there. */
  nominatedPodsFor?(nodeName: string): readonly PodInfo[];
  /** Whether any pod is nominated anywhere; when false the per-node lookup is skipped for the cycle. */
  anyNominated?(): boolean;
  random?: () => number;
}

export class PodScheduler {
  /** Where the next cycle starts filtering, so nodes share the load of being evaluated. */
  private nextStartNodeIndex = 0;
  /** This cycle: whether nominated pods may sit on some node. */
  private lookUpNominated = true;

  constructor(private readonly opts: ScheduleOptions) {}

  schedule(fwk: Framework, state: CycleState, pod: PodInfo, snapshot: Snapshot): ScheduleOutcome {
    const diagnosis: Diagnosis = { nodeVerdicts: new Map(), unschedulablePlugins: new Set() };
    const all = snapshot.nodeInfoList;
    if (all.length === 0) return { kind: 'unschedulable', numAllNodes: 0, diagnosis };
    const pre = fwk.runPreFilter(state, pod, snapshot);
    if (!isSuccess(pre.verdict)) {
      if (pre.verdict.code === 'Error') return { kind: 'error', message: pre.verdict.message, diagnosis };
      diagnosis.preFilter = pre.verdict;
      if (pre.plugin) diagnosis.unschedulablePlugins.add(pre.plugin);
      for (const n of all) diagnosis.nodeVerdicts.set(n.name, pre.verdict);
      return { kind: 'unschedulable', numAllNodes: all.length, diagnosis };
    }
    const feasible: NodeInfo[] = [];
    /** Each feasible node's row in the snapshot's table (scores read rows, not NodeInfos). */
    const feasibleRows: number[] = [];
    let evaluated = 0;
    state.table = snapshot.table;
    this.lookUpNominated = this.opts.nominatedPodsFor !== undefined && (this.opts.anyNominated?.() ?? true);
    if (pre.nodeNames) {
      for (const name of pre.nodeNames) {
        const n = snapshot.get(name);
        if (!n) continue;
        evaluated++;
        const row = snapshot.indexByName.get(name) ?? -1;
        state.row = row;
        const v = this.filterNode(fwk, state, pod, n);
        if (isSuccess(v)) {
          feasible.push(n);
          feasibleRows.push(row);
        } else if (v.code === 'Error') return { kind: 'error', message: v.message, diagnosis };
        else this.reject(diagnosis, n.name, v);
      }
    } else {
      const want = numFeasibleNodesToFind(all.length, this.opts.percentageOfNodesToScore);
      const start = this.nextStartNodeIndex % all.length;
      for (let i = 0; i < all.length && feasible.length < want; i++) {
        const row = (start + i) % all.length;
        const n = all[row]!;
        evaluated++;
        state.row = row;
        const v = this.filterNode(fwk, state, pod, n);
        if (isSuccess(v)) {
          feasible.push(n);
          feasibleRows.push(row);
        } else if (v.code === 'Error') return { kind: 'error', message: v.message, diagnosis };
        else this.reject(diagnosis, n.name, v);
      }
      this.nextStartNodeIndex = (start + evaluated) % all.length;
    }
    state.row = -1;
    if (feasible.length === 0) return { kind: 'unschedulable', numAllNodes: all.length, diagnosis };
    if (feasible.length === 1) {
      const only = feasible[0]!;
      return { kind: 'scheduled', nodeName: only.name, evaluatedNodes: evaluated, feasibleNodes: 1, scores: [{ name: only.name, score: 0 }], pluginScores: new Map(), diagnosis };
    }
    const scored = fwk.runScore(state, pod, feasible, feasibleRows);
    if ('code' in scored) {
      return { kind: 'error', message: scored.code === 'Error' ? scored.message : `pre-score refused the pod (${scored.code})`, diagnosis };
    }
    return {
      kind: 'scheduled',
      nodeName: this.selectHost(scored.totals),
      evaluatedNodes: evaluated,
      feasibleNodes: feasible.length,
      scores: scored.totals,
      pluginScores: scored.perPlugin,
      diagnosis,
    };
  }

  private reject(d: Diagnosis, node: string, v: Verdict): void {
    d.nodeVerdicts.set(node, v);
    if (isRejection(v) && v.plugin) d.unschedulablePlugins.add(v.plugin);
  }

  /** Filters, counting nominated higher-priority pods on the node as if they ran there (as established). */
  private filterNode(fwk: Framework, state: CycleState, pod: PodInfo, node: NodeInfo): Verdict {
    const nominated = this.lookUpNominated ? this.opts.nominatedPodsFor?.(node.name) : undefined;
    if (nominated && nominated.length > 0) {
      const others = nominated.filter((p) => p.uid !== pod.uid && p.priority >= pod.priority);
      if (others.length > 0) {
        const withNominated = node.clone();
        const st = state.clone();
        for (const p of others) {
          withNominated.addPod(p);
          fwk.addPod(st, pod, p, withNominated);
        }
        const v = fwk.runFilters(st, pod, withNominated);
        if (!isSuccess(v)) return v;
      }
    }
    return fwk.runFilters(state, pod, node);
  }

  /** The highest total; ties are broken uniformly at random (reservoir sampling). */
  private selectHost(scores: NodeScore[]): string {
    const random = this.opts.random ?? Math.random;
    let best = scores[0]!;
    let ties = 1;
    for (let i = 1; i < scores.length; i++) {
      const s = scores[i]!;
      if (s.score > best.score) {
        best = s;
        ties = 1;
      } else if (s.score === best.score) {
        ties++;
        if (random() * ties < 1) best = s;
      }
    }
    return best.name;
  }
}

/**
 * The FailedScheduling message, as established: `0/3 nodes are available: 1 node(s) had taint
 * {a: b}, that the pod didn't tolerate, 2 Insufficient cpu.` (reasons counted, sorted).
 */
export function failedSchedulingMessage(numAllNodes: number, d: Diagnosis): string {
  if (numAllNodes === 0) return '0/0 nodes are available: no nodes available to schedule pods.';
  const counts = new Map<string, number>();
  for (const v of d.nodeVerdicts.values()) {
    if (!isRejection(v)) continue;
    for (const r of v.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  const parts = [...counts.entries()].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}
