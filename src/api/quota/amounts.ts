/**
 * Quota arithmetic: resource lists (`{pods: '3', 'requests.cpu': '500m'}`) as exact amounts.
 *
 * Contract: an amount is a bigint of thousandths (milli-units), so cpu millicores and byte counts
 * add and compare exactly however many objects are summed (a float sum of 10,000 pods would not).
 * Strings come in through the project's one quantity parser (src/api/validation/quantity.ts) and
 * go out in the canonical form the established API writes: `500m`, `2`, `1Gi` (binary suffixes when
 * the resource was written with them), `0`.
 */
import { parseQuantity } from '../validation/quantity.js';

export type ResourceName = string;

/** Amounts by resource name, with the suffix family each was first written in. */
export class QuotaAmounts {
  readonly milli = new Map<ResourceName, bigint>();
  private readonly binary = new Set<ResourceName>();

  static fromList(list: Readonly<Record<string, unknown>> | undefined): QuotaAmounts {
    const out = new QuotaAmounts();
    for (const [k, v] of Object.entries(list ?? {})) out.addQuantity(k, v);
    return out;
  }

  /** Adds a quantity (string or number); an unparseable one counts as 0 (validation refused it already). */
  addQuantity(name: ResourceName, q: unknown, times = 1n): this {
    this.addMilli(name, toMilli(q) * times, typeof q === 'string' && /i$/.test(q.trim()));
    return this;
  }

  addMilli(name: ResourceName, milli: bigint, binary = false): this {
    const had = this.milli.has(name);
    this.milli.set(name, (this.milli.get(name) ?? 0n) + milli);
    if (!had && binary) this.binary.add(name);
    return this;
  }

  /** `this + other` for every name of either (names of `only`, when given). */
  plus(other: QuotaAmounts, only?: ReadonlySet<ResourceName>): QuotaAmounts {
    const out = this.copy(only);
    for (const [k, v] of other.milli) if (!only || only.has(k)) out.addMilli(k, v, other.binary.has(k));
    return out;
  }

  /** Adds `other` into this one (names of `only`, when given): the in-place `plus`, for long sums. */
  addAll(other: QuotaAmounts, only?: ReadonlySet<ResourceName>): this {
    for (const [k, v] of other.milli) if (!only || only.has(k)) this.addMilli(k, v, other.binary.has(k));
    return this;
  }

  /** `this - other` for every name of either. */
  minus(other: QuotaAmounts): QuotaAmounts {
    const out = this.copy();
    for (const [k, v] of other.milli) out.addMilli(k, -v, other.binary.has(k));
    return out;
  }

  copy(only?: ReadonlySet<ResourceName>): QuotaAmounts {
    const out = new QuotaAmounts();
    for (const [k, v] of this.milli) if (!only || only.has(k)) out.addMilli(k, v, this.binary.has(k));
    return out;
  }

  get(name: ResourceName): bigint {
    return this.milli.get(name) ?? 0n;
  }

  /** Whether the amount was written with a binary suffix (`Mi`, `Gi`): it is given back so. */
  isBinary(name: ResourceName): boolean {
    return this.binary.has(name);
  }

  has(name: ResourceName): boolean {
    return this.milli.has(name);
  }

  names(): ResourceName[] {
    return [...this.milli.keys()];
  }

  /** Whether every amount is zero (or there is none). */
  isZero(): boolean {
    for (const v of this.milli.values()) if (v !== 0n) return false;
    return true;
  }

  /** The canonical string of one amount. */
  format(name: ResourceName): string {
    return formatMilli(this.get(name), this.binary.has(name));
  }

  /** As a resource list (names sorted, as the established API writes maps). */
  toList(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const k of this.names().sort()) out[k] = this.format(k);
    return out;
  }

  /** `a=1,b=2Gi` for the given names, sorted: the established admission message form. */
  pretty(names: Iterable<ResourceName>): string {
    return [...new Set(names)].sort().map((k) => `${k}=${this.format(k)}`).join(',');
  }
}

export function toMilli(q: unknown): bigint {
  const v = parseQuantity(q);
  if (v === undefined || !Number.isFinite(v)) return 0n;
  // Up: a request of 0.5m cpu is one millicore, as the established quantity rounds.
  return BigInt(Math.ceil(Math.round(v * 1e6) / 1e3));
}

const DECIMAL: readonly [string, bigint][] = [['E', 10n ** 18n], ['P', 10n ** 15n], ['T', 10n ** 12n], ['G', 10n ** 9n], ['M', 10n ** 6n], ['k', 10n ** 3n]];
const BINARY: readonly [string, bigint][] = [['Ei', 1n << 60n], ['Pi', 1n << 50n], ['Ti', 1n << 40n], ['Gi', 1n << 30n], ['Mi', 1n << 20n], ['Ki', 1n << 10n]];

/** The canonical form of an amount: `1500m`, `2`, `3k`, `1Gi`, `0`. */
export function formatMilli(milli: bigint, binary: boolean): string {
  if (milli === 0n) return '0';
  if (milli % 1000n !== 0n) return `${milli}m`;
  const units = milli / 1000n;
  const neg = units < 0n;
  const abs = neg ? -units : units;
  for (const [suffix, size] of binary ? BINARY : DECIMAL) {
    if (abs % size === 0n) return `${neg ? '-' : ''}${abs / size}${suffix}`;
  }
  return `${units}`;
}
