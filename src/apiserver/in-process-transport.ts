/**
 * The in-process transport of the all-in-one mode: the client's `Transport` (src/client/types.ts)
 * calling the API server's request pipeline directly, with no socket and no TLS.
 *
 * Every stage after TLS runs as for an HTTPS request (src/apiserver/server.ts): authentication
 * (the transport's `user`, default the loopback identity), in-flight limits, --request-timeout
 * deadlines, authorization, routing, decoding, admission, defaulting, validation, storage, and
 * the request metrics (`apiserver_request_total` and friends count these calls too). Watches are
 * long-running, as over HTTPS: not counted against in-flight limits and not given a deadline.
 *
 * No serialisation where it can be avoided: object bodies (create, update, status, scale, binding,
 * DeleteOptions) go in as values and responses come back as values; watch events are values.
 * Patches go in as their JSON text (the patch path parses text). Nothing is shared mutably: the
 * body is `structuredClone`d on the way in (the caller may change its object after the call) and
 * every value on the way out is `structuredClone`d by the response (./in-process-exchange.ts).
 */
import { apiError, isStatus, statusFor } from '../client/api-errors.js';
import { ApiError, singleHeader, type Transport, type TransportRequest, type TransportResponse, type TransportStream } from '../client/types.js';
import { type InProcessBody, InProcessRequest, InProcessResponse, type InProcessUser } from './in-process-exchange.js';
import type { RequestPipeline } from './server.js';

export type { InProcessUser } from './in-process-exchange.js';

/** The identity of in-process calls unless told otherwise: the API server's own loopback user. */
export const LOOPBACK_USER: Readonly<InProcessUser> = Object.freeze({
  username: 'system:apiserver',
  groups: Object.freeze(['system:masters', 'system:authenticated']) as unknown as string[],
});

export interface InProcessTransportOptions {
  /** Who the calls are (e.g. `system:svc-controller-manager`); default LOOPBACK_USER. */
  user?: InProcessUser;
  /** Default `svc-in-process/0.1.0` (the field manager of writes that name none is `svc-in-process`). */
  userAgent?: string;
}

const JSON_MEDIA_TYPE = 'application/json';

/** A running server's pipeline, or anything that has one (`startApiServer`'s result). */
export type PipelineSource = RequestPipeline | { pipeline: RequestPipeline };

export class InProcessTransport implements Transport {
  readonly user: InProcessUser;
  private readonly pipeline: RequestPipeline;
  private readonly userAgent: string;
  private readonly open = new Set<() => void>();

  constructor(source: PipelineSource, opts: InProcessTransportOptions = {}) {
    this.pipeline = 'serve' in source ? source : source.pipeline;
    this.user = { username: (opts.user ?? LOOPBACK_USER).username, groups: [...(opts.user ?? LOOPBACK_USER).groups] };
    this.userAgent = opts.userAgent ?? 'svc-in-process/0.1.0';
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const { request, response } = this.exchange(req, 'whole', singleHeader(req, 'accept') ?? JSON_MEDIA_TYPE);
    // The response may end before the handler does (a --request-timeout 504): answer then, as HTTP does.
    await Promise.race([response.ended, this.pipeline.serve(request, response)]);
    await response.ended;
    const headers = { ...response.responseHeaders };
    const body = bodyOf(response, headers['content-type']);
    if (response.statusCode >= 400) throw errorFrom(response.statusCode, headers, body);
    return { status: response.statusCode, headers, body };
  }

  async stream(req: TransportRequest): Promise<TransportStream> {
    // Events come as values only in JSON; the client decodes nothing else from a watch.
    const { request, response } = this.exchange(req, 'stream', JSON_MEDIA_TYPE);
    const served = this.pipeline.serve(request, response);
    await Promise.race([response.head, served]);
    if (!response.headersSent) await response.head;
    if (response.statusCode >= 400) {
      await response.ended;
      const headers = { ...response.responseHeaders };
      throw errorFrom(response.statusCode, headers, bodyOf(response, headers['content-type']));
    }
    const close = () => {
      this.open.delete(close);
      response.closeFromCaller();
      request.emit('close');
    };
    this.open.add(close);
    const open = this.open;
    async function* events(): AsyncGenerator<{ type: string; object: unknown }> {
      try {
        yield* response.events();
      } finally {
        open.delete(close);
      }
    }
    return { status: response.statusCode, headers: { ...response.responseHeaders }, events: events(), close };
  }

  /** Ends every watch this transport has open (they complete on the caller's side). */
  async close(): Promise<void> {
    for (const close of [...this.open]) close();
  }

  private exchange(req: TransportRequest, mode: 'whole' | 'stream', accept: string): { request: InProcessRequest; response: InProcessResponse } {
    const headers: Record<string, string | string[]> = { 'user-agent': this.userAgent };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = typeof v === 'string' ? v : [...v];
    headers['accept'] = accept;
    const query = new URLSearchParams(req.query ?? {}).toString();
    const url = query ? `${req.path}?${query}` : req.path;
    const request = new InProcessRequest(req.method, url, headers, requestBody(req), this.user);
    return { request, response: new InProcessResponse(mode) };
  }
}

/** The body as the server gets it: a copy of an object, or bytes (raw, or a patch's JSON text). */
function requestBody(req: TransportRequest): InProcessBody {
  if (req.body === undefined) return { kind: 'none' };
  if (req.body instanceof Uint8Array) return { kind: 'bytes', bytes: Buffer.from(req.body) };
  // A body with its own Content-Type (a patch) is a document in that type: send its text.
  if (req.headers?.['content-type']) return { kind: 'bytes', bytes: Buffer.from(JSON.stringify(req.body)) };
  try {
    return { kind: 'value', value: structuredClone(req.body) };
  } catch (err) {
    throw apiError(400, `the request body cannot be copied into the API server: ${(err as Error).message}`, err);
  }
}

/** The response body: a value as it came, or bytes decoded by Content-Type (JSON, text, else raw). */
function bodyOf(response: InProcessResponse, contentType: string | undefined): unknown {
  const r = response.result();
  if (r.kind === 'value') return r.value;
  if (r.bytes.length === 0) return undefined;
  const mt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mt === JSON_MEDIA_TYPE || mt.endsWith('+json')) return JSON.parse(r.bytes.toString('utf8')) as unknown;
  if (mt.startsWith('text/')) return r.bytes.toString('utf8');
  return new Uint8Array(r.bytes);
}

function errorFrom(code: number, headers: Record<string, string>, body: unknown): ApiError {
  const status = isStatus(body) ? body : statusFor(code, typeof body === 'string' && body.trim() ? body.trim() : `HTTP ${code}`);
  const header = headers['retry-after'];
  const retryAfter = header !== undefined && /^\d+$/.test(header) ? Number(header) : status.details?.retryAfterSeconds;
  return new ApiError(code, status, retryAfter);
}
