/**
 * `Snapshot`: the cluster as one scheduling cycle sees it — a consistent, read-only copy of the
 * cache's nodes taken at the start of the cycle. The cache refreshes it incrementally (only nodes
 * whose generation changed are copied), so taking it costs the changes, not the cluster size.
 */
import type { NodeInfo } from './node-info.js';
import { NodeTable } from './node-table.js';

export class Snapshot {
  /** Nodes in a stable order (the cache's), the order filtering walks them round-robin. */
  nodeInfoList: NodeInfo[] = [];
  readonly byName = new Map<string, NodeInfo>();
  /** Position of each node in `nodeInfoList`. */
  readonly indexByName = new Map<string, number>();
  /** Nodes with at least one pod that has (anti-)affinity terms: what inter-pod affinity walks. */
  havePodsWithAffinity: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinity: NodeInfo[] = [];
  /** Image name -> number of nodes that have it (image locality spreads by it). */
  imageNodeCounts = new Map<string, number>();
  /** The cache generation this snapshot reflects. */
  generation = 0;
  /** `nodeInfoList` as rows of numbers, in the same order (node-table.ts). */
  readonly table = new NodeTable();

  get(name: string): NodeInfo | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.nodeInfoList.length;
  }

  /** Rebuilds the derived lists after nodes were replaced. */
  rebuildLists(imagesChanged: boolean): void {
    this.havePodsWithAffinity = [];
    this.havePodsWithRequiredAntiAffinity = [];
    for (const ni of this.nodeInfoList) {
      if (ni.podsWithAffinity.length) this.havePodsWithAffinity.push(ni);
      if (ni.podsWithRequiredAntiAffinity.length) this.havePodsWithRequiredAntiAffinity.push(ni);
    }
    if (!imagesChanged) return;
    this.imageNodeCounts = new Map();
    for (const ni of this.nodeInfoList) {
      for (const img of ni.images.keys()) this.imageNodeCounts.set(img, (this.imageNodeCounts.get(img) ?? 0) + 1);
    }
  }

  /** A snapshot over the given nodes (tests and preemption's what-if runs). */
  static of(nodes: NodeInfo[]): Snapshot {
    const s = new Snapshot();
    s.nodeInfoList = nodes;
    nodes.forEach((n, i) => {
      s.byName.set(n.name, n);
      s.indexByName.set(n.name, i);
    });
    s.rebuildLists(true);
    s.table.fill(nodes);
    return s;
  }
}
