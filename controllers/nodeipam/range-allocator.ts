/**
 * The established RangeAllocator's bookkeeping, without I/O: one CidrSet per cluster CIDR (two when
 * dual-stack, primary first), the service ranges taken out of them, and which node holds which
 * CIDRs (by name and uid, so a node deleted and created again under the same name is a new node).
 *
 * Guarantees (the unit tests in test/controllers/nodeipam-allocator.test.ts):
 * - no CIDR is held by two nodes: `allocate` takes only free subnets, `occupy` marks a node's
 *   existing podCIDRs taken (at start: every node's, so a restarted controller rebuilds the bitmap
 *   before it hands anything out);
 * - `release` (a deleted node, or a write that failed) frees exactly the node's CIDRs;
 * - `allocate` on a full set takes nothing (a dual-stack node gets both families or neither).
 *
 * The controller (./index.ts) holds one allocator; JavaScript runs one reconcile step at a time, so
 * an allocation is never interleaved with another (the established allocator's lock).
 */
import { CidrSet, CidrSetError } from './cidr-set.js';

/** What a node holds (the CIDRs are canonical, in cluster-CIDR order). */
interface Holding {
  uid: string;
  cidrs: string[];
}

export type AllocateResult = { cidrs: string[] } | { full: string };

export class NodeCidrAllocator {
  readonly sets: readonly CidrSet[];
  private readonly nodes = new Map<string, Holding>();

  /** Throws CidrSetError for a bad cluster CIDR or mask (the options check these first). */
  constructor(clusterCidrs: readonly string[], maskSizes: readonly number[], serviceCidrs: readonly string[] = []) {
    this.sets = clusterCidrs.map((c, i) => new CidrSet(c, maskSizes[i]!));
    // The established filterOutServiceRange: a service range inside (or over) a cluster CIDR is
    // never handed to a node.
    for (const svc of serviceCidrs) for (const set of this.sets) if (set.overlaps(svc)) set.occupy(svc);
  }

  /** The CIDRs `name` holds, if any. */
  held(name: string): readonly string[] | undefined {
    return this.nodes.get(name)?.cidrs;
  }

  /** Whether `name` holds CIDRs given to the node with this uid. */
  holds(name: string, uid: string): boolean {
    return this.nodes.get(name)?.uid === uid;
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  /**
   * Marks a node's existing podCIDRs taken (the established occupyCIDRs). Returns the problems, one
   * per CIDR that could not be marked (not a CIDR, no cluster CIDR at its index, out of range,
   * already taken):
   * those are reported, and the node keeps them (a node's podCIDRs never change once set).
   */
  occupy(name: string, uid: string, podCIDRs: readonly string[]): string[] {
    const problems: string[] = [];
    const taken: string[] = [];
    podCIDRs.forEach((cidr, idx) => {
      const set = this.sets[idx];
      if (!set) {
        problems.push(`node:${name} has an allocated cidr: ${cidr} at index:${idx} that does not exist in cluster cidrs configuration`);
        return;
      }
      if (set.isTaken(cidr)) {
        // Another node's (or the service range's): kept marked, and not ours to free later.
        problems.push(`cidr ${cidr} of node ${name} is already taken (by another node or the service range)`);
        return;
      }
      try {
        set.occupy(cidr);
        taken.push(cidr);
      } catch (e) {
        if (!(e instanceof CidrSetError)) throw e;
        problems.push(`failed to mark cidr[${cidr}] at idx [${idx}] as occupied for node: ${name}: ${e.message}`);
      }
    });
    this.nodes.set(name, { uid, cidrs: taken });
    return problems;
  }

  /** The next CIDR of every cluster CIDR for `name`, now taken; or, when one set is full, nothing taken and which is full. */
  allocate(name: string, uid: string): AllocateResult {
    const got: string[] = [];
    for (const set of this.sets) {
      const cidr = set.allocateNext();
      if (cidr === undefined) {
        got.forEach((c, i) => this.sets[i]!.release(c));
        return { full: set.clusterCIDR };
      }
      got.push(cidr);
    }
    this.nodes.set(name, { uid, cidrs: got });
    return { cidrs: got };
  }

  /** Frees what `name` holds (nothing when it holds nothing); returns the CIDRs freed. */
  release(name: string): string[] {
    const h = this.nodes.get(name);
    if (!h) return [];
    this.nodes.delete(name);
    // Each set is one family, so the set a CIDR overlaps is the one it came from.
    for (const cidr of h.cidrs) this.sets.find((s) => s.overlaps(cidr))?.release(cidr);
    return h.cidrs;
  }
}
