/**
 * The ownership graph the garbage collector keeps from its informers: every object of every
 * watched resource by uid, with its ownerReferences, and the reverse index owner uid -> dependent
 * uids (owners need not be known: a dependent may point at an owner that never existed or is
 * gone). Each change returns the uids that must be looked at again:
 *
 * - an object with owners, when it appears or its owners change (one may be dangling);
 * - an object being deleted with the `orphan` or `foregroundDeletion` finalizer (work to do);
 * - the dependents of an object that is gone, or that starts a foreground deletion;
 * - the owners of a dependent that is gone or being deleted (a foreground owner may be unblocked).
 */
import type { OwnerReference, SvcObject } from '../../src/api/types.js';
import type { ResourceRef } from '../../src/client/types.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export interface GraphNode {
  uid: string;
  ref: ResourceRef;
  namespace: string;
  name: string;
  owners: readonly OwnerReference[];
  finalizers: readonly string[];
  beingDeleted: boolean;
}

export class OwnershipGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Every node (for the controller's initial pass and resync). */
  all(): IterableIterator<GraphNode> {
    return this.nodes.values();
  }

  /** The uids of objects naming `ownerUid` in their ownerReferences. */
  dependentsOf(ownerUid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const uid of this.dependents.get(ownerUid) ?? []) {
      const n = this.nodes.get(uid);
      if (n) out.push(n);
    }
    return out;
  }

  /** An object was added or changed: returns the uids to look at. */
  upsert(ref: ResourceRef, obj: SvcObject): string[] {
    const uid = obj.metadata.uid;
    if (!uid) return [];
    const prev = this.nodes.get(uid);
    const node: GraphNode = {
      uid,
      ref,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      owners: obj.metadata.ownerReferences ?? [],
      finalizers: obj.metadata.finalizers ?? [],
      beingDeleted: !!obj.metadata.deletionTimestamp,
    };
    this.nodes.set(uid, node);
    const out = new Set<string>();
    const ownersChanged = !prev || ownerUids(prev.owners) !== ownerUids(node.owners);
    if (ownersChanged) {
      for (const o of prev?.owners ?? []) this.dependents.get(o.uid)?.delete(uid);
      for (const o of node.owners) {
        let set = this.dependents.get(o.uid);
        if (!set) this.dependents.set(o.uid, (set = new Set()));
        set.add(uid);
      }
      if (node.owners.length) out.add(uid);
    }
    if (node.beingDeleted && (node.finalizers.includes(FINALIZER_ORPHAN) || node.finalizers.includes(FINALIZER_FOREGROUND))) out.add(uid);
    if (node.beingDeleted && node.finalizers.includes(FINALIZER_FOREGROUND) && !(prev?.beingDeleted && prev.finalizers.includes(FINALIZER_FOREGROUND))) {
      for (const d of this.dependents.get(uid) ?? []) out.add(d);
    }
    if (node.beingDeleted && !prev?.beingDeleted) for (const o of node.owners) out.add(o.uid);
    return [...out];
  }

  /** An object is gone: returns its dependents (now without that owner) and its owners (maybe unblocked). */
  remove(uid: string): string[] {
    const node = this.nodes.get(uid);
    if (!node) return [];
    this.nodes.delete(uid);
    for (const o of node.owners) this.dependents.get(o.uid)?.delete(uid);
    const out = new Set<string>([...(this.dependents.get(uid) ?? [])]);
    for (const o of node.owners) out.add(o.uid);
    // Dependents still point at the gone uid: keep the index while they do.
    if (!this.dependents.get(uid)?.size) this.dependents.delete(uid);
    return [...out];
  }

  /** Drops every node of a resource no longer served (its CRD deleted). */
  forgetResource(ref: ResourceRef): string[] {
    const out: string[] = [];
    for (const n of [...this.nodes.values()]) if (n.ref.group === ref.group && n.ref.resource === ref.resource) out.push(...this.remove(n.uid));
    return out;
  }
}

function ownerUids(owners: readonly OwnerReference[]): string {
  return owners.map((o) => `${o.uid}:${o.blockOwnerDeletion ? 1 : 0}`).join(',');
}
