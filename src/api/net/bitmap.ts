/**
 * The allocation bitmap of one range (cluster IPs and node ports in the API server, node pod CIDRs
 * in the nodeipam controller, pod IPs on a simulated node): bit i set = offset i taken, in the byte
 * layout of the established RangeAllocation `data` (bit i is bit i%8 of byte i/8, i.e. the big.Int
 * bytes little-end first). Two ways to choose a free offset, each the established one of its user:
 * `pickFree` random, in the upper band first so the lower band stays free for addresses users pick
 * themselves (the ServiceIPStaticSubrange / ServiceNodePortStaticSubrange split); `nextFree` the
 * first free at or after a candidate, wrapping (the node CIDR set's round robin).
 */
import { randomInt } from 'node:crypto';

export class Bitmap {
  readonly size: number;
  private bytes: Uint8Array;
  private used = 0;

  constructor(size: number, data?: Uint8Array) {
    this.size = size;
    this.bytes = new Uint8Array(Math.ceil(size / 8));
    if (data) {
      this.bytes.set(data.subarray(0, this.bytes.length));
      // Bits past `size` (a range that shrank) are not ours to keep.
      for (let i = size; i < this.bytes.length * 8; i++) this.bytes[i >> 3]! &= ~(1 << (i & 7));
      for (const b of this.bytes) this.used += popcount(b);
    }
  }

  has(i: number): boolean {
    return i >= 0 && i < this.size && (this.bytes[i >> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Sets bit i; false when it was already set. */
  set(i: number): boolean {
    if (this.has(i)) return false;
    this.bytes[i >> 3]! |= 1 << (i & 7);
    this.used++;
    return true;
  }

  /** Clears bit i; false when it was not set. */
  clear(i: number): boolean {
    if (!this.has(i)) return false;
    this.bytes[i >> 3]! &= ~(1 << (i & 7));
    this.used--;
    return true;
  }

  get count(): number {
    return this.used;
  }

  get free(): number {
    return this.size - this.used;
  }

  /** The set offsets, ascending. */
  *offsets(): Generator<number> {
    for (let byte = 0; byte < this.bytes.length; byte++) {
      const b = this.bytes[byte]!;
      if (b === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (b & (1 << bit)) yield byte * 8 + bit;
    }
  }

  /** A copy of the bytes, trailing zero bytes dropped (the established encoding of a big.Int). */
  data(): Uint8Array {
    let end = this.bytes.length;
    while (end > 0 && this.bytes[end - 1] === 0) end--;
    return this.bytes.slice(0, end);
  }

  /** A copy (one per batch of changes: a byte copy, no recount). */
  clone(): Bitmap {
    const copy = new Bitmap(0);
    (copy as { size: number }).size = this.size;
    copy.bytes = this.bytes.slice();
    copy.used = this.used;
    return copy;
  }

  /**
   * A free offset, or undefined when full: a random start in [offset, size) scanned upwards with
   * wrap-around inside that band, then the same in [0, offset). `bandStart` 0 scans the whole range.
   */
  pickFree(bandStart: number): number | undefined {
    if (this.used >= this.size) return undefined;
    const upper = this.scan(bandStart, this.size);
    return upper ?? this.scan(0, bandStart);
  }

  /** The first free offset at or after `from` (wrapping to 0), or undefined when full. */
  nextFree(from: number): number | undefined {
    if (this.used >= this.size) return undefined;
    const start = from >= 0 && from < this.size ? from : 0;
    for (let k = 0; k < this.size; k++) {
      let i = start + k;
      if (i >= this.size) i -= this.size;
      if ((i & 7) === 0 && this.bytes[i >> 3] === 0xff && i + 8 <= this.size) {
        k += 7;
        continue;
      }
      if (!this.has(i)) return i;
    }
    return undefined;
  }

  private scan(from: number, to: number): number | undefined {
    const span = to - from;
    if (span <= 0) return undefined;
    const start = from + randomInt(span);
    for (let k = 0; k < span; k++) {
      let i = start + k;
      if (i >= to) i -= span;
      // Skip full bytes quickly.
      if ((i & 7) === 0 && this.bytes[i >> 3] === 0xff && i + 8 <= to) {
        k += 7;
        continue;
      }
      if (!this.has(i)) return i;
    }
    return undefined;
  }
}

function popcount(b: number): number {
  let n = 0;
  for (let x = b; x; x &= x - 1) n++;
  return n;
}
