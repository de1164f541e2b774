/**
 * `CycleState`: per-pod scratch space of one scheduling cycle. A pre-filter or pre-score plugin
 * computes something once (the pod's topology counts, its parsed terms) and its filter or score
 * reads it for every node. Keys are plugin names; nothing survives the cycle except through
 * `clone()` (preemption re-runs filters on a copy with victims removed).
 */
import type { NodeTable } from './node-table.js';

export interface CycleData {
  /** Copy for preemption's what-if runs; immutable data may return itself. */
  clone(): CycleData;
}

export class CycleState {
  private readonly data = new Map<string, CycleData>();
  /** Plugins whose pre-filter said Skip: their filter is not run for this pod. */
  readonly skipFilter = new Set<string>();
  readonly skipScore = new Set<string>();
  /** The filters left once pre-filters said which to skip (the framework fills it at first use). */
  filtersToRun: readonly unknown[] | undefined;
  /**
   * The snapshot's node table and the row of the node being filtered or scored now (-1: none), set
   * by the cycle as it walks the nodes; plugins read them through `rowOf` (node-table.ts). A clone
   * (preemption's what-if) has neither: its nodes are copies.
   */
  table: NodeTable | undefined;
  row = -1;

  write(key: string, value: CycleData): void {
    this.data.set(key, value);
  }

  read<T extends CycleData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    for (const s of this.skipFilter) c.skipFilter.add(s);
    for (const s of this.skipScore) c.skipScore.add(s);
    return c;
  }
}
