/**
 * JSON object <-> Protobuf wire bytes, compiled once per message from the wire model into plain
 * functions over a WireWriter and WireReader (no intermediate objects), so encoding and decoding
 * cost about what the bytes cost. Well-known shapes: Time/MicroTime (RFC 3339 <-> seconds+nanos),
 * Quantity and IntOrString (their wrapper messages), bytes (base64 <-> raw), FieldsV1 and
 * RawExtension (JSON text), list wrappers, inline (embedded) messages whose fields sit in the parent.
 *
 * A value the model cannot carry (a field without a number, a wrong type) throws UnencodableError:
 * an object is encoded whole or not at all.
 */
import type { WireField, WireMessage, WireModel } from './model.js';
import type { WireReader } from './reader.js';
import { forkSite, type WireWriter } from './writer.js';

export class UnencodableError extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`);
  }

  /**
   * The same error one level up: encoders report paths relative to the object they were given, and
   * each caller puts its key in front on the way out (no path strings are built while encoding).
   */
  within(key: string): UnencodableError {
    return new UnencodableError(this.path ? `${key}.${this.path}` : key, this.reason);
  }
}

type Json = Record<string, unknown>;
/** Throws UnencodableError with a path relative to `o` (see UnencodableError.within). */
export type Encoder = (o: Json, w: WireWriter, root?: boolean, inline?: boolean) => void;
export type Decoder = (r: WireReader, end: number, into?: Json) => Json;

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;
const DAY = 86_400;

/**
 * Timestamps are most of the per-object cost of this format, and objects share few distinct days:
 * the date part is converted once per day (bounded caches), the time of day by arithmetic.
 */
const dayToEpoch = new Map<string, number>();
const epochToDay = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    if (map.size > 4096) map.clear();
    v = make();
    map.set(key, v);
  }
  return v;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** Seconds since the epoch of an RFC 3339 string, plus its nanoseconds; undefined when malformed. */
function parseTime(v: string): [number, number] | undefined {
  // Fast path: `YYYY-MM-DDTHH:MM:SSZ`, the form the server writes.
  if (v.length === 20 && v.charCodeAt(19) === 90 && v.charCodeAt(10) === 84 && v.charCodeAt(13) === 58 && v.charCodeAt(16) === 58) {
    const c = (i: number) => v.charCodeAt(i) - 48;
    if (isDigit(v.charCodeAt(11)) && isDigit(v.charCodeAt(12)) && isDigit(v.charCodeAt(14)) && isDigit(v.charCodeAt(15)) && isDigit(v.charCodeAt(17)) && isDigit(v.charCodeAt(18))) {
      const day = cached(dayToEpoch, v.slice(0, 10), () => Date.parse(`${v.slice(0, 10)}T00:00:00Z`) / 1000);
      if (!Number.isNaN(day)) return [day + (c(11) * 10 + c(12)) * 3600 + (c(14) * 10 + c(15)) * 60 + c(17) * 10 + c(18), 0];
    }
  }
  const m = RFC3339.exec(v);
  if (!m) return undefined;
  const seconds = Date.parse(`${m[1]}${m[3]}`) / 1000;
  if (Number.isNaN(seconds)) return undefined;
  return [seconds, m[2] ? Number(m[2].padEnd(9, '0')) : 0];
}

/**
 * Whole-second times (the server writes no others) by their seconds: objects of one list share
 * most of their times, and each string is built flat once (a template literal gives a rope of
 * parts that would survive young-generation collections as several objects).
 */
const secondsToTime = new Map<number, string>();
const timeToSeconds = new Map<string, number>();

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  if (nanos || micro) return buildTime(seconds, nanos, micro);
  let t = secondsToTime.get(seconds);
  if (t === undefined) {
    if (secondsToTime.size >= 8192) secondsToTime.clear();
    t = flat(buildTime(seconds, 0, false));
    secondsToTime.set(seconds, t);
  }
  return t;
}

/**
 * The same text as one flat string: a template literal gives a rope of its parts, which would
 * survive young-generation collections as several objects. String.fromCharCode builds it flat.
 */
function flat(s: string): string {
  const codes = new Array<number>(s.length);
  for (let i = 0; i < s.length; i++) codes[i] = s.charCodeAt(i);
  return String.fromCharCode(...codes);
}

function buildTime(seconds: number, nanos: number, micro: boolean): string {
  const dayStart = Math.floor(seconds / DAY) * DAY;
  const day = cached(epochToDay, dayStart, () => new Date(dayStart * 1000).toISOString().slice(0, 10));
  const rest = seconds - dayStart;
  const base = `${day}T${pad2(Math.floor(rest / 3600))}:${pad2(Math.floor((rest % 3600) / 60))}:${pad2(rest % 60)}`;
  if (micro) return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
  if (!nanos) return `${base}Z`;
  return `${base}.${String(nanos).padStart(9, '0').replace(/0+$/, '')}Z`;
}

/** Runtime helpers the generated functions call (kept out of the generated text). */
const H = {
  fail(key: string, reason: string): never {
    throw new UnencodableError(key, reason);
  },
  unknown(key: string, notOnWire: boolean): never {
    const why = notOnWire ? 'the established wire format has no field for it' : 'this field has no Protobuf field number';
    throw new UnencodableError(key, `${why}; ask for application/json`);
  },
  /** Rethrows an error from a nested message with the nested message's key in front of its path. */
  within(err: unknown, key: string): never {
    throw err instanceof UnencodableError ? err.within(key) : err;
  },
  time(w: WireWriter, tag: number, v: unknown, key: string): void {
    if (typeof v !== 'string') return H.fail(key, `not an RFC 3339 time: ${JSON.stringify(v)}`);
    // Whole-second times by their text: a string's hash is kept in it, so a repeat costs one lookup.
    const seconds = timeToSeconds.get(v);
    if (seconds !== undefined) {
      w.timestamp(tag, seconds, 0);
      return;
    }
    const t = parseTime(v);
    if (!t) return H.fail(key, `not an RFC 3339 time: ${JSON.stringify(v)}`);
    if (!t[1]) {
      if (timeToSeconds.size >= 8192) timeToSeconds.clear();
      timeToSeconds.set(v, t[0]);
    }
    w.timestamp(tag, t[0], t[1]);
  },
  /** FieldsV1 / RawExtension: JSON text as field 1, written directly when it is a tree of plain objects. */
  rawJson(w: WireWriter, tag: number, outer: number, inner: number, v: unknown): void {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const mark = w.mark();
      w.uint32(tag).fork(outer).uint32(10).fork(inner);
      if (w.jsonTree(v)) {
        w.ldelim().ldelim();
        return;
      }
      w.rewind(mark);
    }
    w.wrappedString(tag, JSON.stringify(v));
  },
  intOrString(w: WireWriter, tag: number, v: unknown, key: string): void {
    if (typeof v === 'number') w.uint32(tag).fork().uint32(8).int64(0).uint32(16).int32(v).ldelim();
    else if (typeof v === 'string') w.uint32(tag).fork().uint32(8).int64(1).uint32(26).string(v).ldelim();
    else H.fail(key, 'expected an integer or a string');
  },
  /** int64 as a JS number without a Long; a 10-byte varint is a negative value (two's complement). */
  v64(r: WireReader): number {
    const buf = r.buf;
    const start = r.pos;
    let result = 0;
    let scale = 1;
    let b: number;
    do {
      if (r.pos >= buf.length) throw new RangeError('varint runs past the end of the message');
      b = buf[r.pos++]!;
      result += (b & 0x7f) * scale;
      scale *= 128;
    } while (b & 0x80);
    if (r.pos - start < 10) return result;
    let big = 0n;
    for (let i = r.pos - 1; i >= start; i--) big = (big << 7n) | BigInt(buf[i]! & 0x7f);
    return Number(BigInt.asIntN(64, big));
  },
  /** An empty Time message is the zero time, which the established clients send for "unset". */
  readTime(r: WireReader, micro: boolean): string | undefined {
    const end = r.uint32() + r.pos;
    if (end === r.pos) return undefined;
    let seconds = 0;
    let nanos = 0;
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 8) seconds = H.v64(r);
      else if (t === 16) nanos = r.int32();
      else r.skipType(t & 7);
    }
    return formatTime(seconds, nanos, micro);
  },
  readQuantity(r: WireReader): string {
    const end = r.uint32() + r.pos;
    let s = '0';
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 10) s = r.string();
      else r.skipType(t & 7);
    }
    return s;
  },
  readIntOrString(r: WireReader): number | string {
    const end = r.uint32() + r.pos;
    let type = 0;
    let intVal = 0;
    let strVal = '';
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 8) type = H.v64(r);
      else if (t === 16) intVal = r.int32();
      else if (t === 26) strVal = r.string();
      else r.skipType(t & 7);
    }
    return type === 1 ? strVal : intVal;
  },
  /** FieldsV1 / RawExtension: field 1 holds JSON text (read as a string: same wire form as bytes). */
  readRawJson(r: WireReader): unknown {
    const end = r.uint32() + r.pos;
    let out: unknown = {};
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 10) {
        const text = r.string();
        if (text) out = JSON.parse(text);
      } else r.skipType(t & 7);
    }
    return out;
  },
  base64(b: Uint8Array): string {
    return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
  },
  /** Map keys come from data: `__proto__` must stay a plain key. */
  put(m: Json, k: string, v: unknown): void {
    if (k === '__proto__') Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
    else m[k] = v;
  },
};

/** The test a plain (non-optional) scalar's value must pass to be kept: not its zero. */
const ZERO_TEST: Readonly<Record<string, string>> = { string: "v !== ''", int32: 'v !== 0', int64: 'v !== 0', double: 'v !== 0', bool: 'v' };

const WIRE_TYPE: Record<string, number> = { int32: 0, int64: 0, bool: 0, double: 1 };
const wireType = (type: string) => WIRE_TYPE[type] ?? 2;
const q = (s: string) => JSON.stringify(s);

/** Keys a message takes from a JSON object (inline messages' keys included). */
function jsonKeys(model: WireModel, msg: WireMessage): string[] {
  return msg.fields.flatMap((f) => (f.inline ? jsonKeys(model, model.messages.get(f.type)!) : [f.name]));
}

export class CompiledCodec {
  readonly encoders: Readonly<Record<string, Encoder>>;
  readonly decoders: Readonly<Record<string, Decoder>>;

  constructor(private readonly model: WireModel) {
    const notOnWire: Record<string, ReadonlySet<string>> = {};
    const parts: string[] = [];
    for (const msg of model.messages.values()) {
      notOnWire[msg.name] = msg.notOnWire;
      parts.push(
        `const E_${msg.name} = ${this.encoderSource(msg)}; E[${q(msg.name)}] = E_${msg.name};`,
        // A constructor per message lets V8 size objects for their fields (a literal {} would be grown field by field).
        `const C_${msg.name} = function () {}; C_${msg.name}.prototype = Object.prototype;`,
        `const D_${msg.name} = ${this.decoderSource(msg)}; D[${q(msg.name)}] = D_${msg.name};`,
      );
      if (msg.wrapsList) parts.push(`const L_${msg.name} = ${this.listReaderSource(msg)};`);
    }
    const src = `"use strict";\nconst E = {}, D = {};\n${parts.join('\n')}\nreturn { E, D };`;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from our own tables, never from input
    const build = new Function('H', 'N', src) as (h: typeof H, n: unknown) => { E: Record<string, Encoder>; D: Record<string, Decoder> };
    const { E, D } = build(H, notOnWire);
    this.encoders = E;
    this.decoders = D;
  }

  private tag(f: WireField, wt = f.map || f.repeated ? 2 : wireType(f.type)): number {
    return (f.number << 3) | wt;
  }

  /** Statements writing value `v` of element type `type` under `tag` (path `p`, key expression `key`). */
  private writeValue(type: string, tag: number, key: string): string {
    switch (type) {
      case 'string':
        return `if (typeof v !== 'string') H.fail(${key}, 'expected a string'); w.tagString(${tag}, v);`;
      case 'int32':
      case 'int64':
      case 'double':
        return `if (typeof v !== 'number') H.fail(${key}, 'expected a number'); w.uint32(${tag}).${type}(v);`;
      case 'bool':
        return `if (typeof v !== 'boolean') H.fail(${key}, 'expected a boolean'); w.uint32(${tag}).bool(v);`;
      case 'bytes':
        return `if (typeof v !== 'string') H.fail(${key}, 'expected base64 data'); w.uint32(${tag}).bytes(v);`;
      case 'Time':
      case 'MicroTime':
        return `H.time(w, ${tag}, v, ${key});`;
      case 'Quantity':
        return `if (typeof v !== 'string' && typeof v !== 'number') H.fail(${key}, 'expected a quantity'); w.wrappedString(${tag}, String(v));`;
      case 'IntOrString':
        return `H.intOrString(w, ${tag}, v, ${key});`;
      case 'FieldsV1':
      case 'RawExtension':
        // The JSON text is written as the UTF-8 bytes of field 1 (a string and bytes share the wire form).
        return `H.rawJson(w, ${tag}, ${forkSite()}, ${forkSite()}, v);`;
      default: {
        const target = this.model.messages.get(type)!;
        if (target.wrapsList) {
          const item = target.fields[0]!;
          return `if (!Array.isArray(v)) H.fail(${key}, 'expected a list'); w.uint32(${tag}).fork(${forkSite()}); { const l = v; for (let j = 0; j < l.length; j++) { const v = l[j]; ${this.writeValue(item.type, this.tag(item, wireType(item.type)), key)} } } w.ldelim();`;
        }
        return `if (v === null || typeof v !== 'object' || Array.isArray(v)) H.fail(${key}, 'expected an object'); w.uint32(${tag}).fork(${forkSite()}); try { E_${type}(v, w, false, false); } catch (e) { H.within(e, ${key}); } w.ldelim();`;
      }
    }
  }

  /**
   * One pass over the object's own keys: each known key is written as it comes (Protobuf allows any
   * field order), keys of inline messages are written after as that message, anything else fails
   * (unless this call encodes an inline part of a parent whose other keys are not ours).
   */
  private encoderSource(msg: WireMessage): string {
    const inline = msg.fields.filter((f) => f.inline);
    const lines = [`function (o, w, root, inline) {`, ...inline.map((f) => `  let in_${f.number} = false;`), `  for (const k in o) {`, `    const v = o[k];`, `    if (v == null) continue;`, `    switch (k) {`];
    for (const f of msg.fields) {
      const key = q(f.name);
      if (f.inline) {
        for (const k of jsonKeys(this.model, this.model.messages.get(f.type)!)) lines.push(`      case ${q(k)}: in_${f.number} = true; break;`);
        continue;
      }
      lines.push(`      case ${key}: {`);
      if (f.repeated) {
        const elemTag = this.tag(f, wireType(f.type));
        lines.push(
          `        if (!Array.isArray(v)) H.fail(${key}, 'expected a list');`,
          `        const l = v; for (let i = 0; i < l.length; i++) { const v = l[i]; if (v == null) H.fail(${key} + '[' + i + ']', 'null in a list'); ${this.writeValue(f.type, elemTag, `${key} + '[' + i + ']'`)} }`,
        );
      } else if (f.map) {
        const valueTag = (2 << 3) | wireType(f.type);
        lines.push(
          `        if (typeof v !== 'object' || Array.isArray(v)) H.fail(${key}, 'expected a map');`,
          `        const m = v; for (const mk in m) { const v = m[mk]; if (v == null) continue; w.uint32(${this.tag(f)}).fork(${forkSite()}).uint32(10).string(mk); ${this.writeValue(f.type, valueTag, `${key} + '[' + mk + ']'`)} w.ldelim(); }`,
        );
      } else {
        lines.push(`        ${this.writeValue(f.type, this.tag(f), key)}`);
      }
      lines.push(`        break;`, `      }`);
    }
    lines.push(
      `      default:`,
      `        if (!inline && !(root && (k === 'apiVersion' || k === 'kind'))) H.unknown(k, N[${q(msg.name)}].has(k));`,
      `    }`,
      `  }`,
      ...inline.map((f) => `  if (in_${f.number}) { w.uint32(${this.tag(f)}).fork(${forkSite()}); E_${f.type}(o, w, false, true); w.ldelim(); }`),
      `}`,
    );
    return lines.join('\n');
  }

  /** Expression reading one value of element type `type` (the reader is at its tag's payload). */
  private readValue(type: string): string {
    switch (type) {
      case 'string':
        return 'r.string()';
      case 'int32':
        return 'r.int32()';
      case 'int64':
        return 'H.v64(r)';
      case 'double':
        return 'r.double()';
      case 'bool':
        return 'r.bool()';
      case 'bytes':
        return 'H.base64(r.bytes())';
      case 'Time':
        return 'H.readTime(r, false)';
      case 'MicroTime':
        return 'H.readTime(r, true)';
      case 'Quantity':
        return 'H.readQuantity(r)';
      case 'IntOrString':
        return 'H.readIntOrString(r)';
      case 'FieldsV1':
      case 'RawExtension':
        return 'H.readRawJson(r)';
      default: {
        const target = this.model.messages.get(type)!;
        if (target.wrapsList) {
          const item = target.fields[0]!;
          return `L_${type}(r, r.uint32() + r.pos)`;
        }
        return `D_${type}(r, r.uint32() + r.pos)`;
      }
    }
  }

  /** A list wrapper message read straight into an array (one function per wrapper, no closure per value). */
  private listReaderSource(msg: WireMessage): string {
    const item = msg.fields[0]!;
    return `function (r, e) { const a = []; while (r.pos < e) { const t = r.uint32(); if (t === ${this.tag(item, wireType(item.type))}) a.push(${this.readValue(item.type)}); else r.skipType(t & 7); } return a; }`;
  }

  private static zero(type: string): string {
    if (type === 'string' || type === 'bytes') return "''";
    if (type === 'Quantity') return "'0'";
    if (type === 'int32' || type === 'int64' || type === 'double' || type === 'IntOrString') return '0';
    if (type === 'bool') return 'false';
    return '{}';
  }

  private decoderSource(msg: WireMessage): string {
    const lines = [`function (r, end, o) {`, `  if (o === undefined) o = new C_${msg.name}();`, `  while (r.pos < end) {`, `    const t = r.uint32();`, `    switch (t) {`];
    for (const f of msg.fields) {
      const key = q(f.name);
      if (f.inline) {
        lines.push(`      case ${this.tag(f)}: D_${f.type}(r, r.uint32() + r.pos, o); break;`);
      } else if (f.repeated) {
        const wt = wireType(f.type);
        lines.push(`      case ${this.tag(f, wt)}: (o[${key}] || (o[${key}] = [])).push(${this.readValue(f.type)}); break;`);
        // Packed numbers are legal on the wire for any repeated scalar number.
        if (wt !== 2) lines.push(`      case ${this.tag(f, 2)}: { const e = r.uint32() + r.pos; const a = o[${key}] || (o[${key}] = []); while (r.pos < e) a.push(${this.readValue(f.type)}); break; }`);
      } else if (f.map) {
        const valueTag = (2 << 3) | wireType(f.type);
        lines.push(
          `      case ${this.tag(f)}: { const e = r.uint32() + r.pos; let mk = '', mv = ${CompiledCodec.zero(f.type)}; while (r.pos < e) { const t2 = r.uint32(); if (t2 === 10) mk = r.string(); else if (t2 === ${valueTag}) mv = ${this.readValue(f.type)}; else r.skipType(t2 & 7); } const mo = o[${key}] || (o[${key}] = {}); if (mk === '__proto__') H.put(mo, mk, mv); else mo[mk] = mv; break; }`,
        );
      } else if (f.type === 'Time' || f.type === 'MicroTime') {
        // Go clients write a zero (empty) time for an unset non-pointer one: absent, as in their decoding.
        lines.push(`      case ${this.tag(f)}: { const v = ${this.readValue(f.type)}; if (v !== undefined) o[${key}] = v; break; }`);
      } else if (!f.optional && f.type in ZERO_TEST) {
        // Go clients write every non-pointer scalar whether set or not, and the established server
        // reads 0, false and "" there as the Go zero value, which its JSON omits: absent here too, so
        // an object sent as Protobuf is stored as its JSON twin (kubectl's `stdin: false`, `generation: 0`).
        lines.push(`      case ${this.tag(f)}: { const v = ${this.readValue(f.type)}; if (${ZERO_TEST[f.type]}) o[${key}] = v; break; }`);
      } else {
        lines.push(`      case ${this.tag(f)}: o[${key}] = ${this.readValue(f.type)}; break;`);
      }
    }
    lines.push(`      default: r.skipType(t & 7);`, `    }`, `  }`, `  return o;`, `}`);
    return lines.join('\n');
  }
}
