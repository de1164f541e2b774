/**
 * A Protobuf writer over one growing Buffer. protobufjs' Writer records an operation object per
 * value and replays them at the end; for whole lists of objects that allocation dominated the
 * encoding time. Here a nested message reserves the length bytes its call site needed last time and
 * is shifted (one memmove) only when its length turns out to need a different number of bytes.
 */
const TWO_32 = 2 ** 32;

/** Node's Buffer binding, without the argument checks of `Buffer#write`. */
interface Utf8Writer {
  utf8Write(s: string, offset: number, length?: number): number;
}

/** Strings shorter than this are copied by a JS loop when ASCII (at most 127: one length byte). */
const SHORT_STRING = 32;

/** Bytes of a varint of a non-negative value below 2^32. */
function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/**
 * Copies `s` into `b` from `at` for as long as it is ASCII (one byte a character); returns how
 * many characters it copied (`s.length` when all were ASCII). Short strings only: the caller ensured room.
 */
function copyAscii(b: Buffer, at: number, s: string): number {
  const n = s.length;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) break;
    b[at + i] = c;
  }
  return i;
}

/**
 * Length bytes to reserve at each fork call site: what the site's last message needed. A site's
 * messages are mostly alike (a pod's spec is always over 127 bytes, a label entry under), so the
 * body rarely has to be shifted once its length is known; the bytes are the same either way.
 */
const siteReserve: number[] = [1];

/** A new fork call site (generated encoders take one per place they open a nested message: a few hundred per codec, once). */
export function forkSite(): number {
  siteReserve.push(1);
  return siteReserve.length - 1;
}

export class WireWriter {
  private buf: Buffer;
  private pos = 0;
  /** Per open message: where its length goes, and its fork site * 8 + the length bytes reserved. */
  private readonly starts: number[] = [];
  private readonly marks: number[] = [];

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

  /**
   * A length-prefixed string. Short ASCII is copied by a JS loop (a native call costs about what
   * 35 characters cost the loop); longer or non-ASCII strings by one utf8Write.
   */
  string(s: string): this {
    const n = s.length;
    if (n < SHORT_STRING) {
      if (this.pos + n + 1 > this.buf.length) this.ensure(n + 1);
      const b = this.buf;
      const start = this.pos;
      if (copyAscii(b, start + 1, s) === n) {
        b[start] = n;
        this.pos = start + 1 + n;
        return this;
      }
    }
    return this.nativeString(s);
  }

  /**
   * The string's UTF-8 bytes written after as many length bytes as its character count needs
   * (the usual case: ASCII), then shifted if its byte count needs more; no separate byteLength pass.
   */
  private nativeString(s: string): this {
    const n = s.length;
    this.ensure(3 * n + 5);
    const start = this.pos;
    const reserve = varintSize(n);
    const len = (this.buf as unknown as Utf8Writer).utf8Write(s, start + reserve);
    const size = varintSize(len);
    if (size !== reserve) this.buf.copyWithin(start + size, start + reserve, start + reserve + len);
    const b = this.buf;
    let p = start;
    let l = len;
    while (l > 127) {
      b[p++] = (l & 127) | 128;
      l >>>= 7;
    }
    b[p] = l;
    this.pos = start + size + len;
    return this;
  }

  /** `tag` (below 2^14: field numbers up to 2047) and a string field in one call (most fields of API objects). */
  tagString(tag: number, s: string): this {
    const n = s.length;
    if (n < SHORT_STRING && tag < 16384) {
      if (this.pos + n + 3 > this.buf.length) this.ensure(n + 3);
      const b = this.buf;
      const start = this.pos;
      let p = start;
      if (tag < 128) b[p++] = tag;
      else {
        b[p++] = (tag & 127) | 128;
        b[p++] = tag >>> 7;
      }
      if (copyAscii(b, p + 1, s) === n) {
        b[p] = n;
        this.pos = p + 1 + n;
        return this;
      }
    }
    return this.uint32(tag).string(s);
  }

