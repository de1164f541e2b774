/**
 * A Service CIDR as the cluster-IP allocator sees it: the addresses of `--service-cluster-ip-range`
 * numbered 0..size-1, as the established ipallocator numbers them. The network address is never
 * handed out, nor (IPv4) the broadcast address; an IPv6 range is capped at 65,536 addresses (a
 * bitmap in the store stays small). Offset 0 is the first usable address: the `kubernetes`
 * Service's.
 *
 * Addresses are bigints internally so IPv4 and IPv6 share one code path; text is parsed and
 * printed in the canonical forms (dotted quad, RFC 5952 IPv6) so a Service's clusterIP compares
 * as a string.
 */
import { isIP } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

/** The largest IPv6 range the bitmap covers (the established allocator's cap). */
const IPV6_MAX = 65_536;
/** The largest range --service-cluster-ip-range may name: 20 host bits (the established check). */
export const MAX_CIDR_BITS = 20;

export function familyOf(ip: string): IPFamily | undefined {
  const f = isIP(ip);
  return f === 4 ? 'IPv4' : f === 6 ? 'IPv6' : undefined;
}

/** An address as a bigint (IPv4-mapped IPv6 forms are not accepted: Services use plain addresses). */
export function ipToBigInt(ip: string): bigint {
  if (isIP(ip) === 4) {
    return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  }
  let text = ip;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two groups.
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = ipToBigInt(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

export function bigIntToIp(n: bigint, family: IPFamily): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
  const groups: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(Number((n >> s) & 0xffffn));
  // RFC 5952: the longest run (2 or more) of zero groups becomes '::', the first when tied.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The canonical text of an address (so `10.0.0.010`-like or uncompressed IPv6 forms compare equal), or undefined. */
export function canonicalIp(ip: string): string | undefined {
  const family = familyOf(ip);
  return family ? bigIntToIp(ipToBigInt(ip), family) : undefined;
}

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
