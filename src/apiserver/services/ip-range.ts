/**
 * A Service CIDR as the cluster-IP allocator sees it: the addresses of `--service-cluster-ip-range`
 * numbered 0..size-1, as the established ipallocator numbers them. The network address is never
 * handed out, nor (IPv4) the broadcast address; an IPv6 range is capped at 65,536 addresses (a
 * bitmap in the store stays small). Offset 0 is the first usable address: the `kubernetes`
 * Service's.
 *
 * Addresses are bigints (src/api/net/ip-address.ts) so IPv4 and IPv6 share one code path.
 */
import { bigIntToIp, familyOf, ipToBigInt, type IPFamily } from '../../api/net/ip-address.js';

/** The largest IPv6 range the bitmap covers (the established allocator's cap). */
const IPV6_MAX = 65_536;
/** The largest range --service-cluster-ip-range may name: 20 host bits (the established check). */
export const MAX_CIDR_BITS = 20;

export class ServiceIPRange {
  readonly family: IPFamily;
  /** The CIDR as configured, normalized to its network address (`10.0.0.0/24`). */
  readonly cidr: string;
  readonly prefixLength: number;
  /** Usable addresses (bits of the bitmap). */
  readonly size: number;
  private readonly network: bigint;
  private readonly hostBits: bigint;

  constructor(cidr: string) {
    const slash = cidr.lastIndexOf('/');
    const ip = cidr.slice(0, slash);
    const family = familyOf(ip);
    const prefix = Number(cidr.slice(slash + 1));
    if (slash < 0 || !family || !Number.isInteger(prefix)) throw new Error(`invalid CIDR ${JSON.stringify(cidr)}`);
    const bits = family === 'IPv4' ? 32 : 128;
    this.family = family;
    this.prefixLength = prefix;
    this.hostBits = BigInt(bits - prefix);
    this.network = (ipToBigInt(ip) >> this.hostBits) << this.hostBits;
    this.cidr = `${bigIntToIp(this.network, family)}/${prefix}`;
    const hostBits = bits - prefix;
    // /31, /32, /127 and /128 leave nothing to hand out (as the established RangeSize says).
    let size = hostBits <= 1 ? 0 : hostBits >= 31 ? Number.MAX_SAFE_INTEGER : 2 ** hostBits;
    if (family === 'IPv6') size = Math.min(size, IPV6_MAX);
    size -= 1; // the network address
    if (family === 'IPv4' && hostBits > 1) size -= 1; // the broadcast address
    this.size = Math.max(0, size);
  }

  /** The offset of `ip` in the range, or undefined when outside (including the network and broadcast addresses). */
  offsetOf(ip: string): number | undefined {
    if (familyOf(ip) !== this.family) return undefined;
    const n = ipToBigInt(ip);
    if (n >> this.hostBits !== this.network >> this.hostBits) return undefined;
    const offset = n - this.network - 1n;
    return offset >= 0n && offset < BigInt(this.size) ? Number(offset) : undefined;
  }

  ipAt(offset: number): string {
    return bigIntToIp(this.network + 1n + BigInt(offset), this.family);
  }

  contains(ip: string): boolean {
    return this.offsetOf(ip) !== undefined;
  }
}
