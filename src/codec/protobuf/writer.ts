/**
 * A Protobuf writer over one growing Buffer. protobufjs' Writer records an operation object per
 * value and replays them at the end; for whole lists of objects that allocation dominated the
 * encoding time. Here a nested message reserves one length byte and, when its body turns out
 * longer than 127 bytes, is shifted right to make room for the longer length (one memmove).
 */
const TWO_32 = 2 ** 32;

export class WireWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly starts: number[] = [];

  constructor(initialSize = 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  uint32(v: number): this {
    this.ensure(5);
    const b = this.buf;
    let p = this.pos;
    while (v > 127) {
      b[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[p++] = v;
    this.pos = p;
    return this;
  }

  /** Varint of a non-negative integer up to 2^53, or a negative one as 64-bit two's complement. */
  int64(v: number): this {
    if (v >= 0 && v < TWO_32) return this.uint32(v >>> 0);
    this.ensure(10);
    const b = this.buf;
    let p = this.pos;
    if (v < 0) {
      let u = BigInt.asUintN(64, BigInt(Math.trunc(v)));
      while (u > 127n) {
        b[p++] = Number(u & 127n) | 128;
        u >>= 7n;
      }
      b[p++] = Number(u);
    } else {
      while (v > 127) {
        b[p++] = (v % 128) | 128;
        v = Math.floor(v / 128);
      }
      b[p++] = v;
    }
    this.pos = p;
    return this;
  }

  int32(v: number): this {
    return v >= 0 ? this.uint32(v) : this.int64(v);
  }

  bool(v: boolean): this {
    return this.uint32(v ? 1 : 0);
  }

  double(v: number): this {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
    return this;
  }

  string(s: string): this {
    const n = s.length;
    if (n < 48) {
      // Short ASCII fast path (cheaper than a native call): length byte, then one byte per character.
      this.ensure(n + 1);
      const b = this.buf;
      let p = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) break;
        b[p++] = c;
      }
      if (i === n) {
        b[this.pos] = n;
        this.pos = p;
        return this;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.uint32(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
    return this;
  }

  /** Raw bytes, or a base64 string decoded to them. */
  bytes(v: Uint8Array | string): this {
    const data = typeof v === 'string' ? Buffer.from(v, 'base64') : v;
    this.uint32(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
    return this;
  }

  /** Starts a length-delimited message (after its tag). */
  fork(): this {
    this.ensure(1);
    this.starts.push(this.pos);
    this.pos += 1;
    return this;
  }

  /** Ends the message `fork` started, writing its length in front of it. */
  ldelim(): this {
    const start = this.starts.pop()!;
    const len = this.pos - start - 1;
    if (len < 128) {
      this.buf[start] = len;
      return this;
    }
    let size = 1;
    for (let l = len; l > 127; l >>>= 7) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    this.pos += size - 1;
    let p = start;
    let l = len;
    while (l > 127) {
      this.buf[p++] = (l & 127) | 128;
      l >>>= 7;
    }
    this.buf[p] = l;
    return this;
  }

  /** The bytes written (a view: the writer must not be used afterwards). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
