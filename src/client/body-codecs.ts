/**
 * How the HTTP transport encodes request bodies and decodes responses, per `--svc-api-content-type`.
 *
 * The preferred content type (default `application/vnd.svc.protobuf`) is used for a request body
 * when a codec for it is installed and that codec can encode the object's kind; anything else is
 * sent as JSON, and JSON is always accepted in responses as the fallback. Watch streams are read as
 * JSON lines for now.
 *
 * Extension point: the Protobuf codec (src/codec/protobuf) joins by being added to
 * `defaultCodecs()`; nothing else in the client changes.
 */

export const JSON_MEDIA_TYPE = 'application/json';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf';
/** `--svc-api-content-type`'s default. */
export const DEFAULT_CONTENT_TYPE = PROTOBUF_MEDIA_TYPE;

export interface BodyCodec {
  /** `type/subtype`, lower case. */
  readonly mediaType: string;
  /** Whether this codec can encode `body` (e.g. Protobuf only knows built-in kinds). */
  canEncode(body: unknown): boolean;
  encode(body: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
}

export const jsonCodec: BodyCodec = {
  mediaType: JSON_MEDIA_TYPE,
  canEncode: () => true,
  encode: (body) => Buffer.from(JSON.stringify(body)),
  decode: (bytes) => (bytes.byteLength === 0 ? undefined : (JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown)),
};

/** The codecs a transport has unless told otherwise. The Protobuf codec is added here once it exists. */
export function defaultCodecs(): BodyCodec[] {
  return [jsonCodec];
}

/** `type/subtype` of a Content-Type header, lower case, parameters dropped. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Picks codecs for one transport: the preferred one when installed, JSON always. */
export class ContentTypes {
  private readonly preferred: BodyCodec | undefined;
  private readonly byMediaType: Map<string, BodyCodec>;

  constructor(contentType: string = DEFAULT_CONTENT_TYPE, codecs: readonly BodyCodec[] = defaultCodecs()) {
    this.byMediaType = new Map(codecs.map((c) => [c.mediaType, c]));
    if (!this.byMediaType.has(JSON_MEDIA_TYPE)) this.byMediaType.set(JSON_MEDIA_TYPE, jsonCodec);
    const wanted = this.byMediaType.get(mediaTypeOf(contentType));
    this.preferred = wanted && wanted !== jsonCodec ? wanted : undefined;
  }

  /** The media type request bodies are sent in when the kind allows it. */
  get preferredMediaType(): string {
    return this.preferred?.mediaType ?? JSON_MEDIA_TYPE;
  }

  /** The codec for a request body: the preferred one if it can encode `body`, else JSON. */
  forRequest(body: unknown): BodyCodec {
    return this.preferred?.canEncode(body) ? this.preferred : jsonCodec;
  }

  /** The Accept header of ordinary requests: the preferred type first, JSON as the fallback. */
  accept(): string {
    return this.preferred ? `${this.preferred.mediaType}, ${JSON_MEDIA_TYPE}` : JSON_MEDIA_TYPE;
  }

  /** The codec for a response with this Content-Type (JSON for anything unknown, e.g. text errors). */
  forResponse(contentType: string | undefined): BodyCodec {
    return this.byMediaType.get(mediaTypeOf(contentType)) ?? jsonCodec;
  }
}
