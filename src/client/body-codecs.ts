/**
 * How the HTTP transport encodes request bodies and decodes responses, per `--svc-api-content-type`
 * (`application/vnd.svc.protobuf`, the default, or `application/json`).
 *
 * With Protobuf preferred:
 * - a request body is Protobuf when its kind has Protobuf numbers (built-in kinds; the codec can
 *   encode the whole object), JSON otherwise (custom resources, DeleteOptions, fields the wire
 *   model has no number for); the HTTP transport resends a body the server refused (415) as JSON;
 * - `Accept: application/vnd.svc.protobuf, application/json` when the request's kind has Protobuf
 *   numbers, `Accept: application/json` for other kinds;
 * - responses and watch streams are decoded by the Content-Type the server chose, in either
 *   spelling (`application/vnd.kubernetes.protobuf` is the same envelope; a Protobuf watch is
 *   length-prefixed frames, a JSON watch is one event per line).
 * A Protobuf body must start with the 4 bytes 0x6b 0x38 0x73 0x00; anything else is refused.
 */
import { canonicalMediaType } from '../api/established-spelling.js';
import { decodeWatchFrame, PROTOBUF_MEDIA_TYPE as WIRE_MEDIA_TYPE, protobufCodec, WatchFrameSplitter } from '../codec/protobuf/index.js';

export const JSON_MEDIA_TYPE = 'application/json';
export const PROTOBUF_MEDIA_TYPE = WIRE_MEDIA_TYPE;
/** `--svc-api-content-type`'s default. */
export const DEFAULT_CONTENT_TYPE = PROTOBUF_MEDIA_TYPE;

/** One decoded watch event as read off the wire (`ERROR` and `BOOKMARK` included). */
export interface WireWatchEvent {
  type: string;
  object: unknown;
}

/** Turns the bytes of a watch response into events, chunk by chunk. */
export interface WatchDecoder {
  /** Events completed by `chunk`. */
  push(chunk: Uint8Array): WireWatchEvent[];
  /** Events left when the stream ends (an unfinished event is an error). */
  end(): WireWatchEvent[];
}

export interface BodyCodec {
  /** `type/subtype`, lower case. */
  readonly mediaType: string;
  /** Whether objects of this kind have this representation (Protobuf: kinds with numbers). */
  supportsKind(apiVersion: string, kind: string): boolean;
  /** Whether this codec can encode `body` (an object of a supported kind). */
  canEncode(body: unknown): boolean;
  encode(body: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
  watchDecoder(): WatchDecoder;
}

/** The `apiVersion`/`kind` of a request's objects, when the caller knows it. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export const jsonCodec: BodyCodec = {
  mediaType: JSON_MEDIA_TYPE,
  supportsKind: () => true,
  canEncode: () => true,
  encode: (body) => Buffer.from(JSON.stringify(body)),
  decode: (bytes) => (bytes.byteLength === 0 ? undefined : (JSON.parse(utf8(bytes)) as unknown)),
  watchDecoder() {
    let buf = '';
    const take = (text: string, final: boolean): WireWatchEvent[] => {
      buf += text;
      const out: WireWatchEvent[] = [];
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) out.push(JSON.parse(line) as WireWatchEvent);
      }
      if (final && buf.trim()) out.push(JSON.parse(buf) as WireWatchEvent);
      return out;
    };
    return { push: (chunk) => take(utf8(chunk), false), end: () => take('', true) };
  },
};

function typeMetaOf(body: unknown): TypeMeta | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof Uint8Array) return undefined;
  const { apiVersion, kind } = body as { apiVersion?: unknown; kind?: unknown };
  return typeof apiVersion === 'string' && typeof kind === 'string' && apiVersion && kind ? { apiVersion, kind } : undefined;
}

/** An empty list has no `items` on the wire (an empty repeated field): callers get `[]`, as in JSON. */
function withListItems(obj: Record<string, unknown>): Record<string, unknown> {
  if (typeof obj['kind'] === 'string' && obj['kind'].endsWith('List') && obj['items'] === undefined) obj['items'] = [];
  return obj;
}

/** The Protobuf envelope of src/codec/protobuf (the same tables the server uses). */
export const protobufBodyCodec: BodyCodec = {
  mediaType: PROTOBUF_MEDIA_TYPE,
  supportsKind: (apiVersion, kind) => protobufCodec().messageOf(apiVersion, kind) !== undefined,
  canEncode(body) {
    const tm = typeMetaOf(body);
    return tm !== undefined && protobufCodec().messageOf(tm.apiVersion, tm.kind) !== undefined;
  },
  encode: (body) => protobufCodec().encodeObject(body as Record<string, unknown>),
  // Refuses a body without the 4-byte prefix (ProtobufDecodeError says what was expected).
  decode: (bytes) => (bytes.byteLength === 0 ? undefined : withListItems(protobufCodec().decodeObject(bytes))),
  watchDecoder() {
    const frames = new WatchFrameSplitter();
    return {
      push: (chunk) => frames.push(chunk).map((f) => decodeWatchFrame(f)),
      end() {
        if (frames.pending) throw new Error(`the watch stream ended inside a frame (${frames.pending} bytes left over)`);
        return [];
      },
    };
  },
};

/** The codecs a transport has unless told otherwise. */
export function defaultCodecs(): BodyCodec[] {
  return [jsonCodec, protobufBodyCodec];
}

/** `type/subtype` of a Content-Type header, lower case, parameters dropped. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A request body ready to send. */
export interface EncodedBody {
  bytes: Uint8Array;
  mediaType: string;
}

/** Picks codecs for one transport: the preferred one where the kind allows it, JSON always. */
export class ContentTypes {
  private readonly preferred: BodyCodec | undefined;
  private readonly byMediaType: Map<string, BodyCodec>;

