/**
 * The scheduler's cache: every node and the pods counted on it, including *assumed* pods — pods
 * this scheduler has placed but whose binding is not yet seen in the pod informer. A pod counts on
 * its node from the moment it is assumed, so the next cycle (microseconds later) already sees the
 * node's resources as used; binding then runs in the background.
 *
 * Guarantees:
 * - `assume` then, when the binding fails, `forget`: the node is exactly as before.
 * - The informer's copy of a bound pod replaces the assumed one (`addPod` confirms it); an assumed
 *   pod whose binding finished but never shows up expires after `assumedTtlMs`.
 * - `updateSnapshot` copies only the nodes changed since the last update; the list order is the
 *   cache's insertion order (stable between cycles, as round-robin filtering needs).
 */
import { newPodInfo, type PodInfo } from './framework/pod-info.js';
import { newGeneration, NodeInfo } from './framework/node-info.js';
import type { Node, Pod } from './framework/objects.js';
import { Snapshot } from './framework/snapshot.js';

/** How long an assumed pod whose binding finished may wait for the informer to confirm it. */
export const DEFAULT_ASSUMED_TTL_MS = 30_000;

interface PodState {
  info: PodInfo;
  nodeName: string;
  assumed: boolean;
  /** Set when an assumed pod's binding finished; it expires after this time if not confirmed. */
  deadline?: number;
}