  /**
   * `tag`, then a message whose only field is string field 1 (Quantity, FieldsV1, RawExtension):
   * for short ASCII the two lengths are known up front, so no fork/ldelim.
   */
  wrappedString(tag: number, s: string): this {
    const n = s.length;
    if (n < SHORT_STRING) {
      this.uint32(tag);
      if (this.pos + n + 3 > this.buf.length) this.ensure(n + 3);
      const b = this.buf;
      const start = this.pos;
      if (copyAscii(b, start + 3, s) === n) {
        b[start] = n + 2;
        b[start + 1] = 10;
        b[start + 2] = n;
        this.pos = start + 3 + n;
        return this;
      }
      return this.fork().uint32(10).string(s).ldelim();
    }
    return this.uint32(tag).fork().uint32(10).string(s).ldelim();
  }

  /**
   * JSON text of a tree of plain objects whose keys need no escaping (FieldsV1: `{"f:spec":{...}}`),
   * written straight into the buffer, byte for byte what JSON.stringify gives. False (part written:
   * the caller rewinds) for anything else, which the caller then writes from JSON.stringify.
   */
  jsonTree(o: object): boolean {
    const proto = Object.getPrototypeOf(o) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    this.ensure(2);
    this.buf[this.pos++] = 123; // {
    let first = true;
    for (const k in o) {
      const v = (o as Record<string, unknown>)[k];
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
      const n = k.length;
      this.ensure(n + 4);
      const b = this.buf;
      let p = this.pos;
      if (!first) b[p++] = 44; // ,
      first = false;
      b[p++] = 34; // "
      for (let i = 0; i < n; i++) {
        const c = k.charCodeAt(i);
        if (c < 32 || c > 126 || c === 34 || c === 92) return false;
        b[p++] = c;
      }
      b[p++] = 34;
      b[p++] = 58; // :
      this.pos = p;
      if (!this.jsonTree(v)) return false;
    }
    this.ensure(1);
    this.buf[this.pos++] = 125; // }
    return true;
  }

  /** Where the next byte goes, and the number of open messages (for `rewind`). */
  mark(): number {
    return this.pos * 1024 + this.starts.length;
  }

  /** Back to `mark()`: drops what was written since, open messages included. */
  rewind(mark: number): void {
    const open = mark % 1024;
    this.pos = (mark - open) / 1024;
    this.starts.length = open;
    this.marks.length = open;
  }

  /** `tag`, then `Timestamp {seconds = 1, nanos = 2}` (nanos left out when 0), lengths computed up front. */
  timestamp(tag: number, seconds: number, nanos: number): this {
    if (seconds < 0 || seconds >= TWO_32 || nanos < 0) {
      this.uint32(tag).fork().uint32(8).int64(seconds);
      if (nanos) this.uint32(16).int32(nanos);
      return this.ldelim();
    }
    const len = 1 + varintSize(seconds) + (nanos ? 1 + varintSize(nanos) : 0);
    this.uint32(tag).uint32(len).uint32(8).uint32(seconds);
    if (nanos) this.uint32(16).uint32(nanos);
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

  /**
   * Starts a length-delimited message (after its tag), reserving as many length bytes as the last
   * message of the same call site needed (`site` from `forkSite()`; 0: one byte).
   */
  fork(site = 0): this {
    const reserve = siteReserve[site]!;
    this.ensure(reserve);
    this.starts.push(this.pos);
    this.marks.push(site * 8 + reserve);
    this.pos += reserve;
    return this;
  }

  /** Ends the message `fork` started, writing its length in front of it (shifting the body when the reservation was off). */
  ldelim(): this {
    const start = this.starts.pop()!;
    const mark = this.marks.pop()!;
    const reserve = mark & 7;
    const len = this.pos - start - reserve;
    const size = varintSize(len);
    if (size !== reserve) {
      if (size > reserve) this.ensure(size - reserve);
      this.buf.copyWithin(start + size, start + reserve, this.pos);
      this.pos += size - reserve;
      siteReserve[(mark - reserve) / 8] = size;
    }
    const b = this.buf;
    let p = start;
    let l = len;
    while (l > 127) {
      b[p++] = (l & 127) | 128;
      l >>>= 7;
    }
    b[p] = l;
    return this;
  }

  /** The bytes written (a view: the writer must not be used afterwards). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