  /** Throws for a content type no installed codec serves (the message names the flag). */
  constructor(contentType: string = DEFAULT_CONTENT_TYPE, codecs: readonly BodyCodec[] = defaultCodecs()) {
    this.byMediaType = new Map(codecs.map((c) => [c.mediaType, c]));
    if (!this.byMediaType.has(JSON_MEDIA_TYPE)) this.byMediaType.set(JSON_MEDIA_TYPE, jsonCodec);
    const wanted = this.byMediaType.get(mediaTypeOf(contentType));
    if (!wanted) {
      throw new Error(`--svc-api-content-type: ${JSON.stringify(contentType)} is not supported; use one of: ${[...this.byMediaType.keys()].join(', ')}`);
    }
    this.preferred = wanted !== jsonCodec ? wanted : undefined;
  }

  /** The media type request bodies are sent in when the kind allows it. */
  get preferredMediaType(): string {
    return this.preferred?.mediaType ?? JSON_MEDIA_TYPE;
  }

  /** The codec for a request body: the preferred one if it can encode `body`, else JSON. */
  forRequest(body: unknown): BodyCodec {
    return this.preferred?.canEncode(body) ? this.preferred : jsonCodec;
  }

  /** Encodes a body: in the preferred type when possible (an object it cannot carry whole goes as JSON). */
  encode(body: unknown): EncodedBody {
    const codec = this.forRequest(body);
    if (codec !== jsonCodec) {
      try {
        return { bytes: codec.encode(body), mediaType: codec.mediaType };
      } catch {
        // e.g. a field the wire model has no number for: JSON carries it.
      }
    }
    return { bytes: jsonCodec.encode(body), mediaType: JSON_MEDIA_TYPE };
  }

  /** The Accept header: the preferred type first with JSON as the fallback, when the kind has it. */
  accept(kind?: TypeMeta): string {
    if (!this.preferred) return JSON_MEDIA_TYPE;
    if (kind && !this.preferred.supportsKind(kind.apiVersion, kind.kind)) return JSON_MEDIA_TYPE;
    return `${this.preferred.mediaType}, ${JSON_MEDIA_TYPE}`;
  }

  /**
   * The codec for a response with this Content-Type: either spelling of a media type (the server
   * answers `application/vnd.kubernetes.protobuf` to a clause in that spelling, and the bytes are
   * the same envelope), parameters ignored (a Table is `application/json;as=Table;...`), JSON for
   * anything unknown (e.g. text errors).
   */
  forResponse(contentType: string | undefined): BodyCodec {
    const mt = mediaTypeOf(contentType);
    return this.byMediaType.get(mt) ?? this.byMediaType.get(canonicalMediaType(mt)) ?? jsonCodec;
  }
}
