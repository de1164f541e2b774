/**
 * The Protobuf representation (`application/vnd.svc.protobuf`): objects, lists and watch frames in
 * the established envelope, the 4 bytes `k8s\0` then `Unknown {typeMeta, raw, contentEncoding,
 * contentType}`. protobufjs types are built at start from the same generated `.proto` text that is
 * committed under proto/.
 */
import { canonicalApiVersion } from '../../api/established-spelling.js';
import protobuf from 'protobufjs';
import { CompiledCodec, UnencodableError } from './compiled.js';
import { wireModel, type WireModel } from './model.js';
import { generateProtoFiles } from './proto-text.js';
import { WireReader } from './reader.js';
import { forkSite, WireWriter } from './writer.js';

const LIST_SITE = forkSite();
const ITEM_SITE = forkSite();

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf';
/** Marks a Protobuf body; a future incompatible format changes it. */
export const PROTOBUF_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Json = Record<string, unknown>;

/** A body that is not an envelope (no prefix, or unreadable): the caller turns it into a 400. */
export class ProtobufDecodeError extends Error {}

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export class ProtobufCodec {
  readonly compiled: CompiledCodec;
  private readonly types = new Map<string, protobuf.Type>();
  private readonly unknown: protobuf.Type;
  private readonly watchEvent: protobuf.Type;
  /** Encoded `raw` of immutable (frozen, cached) objects, so a list of cached objects is encoded once per object. */
  private readonly rawCache = new WeakMap<object, Uint8Array>();

  constructor(readonly model: WireModel = wireModel()) {
    const root = new protobuf.Root();
    for (const f of generateProtoFiles(model)) protobuf.parse(f.text, root, { keepCase: true });
    root.resolveAll();
    for (const msg of model.messages.values()) this.types.set(msg.name, root.lookupType(`${msg.pkg.package}.${msg.name}`));
    this.compiled = new CompiledCodec(model);
    this.unknown = this.type('Unknown');
    this.watchEvent = this.type('WatchEvent');
  }

  private type(name: string): protobuf.Type {
    const t = this.types.get(name);
    if (!t) throw new Error(`no wire message ${name}`);
    return t;
  }

  /** The message of a kind (`v1`, `Pod` -> `Pod`; either spelling of a group), or undefined when the kind has no numbers. */
  messageOf(apiVersion: string, kind: string): string | undefined {
    return this.model.kinds.get(`${canonicalApiVersion(apiVersion)}/${kind}`);
  }

  private messageFor(obj: Json): string {
    const apiVersion = String(obj['apiVersion'] ?? '');
    const kind = String(obj['kind'] ?? '');
    if (kind === 'Status') return 'Status';
    const msg = this.messageOf(apiVersion, kind);
    if (!msg) throw new UnencodableError(kind || 'object', `${apiVersion}/${kind} has no Protobuf representation`);
    return msg;
  }

  /** The object's message bytes (no envelope). Throws UnencodableError for what the wire cannot carry. */
  encodeRaw(obj: Json): Uint8Array {
    const cached = this.rawCache.get(obj);
    if (cached) return cached;
    const w = new WireWriter();
    const encode = this.compiled.encoders[this.messageFor(obj)]!;
    try {
      encode(obj, w, true);
    } catch (err) {
      throw err instanceof UnencodableError ? err.within(String(obj['kind'])) : err;
    }
    const raw = Buffer.from(w.finish());
    if (Object.isFrozen(obj)) this.rawCache.set(obj, raw);
    return raw;
  }

  /** The prefix and `Unknown {typeMeta, raw}` around an encoded message. */
  envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
    const w = new WireWriter(raw.length + apiVersion.length + kind.length + 32);
    writeEnvelopeHead(w, apiVersion, kind);
    return w.uint32(18).bytes(raw).finish();
  }

  /** One object in the envelope. */
  encodeObject(obj: Json): Buffer {
    return this.envelope(String(obj['apiVersion'] ?? ''), String(obj['kind'] ?? ''), this.encodeRaw(obj));
  }

  /** A list (`<Kind>List {metadata = 1, items = 2}`); cached (frozen) items are copied, others encoded in place. */
  encodeList(list: { apiVersion: string; kind: string; metadata: Json; items: Json[] }): Buffer {
    const steps = this.encodeListSteps(list);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * encodeList as steps, one per item, returning the encoded list: an item not encoded before costs
   * tens of microseconds, so a cold list of thousands is hundreds of milliseconds, which a server
   * walks a few steps at a time between other requests.
   */
  *encodeListSteps(list: { apiVersion: string; kind: string; metadata: Json; items: readonly Json[] }): Generator<void, Buffer, void> {
    const itemKind = list.kind.replace(/List$/, '');
    const msg = this.messageOf(list.apiVersion, itemKind);
    if (!msg) throw new UnencodableError(list.kind, `${list.apiVersion}/${list.kind} has no Protobuf representation`);
    const encode = this.compiled.encoders[msg]!;
    // Sized up front (cached items by their bytes, others by a typical size): growing a megabyte
    // buffer by doubling copies it each time.
    let size = 256;
    for (const item of list.items) size += (this.rawCache.get(item)?.length ?? 2048) + 6;
    const w = new WireWriter(size);
    writeEnvelopeHead(w, list.apiVersion, list.kind);
    w.uint32(18).fork(LIST_SITE);
    w.uint32(10).fork();
    try {
      this.compiled.encoders['ListMeta']!(list.metadata, w);
    } catch (err) {
      throw err instanceof UnencodableError ? err.within('metadata') : err;
    }
    w.ldelim();
    const items = list.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const cached = this.rawCache.get(item) ?? (Object.isFrozen(item) ? this.encodeRaw(item['kind'] ? item : { ...item, apiVersion: list.apiVersion, kind: itemKind }) : undefined);
      if (cached) {
        w.uint32(18).bytes(cached);
      } else {
        w.uint32(18).fork(ITEM_SITE);
        try {
          encode(item, w, true);
        } catch (err) {
          throw err instanceof UnencodableError ? err.within(`items[${i}]`) : err;
        }
        w.ldelim();
      }
      yield;
    }
    w.ldelim();
    return w.finish();
  }

  /** One watch frame: 4-byte big-endian length, then the envelope of `WatchEvent {type, object.raw = object's envelope}`. */
  encodeWatchFrame(type: string, obj: Json, groupVersion: string): Buffer {
    const event = this.watchEvent.encode({ type, object: { raw: this.encodeObject(obj) } }).finish();
    const body = this.envelope(groupVersion, 'WatchEvent', event);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length, 0);
    return Buffer.concat([len, body]);
  }

  /** Reads the envelope; a body without the prefix is refused (a future format changes it). */
  decodeEnvelope(body: Uint8Array): Envelope {
    if (body.length < 4 || !PROTOBUF_PREFIX.equals(Buffer.from(body.subarray(0, 4)))) {
      throw new ProtobufDecodeError(
        'the body is not in the Protobuf envelope: it must start with the 4 bytes 0x6b 0x38 0x73 0x00 followed by an Unknown message',
      );
    }
    let u: Json;
    try {
      u = this.unknown.decode(body.subarray(4)) as unknown as Json;
    } catch (err) {
      throw new ProtobufDecodeError(`the Protobuf envelope cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    const tm = (u['typeMeta'] ?? {}) as Json;
    return {
      apiVersion: String(tm['apiVersion'] ?? ''),
      kind: String(tm['kind'] ?? ''),
      // An empty raw (a DeleteOptions with nothing set) reads as protobufjs's default, a plain empty array.
      raw: u['raw'] instanceof Uint8Array ? u['raw'] : new Uint8Array(),
      contentEncoding: String(u['contentEncoding'] ?? ''),
      contentType: String(u['contentType'] ?? ''),
    };
  }

  /** An enveloped object back to its JSON form (apiVersion and kind from the envelope). */
  decodeObject(body: Uint8Array): Json {
    // messageOf reads either spelling of a group; the server rewrites the decoded body to ours.
    const env = this.decodeEnvelope(body);
    if (env.contentEncoding) throw new ProtobufDecodeError(`contentEncoding ${JSON.stringify(env.contentEncoding)} is not supported; send raw unencoded`);
    if (env.contentType && env.contentType !== PROTOBUF_MEDIA_TYPE) {
      throw new ProtobufDecodeError(`contentType ${JSON.stringify(env.contentType)} inside the envelope is not supported; leave it empty`);
    }
    const msg = env.kind === 'Status' || env.kind === 'DeleteOptions' ? env.kind : this.messageOf(env.apiVersion, env.kind) ?? (env.kind.endsWith('List') ? listMessage(this, env) : undefined);
    if (!msg) throw new ProtobufDecodeError(`${env.apiVersion}/${env.kind} has no Protobuf representation; send application/json`);
    const out: Json = { apiVersion: env.apiVersion, kind: env.kind };
    try {
      const decoded = this.compiled.decoders[msg]!(new WireReader(Buffer.from(env.raw.buffer, env.raw.byteOffset, env.raw.length)), env.raw.length, out);
      // A list's continue is on every list (the spec), "" on the last page: the wire leaves "" out.
      const meta = decoded['metadata'];
      if (env.kind.endsWith('List') && meta && typeof meta === 'object' && !('continue' in meta)) (meta as Json)['continue'] = '';
      return decoded;
    } catch (err) {
      throw new ProtobufDecodeError(`the ${env.kind} message cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** The 4-byte prefix, then `Unknown.typeMeta` (field 1); the caller writes `raw` (field 2). */
function writeEnvelopeHead(w: WireWriter, apiVersion: string, kind: string): void {
  for (const b of PROTOBUF_PREFIX) w.uint32(b);
  w.uint32(10).fork().uint32(10).string(apiVersion).uint32(18).string(kind).ldelim();
}

function listMessage(codec: ProtobufCodec, env: Envelope): string | undefined {
  const item = codec.messageOf(env.apiVersion, env.kind.slice(0, -'List'.length));
  return item ? `${item}List` : undefined;
}

let shared: ProtobufCodec | undefined;
/** The server's codec over the built-in tables (built on first use). */
export function protobufCodec(): ProtobufCodec {
  shared ??= new ProtobufCodec();
  return shared;
}
