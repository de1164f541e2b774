/**
 * `NodeInfo`: one node with the pods the scheduler counts on it (bound and assumed) and running
 * totals kept up to date on every add/remove, so that filters and scores read sums instead of
 * walking pods. `generation` changes on every mutation; the snapshot copies only changed nodes.
 */
import type { HostPort, PodInfo } from './pod-info.js';
import type { Node, Taint } from './objects.js';
import { addResources, emptyResources, nodeAllocatable, type Resources } from './resources.js';

const NO_TAINTS: readonly Taint[] = Object.freeze([]);

let nextGeneration = 1;
/** A process-wide increasing counter: a NodeInfo's generation says when it last changed. */
export function newGeneration(): number {
  return nextGeneration++;
}

export class NodeInfo {
  node: Node | undefined;
  readonly name: string;
  /** `spec.unschedulable` of the node (cordoned), kept here so the filter need not reach into the node. */
  unschedulable = false;
  /** The node's taints (a shared empty list when it has none), without reaching into the node. */
  taints: readonly Taint[] = NO_TAINTS;
  pods: PodInfo[] = [];
  /** Pods with any (required or preferred) pod affinity or anti-affinity. */
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  requested: Resources = emptyResources();
  /** Requests with scoring's non-zero defaults. */
  nonZeroRequested: Resources = emptyResources();
  allocatable: Resources = emptyResources();
  /** `protocol/port` -> host IPs in use (`0.0.0.0` is every IP). */
  usedPorts = new Map<string, Set<string>>();
  /** Image name -> size in bytes, from node.status.images. */
  images = new Map<string, number>();
  /** `namespace/claim` -> number of pods on the node using it. */
  pvcRefCounts = new Map<string, number>();
  generation = newGeneration();

  constructor(name: string, node?: Node) {
    this.name = name;
    if (node) this.setNode(node);
  }

  setNode(node: Node): void {
    this.node = node;
    this.unschedulable = node.spec?.unschedulable === true;
    this.taints = node.spec?.taints?.length ? node.spec.taints : NO_TAINTS;
    this.allocatable = nodeAllocatable(node.status);
    this.images = new Map();
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) this.images.set(name, img.sizeBytes ?? 0);
    }
    this.generation = newGeneration();
  }

  addPod(pi: PodInfo): void {
    this.pods.push(pi);
    if (pi.requiredAffinity.length || pi.requiredAntiAffinity.length || pi.preferredAffinity.length || pi.preferredAntiAffinity.length) this.podsWithAffinity.push(pi);
    if (pi.requiredAntiAffinity.length) this.podsWithRequiredAntiAffinity.push(pi);
    this.account(pi, 1);
  }

  /** Removes the pod with `uid`; returns whether it was there. */
  removePod(uid: string): boolean {
    const i = this.pods.findIndex((p) => p.uid === uid);
    if (i < 0) return false;
    const pi = this.pods[i]!;
    // Swap-remove: order of pods on a node carries no meaning.
    this.pods[i] = this.pods[this.pods.length - 1]!;
    this.pods.pop();
    this.podsWithAffinity = this.podsWithAffinity.filter((p) => p.uid !== uid);
    this.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.filter((p) => p.uid !== uid);
    this.account(pi, -1);
    return true;
  }

  private account(pi: PodInfo, sign: 1 | -1): void {
    addResources(this.requested, pi.requests, sign);
    addResources(this.nonZeroRequested, pi.nonZeroRequests, sign);
    for (const hp of pi.hostPorts) this.usePort(hp, sign);
    for (const v of pi.pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (!claim) continue;
      const key = `${pi.pod.metadata.namespace ?? ''}/${claim}`;
      const n = (this.pvcRefCounts.get(key) ?? 0) + sign;
      if (n > 0) this.pvcRefCounts.set(key, n);
      else this.pvcRefCounts.delete(key);
    }
    this.generation = newGeneration();
  }

  private usePort(hp: HostPort, sign: 1 | -1): void {
    const k = `${hp.protocol}/${hp.port}`;
    let ips = this.usedPorts.get(k);
    if (sign > 0) {
      if (!ips) this.usedPorts.set(k, (ips = new Set()));
      ips.add(hp.ip);
    } else if (ips) {
      ips.delete(hp.ip);
      if (ips.size === 0) this.usedPorts.delete(k);
    }
  }

  /** Whether `hp` conflicts with a port in use (same protocol and port, overlapping IP). */
  portConflicts(hp: HostPort): boolean {
    const ips = this.usedPorts.get(`${hp.protocol}/${hp.port}`);
    if (!ips || ips.size === 0) return false;
    return hp.ip === '0.0.0.0' || ips.has('0.0.0.0') || ips.has(hp.ip);
  }

  /** A copy for a snapshot: pod lists are copied, pod infos shared (they are immutable). */
  clone(): NodeInfo {
    const c = new NodeInfo(this.name);
    c.node = this.node;
    c.unschedulable = this.unschedulable;
    c.taints = this.taints;
    c.pods = [...this.pods];
    c.podsWithAffinity = [...this.podsWithAffinity];
    c.podsWithRequiredAntiAffinity = [...this.podsWithRequiredAntiAffinity];
    c.requested = cloneResources(this.requested);
    c.nonZeroRequested = cloneResources(this.nonZeroRequested);
    c.allocatable = cloneResources(this.allocatable);
    for (const [k, v] of this.usedPorts) c.usedPorts.set(k, new Set(v));
    c.images = this.images;
    c.pvcRefCounts = new Map(this.pvcRefCounts);
    c.generation = this.generation;
    return c;
  }
}

function cloneResources(r: Resources): Resources {
  return { ...r, scalar: new Map(r.scalar) };
}
