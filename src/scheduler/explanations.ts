/**
 * "Why is my pod pending": the last scheduling attempt of each pod, with every evaluated node's
 * verdict (which plugin refused it and why) and the scores of the nodes that passed. Served at
 * `/debug/scheduler/pods/<namespace>/<name>` and in the machines page.
 *
 * Memory is bounded: full per-node detail is kept for at most `maxDetailed` pending pods (the most
 * recent attempts; older ones keep their reason counts only), and a ring of `recentLimit` finished
 * attempts (scheduled or deleted pods) is kept for a while. Node verdicts are stored grouped by
 * (plugin, reason), each group listing its nodes, so 5,000 nodes refused for one reason cost one
 * array of shared name strings.
 */
import { isRejection, verdictReasons, type Verdict } from './framework/status.js';
import type { NodeScore } from './framework/interfaces.js';
import type { Diagnosis, ScheduleOutcome } from './schedule-one.js';

export const DEFAULT_MAX_DETAILED_PENDING = 1_000;
export const DEFAULT_RECENT_LIMIT = 100;
/** Score detail kept per attempt: the best nodes only (all of them decide nothing more). */
export const MAX_SCORED_NODES_KEPT = 50;

export interface NodeVerdictGroup {
  /** The filter (or pre-filter) plugin that refused these nodes. */
  plugin: string;
  code: string;
  reasons: readonly string[];
  count: number;
  /** Omitted once the attempt's detail has been dropped for memory. */
  nodes?: string[];
}

export interface NodeScoreDetail {
  node: string;
  total: number;
  plugins: Record<string, number>;
}

export interface SchedulingAttempt {
  pod: string;
  uid: string;
  profile: string;
  attempt: number;
  time: string;
  result: 'Scheduled' | 'Unschedulable' | 'Error';
  message: string;
  node?: string;
  nominatedNode?: string;
  numAllNodes: number;
  evaluatedNodes: number;
  feasibleNodes: number;
  /** Nodes refused, grouped by plugin and reason. */
  filtered: NodeVerdictGroup[];
  /** The best-scoring feasible nodes, best first. */
  scores: NodeScoreDetail[];
  /** How the pod's story ended, for the recent ring: bound, deleted. */
  ended?: string;
}

export class ExplanationStore {
  private readonly pending = new Map<string, SchedulingAttempt>();
  private readonly recent: SchedulingAttempt[] = [];
  /** Pending pods whose attempt still has node detail, oldest first (at most `maxDetailed`). */
  private readonly detailed = new Set<string>();

  constructor(private readonly maxDetailed = DEFAULT_MAX_DETAILED_PENDING, private readonly recentLimit = DEFAULT_RECENT_LIMIT) {}

  get size(): number {
    return this.pending.size;
  }

  record(a: SchedulingAttempt): void {
    // Re-insert so Map (and Set) order is recency order.
    this.pending.delete(a.pod);
    this.pending.set(a.pod, a);
    this.detailed.delete(a.pod);
    this.detailed.add(a.pod);
    // Beyond the bound the oldest attempts lose their node detail: one step per record, no scan.
    while (this.detailed.size > this.maxDetailed) {
      const oldest = this.detailed.values().next().value!;
      this.detailed.delete(oldest);
      const old = this.pending.get(oldest);
      if (!old) continue;
      for (const g of old.filtered) delete g.nodes;
      old.scores = [];
    }
    if (a.result === 'Scheduled') this.finish(a.pod, `bound to ${a.node}`);
  }

  /** The pod's story ended (bound, deleted): its last attempt moves to the recent ring. */
  finish(podKey: string, ended: string): void {
    const a = this.pending.get(podKey);
    if (!a) return;
    this.pending.delete(podKey);
    this.detailed.delete(podKey);
    a.ended = ended;
    this.recent.push(a);
    if (this.recent.length > this.recentLimit) this.recent.shift();
  }

