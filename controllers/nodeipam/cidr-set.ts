/**
 * One cluster CIDR cut into node CIDRs of one mask size (the established CidrSet): subnet i is
 * `clusterNetwork + i * 2^(bits - nodeMask)`, and bit i of a Bitmap (src/api/net/bitmap.ts) says
 * whether it is taken.
 *
 * - `allocateNext` hands out the first free subnet at or after the next candidate, wrapping (a round
 *   robin: a released subnet is handed out again only after the others, so a node deleted and
 *   another created rarely share a CIDR in quick succession), and never one that is taken.
 * - `occupy` marks every subnet a CIDR overlaps (a node's existing podCIDR, the service range);
 *   a CIDR outside the cluster CIDR is an error naming both, as established.
 * - `release` frees them again.
 *
 * Limits as established: the node mask must not be shorter than the cluster mask; for IPv6 the node
 * mask may be at most 16 bits longer than the cluster mask (an uncompressed bitmap of 65,536 bits).
 * IPv4 has no such cap (a /8 cut into /30s is a 512 KiB bitmap).
 */
import { Bitmap } from '../../src/api/net/bitmap.js';
import { cidrsOverlap, cidrText, familyBits, lastAddress, parseCidr, type Cidr, type IPFamily } from '../../src/api/net/ip-address.js';

/** The established clusterSubnetMaxDiff (IPv6 only). */
const CLUSTER_SUBNET_MAX_DIFF = 16;

export class CidrSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CidrSetError';
  }
}

/** The established ErrCIDRRangeNoCIDRsRemaining text. */
export const NO_CIDRS_REMAINING = 'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range';

export class CidrSet {
  readonly family: IPFamily;
  /** The cluster CIDR, canonical. */
  readonly clusterCIDR: string;
  readonly nodeMaskSize: number;
  /** How many node CIDRs the cluster CIDR holds. */
  readonly maxCIDRs: number;
  private readonly cluster: Cidr;
  private readonly subnetShift: bigint;
  private readonly used: Bitmap;
  private nextCandidate = 0;

  constructor(clusterCIDR: string, nodeMaskSize: number) {
    const cluster = parseCidr(clusterCIDR);
    if (!cluster) throw new CidrSetError(`invalid CIDR address: ${clusterCIDR}`);
    const bits = familyBits(cluster.family);
    if (!Number.isInteger(nodeMaskSize) || nodeMaskSize < cluster.prefixLength || nodeMaskSize > bits) {
      throw new CidrSetError(`mask size of cluster CIDR ${cidrText(cluster)} must be less than or equal to the node CIDR mask size ${nodeMaskSize} (at most ${bits} for ${cluster.family})`);
    }
    if (cluster.family === 'IPv6' && nodeMaskSize - cluster.prefixLength > CLUSTER_SUBNET_MAX_DIFF) {
      throw new CidrSetError(`New CIDR set failed; the node CIDR size is too big: node mask /${nodeMaskSize} is more than ${CLUSTER_SUBNET_MAX_DIFF} bits longer than the cluster CIDR ${cidrText(cluster)}`);
    }
    this.cluster = cluster;
    this.family = cluster.family;
    this.clusterCIDR = cidrText(cluster);
    this.nodeMaskSize = nodeMaskSize;
    this.subnetShift = BigInt(bits - nodeMaskSize);
    this.maxCIDRs = 2 ** (nodeMaskSize - cluster.prefixLength);
    this.used = new Bitmap(this.maxCIDRs);
  }

  /** Node CIDRs taken. */
  get allocated(): number {
    return this.used.count;
  }

  get free(): number {
    return this.used.free;
  }

  /** The next free node CIDR, now taken; undefined when the range is full. */
  allocateNext(): string | undefined {
    const i = this.used.nextFree(this.nextCandidate);
    if (i === undefined) return undefined;
    this.used.set(i);
    this.nextCandidate = (i + 1) % this.maxCIDRs;
    return cidrText({ family: this.family, network: this.cluster.network + (BigInt(i) << this.subnetShift), prefixLength: this.nodeMaskSize });
  }

  /** Whether `cidr` lies (at least partly) in the cluster CIDR. */
  overlaps(cidr: string): boolean {
    const c = parseCidr(cidr);
    return c !== undefined && cidrsOverlap(c, this.cluster);
  }

  /** Marks every node CIDR `cidr` overlaps as taken; throws CidrSetError when it is outside the cluster CIDR. */
  occupy(cidr: string): void {
    const [begin, end] = this.indices(cidr);
    for (let i = begin; i <= end; i++) this.used.set(i);
  }

  /** Frees every node CIDR `cidr` overlaps; throws CidrSetError when it is outside the cluster CIDR. */
  release(cidr: string): void {
    const [begin, end] = this.indices(cidr);
    for (let i = begin; i <= end; i++) this.used.clear(i);
  }

  /** Whether every node CIDR `cidr` overlaps is taken (false when it is outside). */
  isTaken(cidr: string): boolean {
    try {
      const [begin, end] = this.indices(cidr);
      for (let i = begin; i <= end; i++) if (!this.used.has(i)) return false;
      return true;
    } catch {
      return false;
    }
  }

  /** The first and last node-CIDR index `cidr` covers (the established getBeginningAndEndIndices). */
  private indices(cidr: string): [number, number] {
    const c = parseCidr(cidr);
    if (!c || c.family !== this.family) throw new CidrSetError(`cidr ${cidr} is out the range of cluster cidr ${this.clusterCIDR}`);
    if (!cidrsOverlap(c, this.cluster)) throw new CidrSetError(`cidr ${cidr} is out the range of cluster cidr ${this.clusterCIDR}`);
    if (c.prefixLength <= this.cluster.prefixLength) return [0, this.maxCIDRs - 1];
    const index = (address: bigint) => Number((address - this.cluster.network) >> this.subnetShift);
    return [index(c.network), index(lastAddress(c))];
  }
}
