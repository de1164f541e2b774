/**
 * `Framework`: one profile's plugins, instantiated and ordered per extension point, and the code
 * that runs an extension point over them. It knows nothing about queues or the API server; the
 * scheduling cycle (src/scheduler/schedule-one.ts) drives it.
 *
 * Guarantees: filters run in the profile's order and stop at the first rejection (that plugin is
 * the one named in explanations); a plugin whose pre-filter or pre-score said Skip is not run for
 * the pod; scores are normalised per plugin, then weighted and summed.
 */
import { CycleState } from './cycle-state.js';
import {
  implementsBind, implementsFilter, implementsPostFilter, implementsPreBind, implementsPreFilter, implementsPreScore, implementsQueueSort,
  implementsReserve, implementsScore, MAX_NODE_SCORE,
  type BindPlugin, type FilterPlugin, type FilterRunner, type NodeScore, type Plugin, type PostFilterPlugin, type PostFilterResult, type PreBindPlugin,
  type PreFilterPlugin, type PreScorePlugin, type QueueSortPlugin, type ReservePlugin, type ScorePlugin,
} from './interfaces.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';
import type { Snapshot } from './snapshot.js';
import { isRejection, isSuccess, pluginError, success, unresolvable, type Verdict } from './status.js';

/** A profile's plugin lists, resolved from the configuration (names in order, score weights). */
export interface ProfilePlugins {
  queueSort: Plugin;
  preFilter: Plugin[];
  filter: Plugin[];
  postFilter: Plugin[];
  preScore: Plugin[];
  score: { plugin: Plugin; weight: number }[];
  reserve: Plugin[];
  preBind: Plugin[];
  bind: Plugin[];
}

export interface PreFilterOutcome {
  verdict: Verdict;
  /** The plugin that rejected the pod on every node. */
  plugin?: string;
  nodeNames?: ReadonlySet<string>;
}

function requirePoint<T extends Plugin>(list: Plugin[], guard: (p: Plugin) => p is T, point: string): T[] {
  return list.map((p) => {
    if (!guard(p)) throw new Error(`plugin ${p.name} does not implement the ${point} extension point`);
    return p;
  });
}

export class Framework implements FilterRunner {
  readonly queueSort: QueueSortPlugin;
  readonly preFilters: PreFilterPlugin[];
  readonly filters: FilterPlugin[];
  readonly postFilters: PostFilterPlugin[];
  readonly preScores: PreScorePlugin[];
  readonly scores: { plugin: ScorePlugin; weight: number }[];
  readonly reserves: ReservePlugin[];
  readonly preBinds: PreBindPlugin[];
  readonly binds: BindPlugin[];

  constructor(readonly profileName: string, plugins: ProfilePlugins) {
    if (!implementsQueueSort(plugins.queueSort)) throw new Error(`plugin ${plugins.queueSort.name} does not implement the queueSort extension point`);
    this.queueSort = plugins.queueSort;
    this.preFilters = requirePoint(plugins.preFilter, implementsPreFilter, 'preFilter');
    this.filters = requirePoint(plugins.filter, implementsFilter, 'filter');
    this.postFilters = requirePoint(plugins.postFilter, implementsPostFilter, 'postFilter');
    this.preScores = requirePoint(plugins.preScore, implementsPreScore, 'preScore');
    this.scores = plugins.score.map(({ plugin, weight }) => {
      if (!implementsScore(plugin)) throw new Error(`plugin ${plugin.name} does not implement the score extension point`);
      return { plugin, weight };
    });
    this.reserves = requirePoint(plugins.reserve, implementsReserve, 'reserve');
    this.preBinds = requirePoint(plugins.preBind, implementsPreBind, 'preBind');
    this.binds = requirePoint(plugins.bind, implementsBind, 'bind');
    if (this.binds.length === 0) throw new Error(`profile ${profileName} has no bind plugin`);
  }

  /** Runs every pre-filter; intersects the node sets they return. */
  runPreFilter(state: CycleState, pod: PodInfo, snapshot: Snapshot): PreFilterOutcome {
    let nodeNames: Set<string> | undefined;
    for (const p of this.preFilters) {
      const r = p.preFilter(state, pod, snapshot);
      if (r.verdict.code === 'Skip') {
        state.skipFilter.add(p.name);
        continue;
      }
      if (!isSuccess(r.verdict)) return { verdict: withPlugin(r.verdict, p.name), plugin: p.name };
      if (r.nodeNames) {
        nodeNames = nodeNames ? new Set([...nodeNames].filter((n) => r.nodeNames!.has(n))) : new Set(r.nodeNames);
        if (nodeNames.size === 0) {
          return { verdict: withPlugin(unresolvable('node(s) didn\'t satisfy plugin(s) [' + p.name + '] simultaneously'), p.name), plugin: p.name };
        }
      }
    }
    return { verdict: success(), ...(nodeNames ? { nodeNames } : {}) };
  }

  /** The first rejection among the filters (with the plugin's name), or success. */
  runFilters(state: CycleState, pod: PodInfo, node: NodeInfo): Verdict {
    // Decided once per cycle, not per node: which filters the pre-filters left to run.
    const filters = (state.filtersToRun ??= this.filters.filter((f) => !state.skipFilter.has(f.name))) as readonly FilterPlugin[];
    for (let i = 0; i < filters.length; i++) {
      const f = filters[i]!;
      let v: Verdict;
      try {
        v = f.filter(state, pod, node);
      } catch (err) {
        v = pluginError(`${f.name}: ${(err as Error).message}`);
      }
      if (!isSuccess(v)) return withPlugin(v, f.name);
    }
    return success();
  }

