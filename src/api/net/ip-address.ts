/**
 * IP addresses and CIDRs as numbers, for every allocator (the API server's Service ranges, the
 * nodeipam controller's node CIDRs, the simulated nodes' pod IPs): addresses are bigints so IPv4
 * and IPv6 share one code path; text is parsed and printed in the canonical forms (dotted quad,
 * RFC 5952 IPv6) so addresses compare as strings.
 */
import { isIP } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';



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

/** Address bits of a family. */
export function familyBits(family: IPFamily): number {
  return family === 'IPv4' ? 32 : 128;
}

/** A parsed CIDR: its family, network address (host bits cleared) and prefix length. */
export interface Cidr {
  family: IPFamily;
  network: bigint;
  prefixLength: number;
}

/** Parses `ip/prefix` (host bits are cleared, as the established ParseCIDR does); undefined when it is not a CIDR. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return undefined;
  const family = familyOf(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!family || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefixLength = Number(prefixText);
  const bits = familyBits(family);
  if (prefixLength > bits) return undefined;
  const host = BigInt(bits - prefixLength);
  return { family, network: (ipToBigInt(text.slice(0, slash)) >> host) << host, prefixLength };
}

/** The canonical text of a CIDR (`10.244.3.0/24`, `fd00:10:244:3::/64`). */
export function cidrText(c: Cidr): string {
  return `${bigIntToIp(c.network, c.family)}/${c.prefixLength}`;
}

/** The last address of a CIDR (its broadcast address for IPv4). */
export function lastAddress(c: Cidr): bigint {
  return c.network | ((1n << BigInt(familyBits(c.family) - c.prefixLength)) - 1n);
}

/** Whether two CIDRs share any address (one contains the other's network address). */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  return (a.network <= b.network && b.network <= lastAddress(a)) || (b.network <= a.network && a.network <= lastAddress(b));
}
