/**
 * The pod addresses of one simulated node, as a host-local IPAM plugin would hand them out.
 *
 * - With `spec.podCIDR(s)` (the nodeipam controller's, or set by hand): one range per CIDR (two
 *   when dual-stack, in the node's order, so `status.podIPs` has one address of each family, the
 *   primary first). The network address and the first one (the bridge's gateway) are never handed
 *   out, nor the IPv4 broadcast address; an IPv6 range uses its first 65,536 addresses. Addresses
 *   go round robin (the next free after the last one given), so a freed address is taken again
 *   only after the others, and never one still in use on this node.
 * - Without a podCIDR (no nodeipam controller running): today's behaviour, a /24 of its own per
 *   node, `10.(244 + index/256 % 8).(index % 256).0/24`, addresses .2 to .254.
 *
 * The CIDRs arrive after registration (the controller writes them once it sees the node), so
 * `setCidrs` can switch ranges while pods run: those keep their addresses, and an address of
 * theirs inside a new range stays taken there (the first node CIDR handed out is often the very
 * /24 of the fallback), so no two pods on a node ever share one.
 */
import { Bitmap } from '../api/net/bitmap.js';
import { bigIntToIp, cidrText, familyBits, familyOf, ipToBigInt, parseCidr, type Cidr } from '../api/net/ip-address.js';

/** The largest range a node hands out from (the IPv6 /64 of a node is far more than any node runs). */
const MAX_ADDRESSES = 65_536;
/** Offsets below this are the network address and the gateway. */
const FIRST_HOST = 2;

class AddressRange {
  readonly cidr: string;
  private readonly c: Cidr;
  private readonly used: Bitmap;
  private next = 0;

  constructor(c: Cidr) {
    this.c = c;
    this.cidr = cidrText(c);
    const hostBits = familyBits(c.family) - c.prefixLength;
    const total = hostBits >= 17 ? MAX_ADDRESSES : 2 ** hostBits;
    // Offsets count from the first host address; IPv4 also keeps its broadcast address.
    const size = total - FIRST_HOST - (c.family === 'IPv4' && total < MAX_ADDRESSES ? 1 : 0);
    this.used = new Bitmap(Math.max(0, size));
  }

  take(): string | undefined {
    const i = this.used.nextFree(this.next);
    if (i === undefined) return undefined;
    this.used.set(i);
    this.next = (i + 1) % this.used.size;
    return bigIntToIp(this.c.network + BigInt(FIRST_HOST + i), this.c.family);
  }

  /** Gives `ip` back; false when it is not of this range. */
  give(ip: string): boolean {
    const i = this.offsetOf(ip);
    if (i === undefined) return false;
    this.used.clear(i);
    return true;
  }

  /** Marks `ip` taken (an address handed out from an earlier range); false when it is not of this range. */
  mark(ip: string): boolean {
    const i = this.offsetOf(ip);
    if (i === undefined) return false;
    this.used.set(i);
    return true;
  }

  /** The addresses handed out. */
  *inUse(): Generator<string> {
    for (const i of this.used.offsets()) yield bigIntToIp(this.c.network + BigInt(FIRST_HOST + i), this.c.family);
  }

  private offsetOf(ip: string): number | undefined {
    if (familyOf(ip) !== this.c.family) return undefined;
    const offset = ipToBigInt(ip) - this.c.network - BigInt(FIRST_HOST);
    return offset < 0n || offset >= BigInt(this.used.size) ? undefined : Number(offset);
  }

  get free(): number {
    return this.used.free;
  }
}

export class PodIPPool {
  private ranges: AddressRange[];
  private key: string;

  /** `index`: the node's place in its fleet (the fallback range). */
  constructor(private readonly index: number) {
    this.ranges = [this.fallback()];
    this.key = '';
  }

  /** The CIDRs addresses come from now. */
  get cidrs(): string[] {
    return this.ranges.map((r) => r.cidr);
  }

  /** Follows the node's `spec.podCIDRs` (empty: the fallback range). Unparsable CIDRs are skipped. */
  setCidrs(podCIDRs: readonly string[]): void {
    const key = podCIDRs.join(',');
    if (key === this.key) return;
    this.key = key;
    const parsed = podCIDRs.map((t) => parseCidr(t)).filter((c): c is Cidr => c !== undefined);
    const next = parsed.length ? parsed.map((c) => new AddressRange(c)) : [this.fallback()];
    for (const old of this.ranges) for (const ip of old.inUse()) next.some((r) => r.mark(ip));
    this.ranges = next;
  }

  /** One address per range (primary first); undefined when a range is exhausted (nothing is taken then). */
  take(): string[] | undefined {
    const got: string[] = [];
    for (const r of this.ranges) {
      const ip = r.take();
      if (ip === undefined) {
        got.forEach((g, i) => this.ranges[i]!.give(g));
        return undefined;
      }
      got.push(ip);
    }
    return got;
  }

  /** Gives a pod's addresses back (an address of a range no longer the node's is simply dropped). */
  give(ips: readonly string[]): void {
    for (const ip of ips) this.ranges.some((r) => r.give(ip));
  }

  private fallback(): AddressRange {
    return new AddressRange(parseCidr(`10.${244 + ((this.index >> 8) & 7)}.${this.index & 255}.0/24`)!);
  }
}