  /** Pre-filter extensions: `victim` removed from `node` in a what-if (preemption). */
  removePod(state: CycleState, pod: PodInfo, victim: PodInfo, node: NodeInfo): void {
    for (const p of this.preFilters) if (!state.skipFilter.has(p.name)) p.removePod?.(state, pod, victim, node);
  }

  addPod(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): void {
    for (const p of this.preFilters) if (!state.skipFilter.has(p.name)) p.addPod?.(state, pod, added, node);
  }

  async runPostFilter(state: CycleState, pod: PodInfo, rejections: ReadonlyMap<string, Verdict>): Promise<PostFilterResult> {
    let last: PostFilterResult = { verdict: unresolvable() };
    for (const p of this.postFilters) {
      const r = await p.postFilter(state, pod, rejections);
      if (isSuccess(r.verdict)) return r;
      if (!isRejection(r.verdict)) return r;
      last = r;
    }
    return last;
  }

  /**
   * Pre-score then score: the weighted sum per node, in the order of `nodes`, and each plugin's
   * scores (by node position). Scores live in typed arrays; only a plugin that normalises gets the
   * `NodeScore` objects its `normalizeScores` takes (this runs for every feasible node of every pod).
   */
  runScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], rows?: readonly number[]): { totals: NodeScore[]; perPlugin: Map<string, Float64Array> } | Verdict {
    for (const p of this.preScores) {
      const v = p.preScore(state, pod, nodes);
      if (v.code === 'Skip') state.skipScore.add(p.name);
      else if (!isSuccess(v)) return withPlugin(v, p.name);
    }
    const n = nodes.length;
    // With rows (the nodes' rows in the cycle's table), plugins read rows and names come from the table.
    const names = rows && state.table ? rows.map((r) => state.table!.names[r]!) : nodes.map((node) => node.name);
    const at = (i: number) => {
      if (rows) state.row = rows[i]!;
    };
    const sums = new Float64Array(n);
    const perPlugin = new Map<string, Float64Array>();
    for (const { plugin, weight } of this.scores) {
      if (state.skipScore.has(plugin.name)) continue;
      const scores = new Float64Array(n);
      if (plugin.normalizeScores) {
        const objects: NodeScore[] = new Array(n);
        for (let i = 0; i < n; i++) {
          at(i);
          objects[i] = { name: names[i]!, score: plugin.score(state, pod, nodes[i]!) };
        }
        plugin.normalizeScores(state, pod, objects);
        for (let i = 0; i < n; i++) scores[i] = objects[i]!.score;
      } else {
        for (let i = 0; i < n; i++) {
          at(i);
          scores[i] = plugin.score(state, pod, nodes[i]!);
        }
      }
      for (let i = 0; i < n; i++) {
        const s = scores[i]!;
        if (!(s >= 0 && s <= MAX_NODE_SCORE)) {
          state.row = -1;
          return pluginError(`plugin ${plugin.name} returned score ${s} for node ${names[i]!}, outside [0, ${MAX_NODE_SCORE}]`);
        }
        sums[i] += s * weight;
      }
      perPlugin.set(plugin.name, scores);
    }
    state.row = -1;
    const totals: NodeScore[] = new Array(n);
    for (let i = 0; i < n; i++) totals[i] = { name: names[i]!, score: sums[i]! };
    return { totals, perPlugin };
  }

  runReserve(state: CycleState, pod: PodInfo, nodeName: string): Verdict {
    for (let i = 0; i < this.reserves.length; i++) {
      const v = this.reserves[i]!.reserve(state, pod, nodeName);
      if (!isSuccess(v)) {
        for (let j = i; j >= 0; j--) this.reserves[j]!.unreserve(state, pod, nodeName);
        return withPlugin(v, this.reserves[i]!.name);
      }
    }
    return success();
  }

  runUnreserve(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (let j = this.reserves.length - 1; j >= 0; j--) this.reserves[j]!.unreserve(state, pod, nodeName);
  }

  async runPreBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Verdict> {
    for (const p of this.preBinds) {
      const v = await p.preBind(state, pod, nodeName);
      if (!isSuccess(v)) return withPlugin(v, p.name);
    }
    return success();
  }

  async runBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Verdict> {
    for (const p of this.binds) {
      const v = await p.bind(state, pod, nodeName);
      if (v.code === 'Skip') continue;
      return isSuccess(v) ? v : withPlugin(v, p.name);
    }
    return pluginError('no bind plugin bound the pod');
  }

  /** Every plugin of the profile, once (for enqueue events and explanations). */
  allPlugins(): Plugin[] {
    const seen = new Map<string, Plugin>();
    for (const p of [this.queueSort, ...this.preFilters, ...this.filters, ...this.postFilters, ...this.preScores, ...this.scores.map((s) => s.plugin), ...this.reserves, ...this.preBinds, ...this.binds]) {
      seen.set(p.name, p);
    }
    return [...seen.values()];
  }
}

/** A new cycle state (one per pod per attempt). */
export function newCycleState(): CycleState {
  return new CycleState();
}

function withPlugin(v: Verdict, plugin: string): Verdict {
  if (v.code === 'Success' || v.code === 'Skip') return v;
  return { ...v, plugin };
}
