/**
 * `NodeTable`: the snapshot's nodes as rows of numbers in one Float64Array, in the snapshot's order
 * (row i is `nodeInfoList[i]`). A scheduling cycle visits hundreds of nodes per pod in that order;
 * reading a row streams through memory the processor prefetches, where reading the NodeInfo
 * objects (scattered over the heap, their large numbers boxed) costs a cache miss or several per
 * node. Filters and scores that can decide from a row do so (see `rowOf`); everything else reads
 * the NodeInfo as before.
 *
 * Contract: row i matches the NodeInfo at position i of the snapshot whenever the cache has just
 * updated the snapshot (SchedulerCache.updateSnapshot writes the rows of the nodes it copies), and
 * `nodes[i]` is that NodeInfo, so a row is only trusted for the very object it was written from.
 */
import type { CycleState } from './cycle-state.js';
import type { NodeInfo } from './node-info.js';

export const COL_ALLOC_CPU = 0;
export const COL_ALLOC_MEMORY = 1;
export const COL_ALLOC_EPHEMERAL = 2;
export const COL_ALLOC_PODS = 3;
export const COL_REQ_CPU = 4;
export const COL_REQ_MEMORY = 5;
export const COL_REQ_EPHEMERAL = 6;
export const COL_POD_COUNT = 7;
/** Requests with scoring's non-zero defaults. */
export const COL_NONZERO_CPU = 8;
export const COL_NONZERO_MEMORY = 9;
/** FLAG_* bits. */
export const COL_FLAGS = 10;
const STRIDE = 12;

/** `spec.unschedulable` (cordoned). */
export const FLAG_UNSCHEDULABLE = 1;
export const FLAG_HAS_TAINTS = 2;
export const FLAG_HAS_IMAGES = 4;

export class NodeTable {
  data = new Float64Array(0);
  /** The NodeInfo each row was written from. */
  nodes: NodeInfo[] = [];
  /** Node names by row (scores name nodes without reading the NodeInfo). */
  names: string[] = [];

  get stride(): number {
    return STRIDE;
  }

  /** Makes room for `n` rows (keeping the first ones) and drops rows past `n`. */
  resize(n: number): void {
    if (this.data.length < n * STRIDE) {
      const bigger = new Float64Array(Math.max(n, Math.ceil((this.data.length / STRIDE) * 1.5)) * STRIDE);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.nodes.length = Math.min(this.nodes.length, n);
    this.names.length = Math.min(this.names.length, n);
  }

  /** Writes row `i` from `ni`. */
  write(i: number, ni: NodeInfo): void {
    const d = this.data;
    const o = i * STRIDE;
    const a = ni.allocatable;
    const r = ni.requested;
    d[o + COL_ALLOC_CPU] = a.milliCPU;
    d[o + COL_ALLOC_MEMORY] = a.memory;
    d[o + COL_ALLOC_EPHEMERAL] = a.ephemeralStorage;
    d[o + COL_ALLOC_PODS] = a.allowedPodNumber;
    d[o + COL_REQ_CPU] = r.milliCPU;
    d[o + COL_REQ_MEMORY] = r.memory;
    d[o + COL_REQ_EPHEMERAL] = r.ephemeralStorage;
    d[o + COL_POD_COUNT] = ni.pods.length;
    d[o + COL_NONZERO_CPU] = ni.nonZeroRequested.milliCPU;
    d[o + COL_NONZERO_MEMORY] = ni.nonZeroRequested.memory;
    d[o + COL_FLAGS] = (ni.unschedulable ? FLAG_UNSCHEDULABLE : 0) | (ni.taints.length > 0 ? FLAG_HAS_TAINTS : 0) | (ni.images.size > 0 ? FLAG_HAS_IMAGES : 0);
    this.nodes[i] = ni;
    this.names[i] = ni.name;
  }

  /** Rewrites every row from `list`. */
  fill(list: readonly NodeInfo[]): void {
    this.resize(list.length);
    for (let i = 0; i < list.length; i++) this.write(i, list[i]!);
  }

  flags(i: number): number {
    return this.data[i * STRIDE + COL_FLAGS]!;
  }

  get(i: number, col: number): number {
    return this.data[i * STRIDE + col]!;
  }
}

/**
 * The table row of `node` in this cycle (the node the cycle is visiting), or -1: the state names
 * no row, or the row was written from another object (a what-if copy in preemption), so the
 * caller reads the NodeInfo. Compares references only: it never reads the NodeInfo itself.
 */
export function rowOf(state: CycleState, node: NodeInfo): number {
  const t = state.table;
  const i = state.row;
  return t !== undefined && i >= 0 && t.nodes[i] === node ? i : -1;
}