  get(podKey: string): SchedulingAttempt | undefined {
    const p = this.pending.get(podKey);
    if (p) return p;
    for (let i = this.recent.length - 1; i >= 0; i--) if (this.recent[i]!.pod === podKey) return this.recent[i];
    return undefined;
  }

  /** Pending pods' last attempts (newest first), without node detail: the page's list. */
  summaries(limit = 200): Array<Omit<SchedulingAttempt, 'filtered' | 'scores'>> {
    const out: Array<Omit<SchedulingAttempt, 'filtered' | 'scores'>> = [];
    const all = [...this.pending.values()].reverse();
    for (const a of all.slice(0, limit)) {
      const { filtered: _f, scores: _s, ...rest } = a;
      out.push(rest);
    }
    return out;
  }

  recentAttempts(): readonly SchedulingAttempt[] {
    return this.recent;
  }
}

/** Groups a diagnosis's node verdicts by (plugin, reasons). */
export function groupVerdicts(d: Diagnosis): NodeVerdictGroup[] {
  const groups = new Map<string, NodeVerdictGroup>();
  const keyOf = (v: Verdict) => `${'plugin' in v ? (v.plugin ?? '') : ''}\u0000${v.code}\u0000${verdictReasons(v).join('\u0001')}`;
  for (const [node, v] of d.nodeVerdicts) {
    const k = keyOf(v);
    let g = groups.get(k);
    if (!g) {
      g = { plugin: 'plugin' in v ? (v.plugin ?? '') : '', code: v.code, reasons: verdictReasons(v), count: 0, nodes: [] };
      groups.set(k, g);
    }
    g.count++;
    g.nodes!.push(node);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/**
 * Makes `a.scores` computed on first read (then kept): ranking the feasible nodes costs a sort per
 * scheduled pod, and almost no attempt is ever read. Assigning `scores` replaces the computation.
 */
export function deferScores(a: SchedulingAttempt, compute: () => NodeScoreDetail[]): void {
  let pending: (() => NodeScoreDetail[]) | undefined = compute;
  let value: NodeScoreDetail[] = [];
  Object.defineProperty(a, 'scores', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (pending) {
        value = pending();
        pending = undefined;
      }
      return value;
    },
    set: (v: NodeScoreDetail[]) => {
      value = v;
      pending = undefined;
    },
  });
}

/** The best `MAX_SCORED_NODES_KEPT` nodes with their per-plugin scores. */
export function topScores(totals: readonly NodeScore[], perPlugin: ReadonlyMap<string, ArrayLike<number>>): NodeScoreDetail[] {
  return bestIndexes(totals, MAX_SCORED_NODES_KEPT).map((i) => {
    const plugins: Record<string, number> = {};
    for (const [name, scores] of perPlugin) plugins[name] = scores[i]!;
    return { node: totals[i]!.name, total: totals[i]!.score, plugins };
  });
}

/**
 * Indexes of the `k` highest scores, best first (equal scores in their order). Runs once per
 * scheduled pod over every feasible node: integer scores are packed with their index into one
 * number and sorted natively, several times faster than sorting indexes with a comparator.
 */
function bestIndexes(totals: readonly NodeScore[], k: number): number[] {
  const n = totals.length;
  const SPAN = 2 ** 21;
  if (n >= SPAN || !totals.every((t) => Number.isSafeInteger(t.score) && t.score >= 0 && t.score < 2 ** 31)) {
    return totals.map((_, i) => i).sort((a, b) => totals[b]!.score - totals[a]!.score).slice(0, k);
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = totals[i]!.score * SPAN + (SPAN - 1 - i);
  keys.sort();
  const out: number[] = [];
  for (let j = n - 1; j >= 0 && out.length < k; j--) out.push(SPAN - 1 - (keys[j]! % SPAN));
  return out;
}

/** Whether an outcome's diagnosis refused the pod outright (pre-filter) rather than per node. */
export function refusedByPreFilter(o: ScheduleOutcome): boolean {
  return o.diagnosis.preFilter !== undefined && isRejection(o.diagnosis.preFilter);
}