function sameImages(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly pods = new Map<string, PodState>();
  /** Bumped when a node is added or removed (the snapshot's list must be rebuilt). */
  private structureVersion = 0;
  private imagesVersion = 0;

  constructor(
    private readonly now: () => number,
    private readonly assumedTtlMs = DEFAULT_ASSUMED_TTL_MS,
    /** How a bound pod is counted (the scheduler passes its feature-gated factory). */
    private readonly podInfoOf: (pod: Pod) => PodInfo = (pod) => newPodInfo(pod),
  ) {}

  get nodeCount(): number {
    let n = 0;
    for (const ni of this.nodes.values()) if (ni.node) n++;
    return n;
  }

  get podCount(): number {
    return this.pods.size;
  }

  isAssumed(uid: string): boolean {
    return this.pods.get(uid)?.assumed === true;
  }

  /** The node a pod (bound or assumed) counts on. */
  nodeOf(uid: string): string | undefined {
    return this.pods.get(uid)?.nodeName;
  }

  /** The node's info for a change: it is marked for the next snapshot update. */
  private nodeInfo(name: string): NodeInfo {
    this.dirty.add(name);
    let ni = this.nodes.get(name);
    if (!ni) {
      ni = new NodeInfo(name);
      this.nodes.set(name, ni);
    }
    return ni;
  }

  // ---- nodes -------------------------------------------------------------------------------

  addNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const had = this.nodes.get(name)?.node !== undefined;
    const ni = this.nodeInfo(name);
    const imagesBefore = ni.images;
    ni.setNode(node);
    if (!had) this.structureVersion++;
    // Status updates (heartbeats) rarely change images: only a change costs the recount.
    if (!had || !sameImages(imagesBefore, ni.images)) this.imagesVersion++;
  }

  removeNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const ni = this.nodes.get(name);
    if (!ni) return;
    // Pods still counted on a removed node stay until their own deletions arrive.
    if (ni.pods.length === 0) this.nodes.delete(name);
    else {
      ni.node = undefined;
      ni.generation = newGeneration();
    }
    this.structureVersion++;
    this.imagesVersion++;
  }

  // ---- pods --------------------------------------------------------------------------------

  /** Counts `info` on `nodeName` before its binding is known (the scheduling cycle's decision). */
  assume(info: PodInfo, nodeName: string): void {
    if (this.pods.has(info.uid)) throw new Error(`pod ${info.key} is already in the cache`);
    this.nodeInfo(nodeName).addPod(info);
    this.pods.set(info.uid, { info, nodeName, assumed: true });
  }

  /** The binding of an assumed pod finished: start its expiry clock. */
  finishBinding(uid: string): void {
    const st = this.pods.get(uid);
    if (st?.assumed) st.deadline = this.now() + this.assumedTtlMs;
  }

  /** Undoes `assume` (binding failed). */
  forget(uid: string): void {
    const st = this.pods.get(uid);
    if (!st || !st.assumed) return;
    this.removeFromNode(st);
    this.pods.delete(uid);
  }

  /** A pod bound to a node, as the informer reports it (confirms an assumed pod). */
  addPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    const st = this.pods.get(uid);
    if (st) {
      // Confirmation of an assumption (or a duplicate add): count the informer's copy.
      this.removeFromNode(st);
    }
    const info = this.podInfoOf(pod);
    this.nodeInfo(nodeName).addPod(info);
    this.pods.set(uid, { info, nodeName, assumed: false });
  }

  removePod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const st = this.pods.get(uid);
    if (!st) return;
    this.removeFromNode(st);
    this.pods.delete(uid);
  }

  private removeFromNode(st: PodState): void {
    const ni = this.nodes.get(st.nodeName);
    if (!ni) return;
    this.dirty.add(st.nodeName);
    ni.removePod(st.info.uid);
    if (!ni.node && ni.pods.length === 0) {
      this.nodes.delete(st.nodeName);
      this.structureVersion++;
    }
  }

  /** Drops assumed pods whose binding finished more than the TTL ago without confirmation. */
  cleanupExpiredAssumed(): string[] {
    const now = this.now();
    const expired: string[] = [];
    for (const [uid, st] of this.pods) {
      if (st.assumed && st.deadline !== undefined && st.deadline <= now) {
        this.removeFromNode(st);
        this.pods.delete(uid);
        expired.push(st.info.key);
      }
    }
    return expired;
  }

  // ---- snapshot ----------------------------------------------------------------------------

  private snapStructure = -1;
  private snapImages = -1;

  /** Nodes changed since the last snapshot update: an update costs the changes, not the cluster. */
  private readonly dirty = new Set<string>();

  /** Brings `snap` up to date: copies the nodes changed since the last update. */
  updateSnapshot(snap: Snapshot): void {
    const rebuild = this.snapStructure !== this.structureVersion;
    let affinityChanged = false;
    if (rebuild) {
      snap.nodeInfoList = [];
      snap.byName.clear();
      snap.indexByName.clear();
      for (const ni of this.nodes.values()) {
        if (!ni.node) continue;
        let copy = snap.byName.get(ni.name);
        if (!copy || this.dirty.has(ni.name) || ni.generation > snap.generation) copy = ni.clone();
        snap.byName.set(ni.name, copy);
        snap.indexByName.set(ni.name, snap.nodeInfoList.length);
        snap.nodeInfoList.push(copy);
        if (ni.generation > snap.generation) snap.generation = ni.generation;
      }
      snap.table.fill(snap.nodeInfoList);
    } else {
      for (const name of this.dirty) {
        const ni = this.nodes.get(name);
        const i = snap.indexByName.get(name);
        if (!ni?.node || i === undefined) continue;
        const old = snap.nodeInfoList[i]!;
        const copy = ni.clone();
        snap.nodeInfoList[i] = copy;
        snap.byName.set(name, copy);
        snap.table.write(i, copy);
        if (ni.generation > snap.generation) snap.generation = ni.generation;
        affinityChanged ||=
          (old.podsWithAffinity.length > 0) !== (copy.podsWithAffinity.length > 0) ||
          (old.podsWithRequiredAntiAffinity.length > 0) !== (copy.podsWithRequiredAntiAffinity.length > 0) ||
          copy.podsWithAffinity.length > 0 ||
          copy.podsWithRequiredAntiAffinity.length > 0;
      }
    }
    this.dirty.clear();
    const imagesChanged = this.snapImages !== this.imagesVersion;
    if (rebuild || affinityChanged || imagesChanged) snap.rebuildLists(imagesChanged);
    this.snapStructure = this.structureVersion;
    this.snapImages = this.imagesVersion;
  }
}
