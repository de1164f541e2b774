/**
 * A Protobuf reader tuned for API objects, which are mostly short ASCII strings. Short ones are
 * shared through an intern table (a hit costs no allocation), a miss is a substring of the body
 * viewed once as latin1; longer ASCII strings are copied out with one native call (a substring
 * would keep the whole body alive); non-ASCII strings go through UTF-8 decoding.
 */
/** Strings up to this length are shared through the intern table; longer ones are copied out. */
const SHORT = 12;
const TABLE_BITS = 12;
/**
 * One instance per short value (`True`, `TCP`, `Running`, label keys ...), as JSON.parse does for
 * short values, so the decoded tree holds far fewer strings (most of what the young generation has
 * to copy while a large list is being built). A direct-mapped table keyed by a hash of the bytes:
 * a hit is found without creating a string at all; a collision just replaces the entry.
 */
const interned: (string | undefined)[] = new Array<string | undefined>(1 << TABLE_BITS).fill(undefined);

interface Latin1Slicer {
  latin1Slice(start: number, end: number): string;
}

export class WireReader {
  pos = 0;
  private latin1: string | undefined;

  constructor(readonly buf: Buffer) {}

  get length(): number {
    return this.buf.length;
  }

  /** Varint as an unsigned 32-bit value (longer varints keep their low 32 bits, as int32 requires). */
  uint32(): number {
    const b = this.buf;
    let p = this.pos;
    let c = b[p++]!;
    let v = c & 127;
    if (c > 127) {
      c = b[p++]!;
      v |= (c & 127) << 7;
      if (c > 127) {
        c = b[p++]!;
        v |= (c & 127) << 14;
        if (c > 127) {
          c = b[p++]!;
          v |= (c & 127) << 21;
          if (c > 127) {
            c = b[p++]!;
            v |= (c & 15) << 28;
            while (c > 127) c = b[p++]!;
          }
        }
      }
    }
    if (p > b.length) throw new RangeError('varint runs past the end of the message');
    this.pos = p;
    return v >>> 0;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  double(): number {
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  private end(len: number): number {
    const e = this.pos + len;
    if (e > this.buf.length) throw new RangeError('a length-delimited field runs past the end of the message');
    return e;
  }

  bytes(): Buffer {
    const len = this.uint32();
    const e = this.end(len);
    const out = this.buf.subarray(this.pos, e);
    this.pos = e;
    return out;
  }

  string(): string {
    const len = this.uint32();
    const a = this.pos;
    const e = this.end(len);
    this.pos = e;
    const b = this.buf;
    if (len > SHORT) {
      for (let p = a; p < e; p++) if (b[p]! > 127) return b.toString('utf8', a, e);
      // Buffer's own method, without toString's argument handling (a tenth of decoding otherwise).
      return (b as unknown as Latin1Slicer).latin1Slice(a, e);
    }
    let h = len;
    for (let p = a; p < e; p++) {
      const c = b[p]!;
      if (c > 127) return b.toString('utf8', a, e);
      h = Math.imul(h ^ c, 0x01000193);
    }
    const slot = (h ^ (h >>> TABLE_BITS)) & ((1 << TABLE_BITS) - 1);
    const known = interned[slot];
    if (known !== undefined && known.length === len) {
      let i = 0;
      while (i < len && known.charCodeAt(i) === b[a + i]) i++;
      if (i === len) return known;
    }
    const s = (this.latin1 ??= b.toString('latin1')).substring(a, e);
    interned[slot] = s;
    return s;
  }

  skipType(wireType: number): void {
    switch (wireType) {
      case 0:
        while (this.buf[this.pos++]! & 128) if (this.pos >= this.buf.length) throw new RangeError('varint runs past the end');
        break;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.end(this.uint32());
        break;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new RangeError(`unsupported wire type ${wireType} at offset ${this.pos}`);
    }
    if (this.pos > this.buf.length) throw new RangeError('a field runs past the end of the message');
  }
}
