/**
 * Nominated pods: preemptors waiting for their victims to leave a node (`status.nominatedNodeName`).
 * Filtering counts them on their node for pods of lower or equal priority, so the room preemption
 * made is not taken by someone else in the meantime.
 */
import type { PodInfo } from './framework/pod-info.js';

export class Nominator {
  private readonly byNode = new Map<string, PodInfo[]>();
  private readonly nodeOfPod = new Map<string, string>();

  /** Records (or moves, or with `nodeName` empty clears) a pod's nomination. */
  set(pod: PodInfo, nodeName: string | undefined): void {
    this.delete(pod.key);
    if (!nodeName) return;
    let list = this.byNode.get(nodeName);
    if (!list) this.byNode.set(nodeName, (list = []));
    list.push(pod);
    this.nodeOfPod.set(pod.key, nodeName);
  }

  delete(podKey: string): void {
    const node = this.nodeOfPod.get(podKey);
    if (node === undefined) return;
    this.nodeOfPod.delete(podKey);
    const list = this.byNode.get(node);
    if (!list) return;
    const rest = list.filter((p) => p.key !== podKey);
    if (rest.length) this.byNode.set(node, rest);
    else this.byNode.delete(node);
  }

  /** Nodes with at least one nominated pod (0: a cycle need not look per node). */
  get nodeCount(): number {
    return this.byNode.size;
  }

  podsOn(nodeName: string): readonly PodInfo[] {
    return this.byNode.get(nodeName) ?? NONE;
  }

  nodeOf(podKey: string): string | undefined {
    return this.nodeOfPod.get(podKey);
  }

  get size(): number {
    return this.nodeOfPod.size;
  }
}

const NONE: readonly PodInfo[] = Object.freeze([]);
