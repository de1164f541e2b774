/**
 * The HTTP(S) transport: undici with keep-alive and HTTP/2 where the server offers it (ALPN),
 * TLS and credentials from the client configuration, a client-side token bucket, and bounded
 * retries.
 *
 * Retries (at most `retry.maxAttempts` tries in all, default 5):
 * - 429 and 5xx with a `Retry-After` header (or `details.retryAfterSeconds`): any verb, after the
 *   time the server asked for; the server said the request was not done.
 * - 5xx without it, and connection failures (refused, reset, closed): only idempotent verbs
 *   (GET, PUT, DELETE), after an exponential back-off (`initialDelayMs` doubling to `maxDelayMs`).
 * Every try takes a token from the rate limiter first. The last failure is returned as is (a
 * response) or thrown as an `ApiError`.
 *
 * Bodies: see ./body-codecs.ts (`--svc-api-content-type`, Protobuf by default where the kind has
 * it, JSON otherwise; a body the server refuses with 415 in Protobuf is sent again as JSON). Watch
 * streams are decoded by their Content-Type (Protobuf frames or JSON lines) and are never timed
 * out by the client (bookmarks or the server end them).
 */
import { Readable } from 'node:stream';
import { createSecureContext } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { ProtobufDecodeError } from '../codec/protobuf/index.js';
import { apiError, isStatus, statusFor } from './api-errors.js';
import { ContentTypes, DEFAULT_CONTENT_TYPE, JSON_MEDIA_TYPE, jsonCodec, type BodyCodec, type WatchDecoder, type WireWatchEvent } from './body-codecs.js';
import { type Clock, sleep, systemClock } from './clock.js';
import type { ClientConfig } from './svcconfig.js';
import { FileTokenSource, type TokenSource } from './file-token-source.js';
import { DEFAULT_BURST, DEFAULT_QPS, TokenBucket } from './token-bucket.js';
import { ApiError, singleHeader, type Transport, type TransportRequest, type TransportResponse, type TransportStream } from './types.js';

export interface RetryPolicy {
  /** Tries in all, the first included. Default 5; 1 turns retries off. */
  maxAttempts: number;
  /** Back-off before the second try when the server gave no Retry-After. Default 250 ms. */
  initialDelayMs: number;
  /** Cap of the doubling back-off. Default 10 s. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 10_000 };

export interface HttpTransportOptions {
  /** `--svc-api-qps`; default 20. `<= 0` turns the limiter off. */
  qps?: number;
  /** `--svc-api-burst`; default 30. */
  burst?: number;
  /** `--svc-api-content-type`; default `application/vnd.svc.protobuf` (JSON when no codec fits). */
  contentType?: string;
  /** Installed body codecs; default `defaultCodecs()`. */
  codecs?: readonly BodyCodec[];
  retry?: Partial<RetryPolicy>;
  /**
   * Offer HTTP/2 through ALPN. Default false: HTTP/1.1 over a keep-alive pool costs this client
   * (Node's HTTP/2 and undici's use of it) markedly less CPU per request (SchedulingBasic over
   * HTTPS: about 715 -> 900 pods/s); a watch then holds a connection of its own.
   */
  http2?: boolean;
  /** Time for the rate limiter and back-off. Default the system clock. */
  clock?: Clock;
  /**
   * Longest wait for a response's headers, and between two chunks of its body, in ms (watches are
   * never timed out). Default undici's (300 s); the leader-election client uses the renew deadline.
   */
  requestTimeoutMs?: number;
  /** Default `svc-client/<version>`. */
  userAgent?: string;
  /** Called before each retry's wait (for logs and metrics). */
  onRetry?: (retry: RetryInfo) => void;
  /** Called with each final response's headers, before its body is read (for logs and metrics). */
  onResponse?: (exchange: ExchangeInfo) => void;
  /**
   * The bearer token of each request, asked per request (e.g. a TokenRequest token kept fresh);
   * wins over the configuration's token and token file.
   */
  tokenSource?: TokenSource;
}

/** What went over the wire for one request (the last try of it). */
export interface ExchangeInfo {
  method: string;
  path: string;
  status: number;
  /** Content-Type of the request body; undefined without a body. */
  requestContentType: string | undefined;
  /** The Accept header sent. */
  accept: string;
  /** Content-Type the server answered with. */
  responseContentType: string | undefined;
}

/** Why and when a request is tried again. */
export interface RetryInfo {
  method: string;
  path: string;
  /** The try that failed (1 = the first). */
  attempt: number;
  /** The HTTP status, or the connection error code. */
  cause: number | string;
  delayMs: number;
  /** Whether the delay came from the server's Retry-After. */
  fromRetryAfter: boolean;
}

/** Verbs that may be resent after a connection failure or a plain 5xx. */
const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE']);

/** undici/Node error codes of a connection that failed or broke before a response. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT',
]);

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERRORS.has(code)) return code;
  }
  return undefined;
}

/** Seconds from a Retry-After header (delta seconds or an HTTP date). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function flatHeaders(h: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Which encoding a request body takes: per the content types, or JSON (after a 415). */
type BodyType = 'preferred' | 'json';

/** Where a request went wrong, as the retry loop sees it. */
type Attempt =
  | { outcome: 'response'; res: Dispatcher.ResponseData }
  | { outcome: 'connectionFailed'; error: unknown };

export class HttpTransport implements Transport {
  readonly server: string;
  readonly limiter: TokenBucket;
  readonly contentTypes: ContentTypes;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly agent: Agent;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly baseHeaders: Record<string, string>;
  /** Set when the token came from a file (read again once it is a minute old) or from `opts.tokenSource`. */
  private readonly tokenSource: TokenSource | undefined;
  private readonly onRetry: ((retry: RetryInfo) => void) | undefined;
  private readonly onResponse: ((exchange: ExchangeInfo) => void) | undefined;

  constructor(config: ClientConfig, opts: HttpTransportOptions = {}) {
    const url = new URL(config.server);
    this.server = config.server;
    this.origin = url.origin;
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.clock = opts.clock ?? systemClock;
    this.limiter = new TokenBucket(opts.qps ?? DEFAULT_QPS, opts.burst ?? DEFAULT_BURST, this.clock);
    this.contentTypes = new ContentTypes(opts.contentType ?? DEFAULT_CONTENT_TYPE, opts.codecs);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.onRetry = opts.onRetry;
    this.onResponse = opts.onResponse;
    const connect: Record<string, unknown> = { rejectUnauthorized: !config.tls.insecureSkipVerify };
    // One TLS context for every connection: handing `ca`/`cert`/`key` to each connect would parse
    // them again per connection (the pool opens one per concurrent request it has no idle one for).
    if (config.tls.ca || config.tls.cert || config.tls.key) {
      connect['secureContext'] = createSecureContext({
        ...(config.tls.ca ? { ca: config.tls.ca } : {}),
        ...(config.tls.cert ? { cert: config.tls.cert } : {}),
        ...(config.tls.key ? { key: config.tls.key } : {}),
      });
    }
    if (config.tls.serverName) connect['servername'] = config.tls.serverName;
    this.agent = new Agent({
      allowH2: opts.http2 ?? false,
      connect,
      ...(opts.requestTimeoutMs ? { headersTimeout: opts.requestTimeoutMs, bodyTimeout: opts.requestTimeoutMs } : {}),
    });
    this.baseHeaders = { 'user-agent': opts.userAgent ?? 'svc-client/0.1.0' };
    if (opts.tokenSource) this.tokenSource = opts.tokenSource;
    else if (config.tokenFile) this.tokenSource = new FileTokenSource(config.tokenFile, this.clock);
    else if (config.token) this.baseHeaders['authorization'] = `Bearer ${config.token}`;
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    let res = await this.send(req, false, undefined, 'preferred');
    if (res.statusCode === 415 && this.encode(req, 'preferred').contentType !== this.encode(req, 'json').contentType) {
      // The server does not take this body in the preferred type here: once more as JSON.
      await res.body.dump();
      res = await this.send(req, false, undefined, 'json');
    }
    const bytes = new Uint8Array(await res.body.arrayBuffer());
    const headers = flatHeaders(res.headers);
    const codec = this.contentTypes.forResponse(headers['content-type']);
    if (res.statusCode >= 400) throw this.errorFrom(res.statusCode, headers, codec, bytes);
    let body: unknown;
    try {
      body = codec.decode(bytes);
    } catch (err) {
      throw apiError(500, `cannot decode the ${headers['content-type'] ?? 'untyped'} response to ${req.method} ${req.path}: ${(err as Error).message}`, err);
    }
    return { status: res.statusCode, headers, body };
  }

  async stream(req: TransportRequest): Promise<TransportStream> {
    const ac = new AbortController();
    const res = await this.send(req, true, ac.signal, 'preferred');
    const headers = flatHeaders(res.headers);
    const codec = this.contentTypes.forResponse(headers['content-type']);
    if (res.statusCode >= 400) {
      const bytes = new Uint8Array(await res.body.arrayBuffer());
      throw this.errorFrom(res.statusCode, headers, codec, bytes);
    }
    return { status: res.statusCode, headers, events: watchEvents(res.body, codec.watchDecoder(), ac.signal, this.server), close: () => ac.abort() };
  }

  /** Closes every connection (open watches end). */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private errorFrom(code: number, headers: Record<string, string>, codec: BodyCodec, bytes: Uint8Array): ApiError {
    let decoded: unknown;
    try {
      decoded = codec.decode(bytes);
    } catch {
      decoded = undefined;
    }
    const status = isStatus(decoded) ? decoded : statusFor(code, Buffer.from(bytes).toString('utf8').trim() || `HTTP ${code}`);
    const retryAfter = parseRetryAfter(headers['retry-after'], this.clock.now()) ?? status.details?.retryAfterSeconds;
    return new ApiError(code, status, retryAfter);
  }

  /** Sends with rate limiting and the retry policy; the response is the first success or last failure. */
  private async send(req: TransportRequest, streaming: boolean, signal: AbortSignal | undefined, bodyType: BodyType): Promise<Dispatcher.ResponseData> {
    const { body, contentType } = this.encode(req, bodyType);
    const query = new URLSearchParams(req.query ?? {}).toString();
    const path = `${this.pathPrefix}${req.path}${query ? `?${query}` : ''}`;
    const accept = this.contentTypes.accept(req.typeMeta);
    const headers: Record<string, string | string[]> = {
      ...this.baseHeaders,
      ...(this.tokenSource ? { authorization: `Bearer ${this.tokenSource.token()}` } : {}),
      accept,
    };
    // A list goes as repeated header lines (undici sends each value of an array as its own line).
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = typeof v === 'string' ? v : [...v];
    if (contentType) headers['content-type'] = contentType;
    for (let attempt = 1; ; attempt++) {
      await this.limiter.take(signal);
      // undici's HTTP/2 path sizes buffer bodies only for PUT/POST/PATCH; a DELETE body (DeleteOptions
      // with preconditions) goes as a one-chunk stream instead, made afresh for every try.
      const sent = body && req.method === 'DELETE' ? Readable.from([body]) : body;
      const a = await this.tryOnce({ origin: this.origin, path, method: req.method, headers, body: sent, signal, ...(streaming ? { bodyTimeout: 0 } : {}) });
      const last = attempt >= this.retry.maxAttempts;
      if (a.outcome === 'connectionFailed') {
        if (last || !IDEMPOTENT.has(req.method) || signal?.aborted) throw this.connectionError(req, a.error);
        const delayMs = this.backoff(attempt);
        this.onRetry?.({ method: req.method, path: req.path, attempt, cause: errorCode(a.error)!, delayMs, fromRetryAfter: false });
        await sleep(this.clock, delayMs, signal);
        continue;
      }
      const status = a.res.statusCode;
      if (last || !(status === 429 || status >= 500)) {
        this.onResponse?.({
          method: req.method,
          path: req.path,
          status,
          requestContentType: contentType,
          accept: singleHeader({ headers }, 'accept') ?? accept,
          responseContentType: flatHeaders(a.res.headers)['content-type'],
        });
        return a.res;
      }
      const retryAfter = parseRetryAfter(flatHeaders(a.res.headers)['retry-after'], this.clock.now());
      if (retryAfter === undefined && !IDEMPOTENT.has(req.method)) return a.res;
      await a.res.body.dump();
      const delayMs = retryAfter !== undefined ? retryAfter * 1000 : this.backoff(attempt);
      this.onRetry?.({ method: req.method, path: req.path, attempt, cause: status, delayMs, fromRetryAfter: retryAfter !== undefined });
      await sleep(this.clock, delayMs, signal);
    }
  }

  private async tryOnce(opts: Dispatcher.RequestOptions): Promise<Attempt> {
    try {
      return { outcome: 'response', res: await this.agent.request(opts) };
    } catch (error) {
      if (errorCode(error)) return { outcome: 'connectionFailed', error };
      throw this.connectionError({ method: opts.method as TransportRequest['method'], path: opts.path }, error);
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.retry.initialDelayMs * 2 ** (attempt - 1), this.retry.maxDelayMs);
  }

  private connectionError(req: Pick<TransportRequest, 'method' | 'path'>, error: unknown): ApiError {
    const code = errorCode(error);
    const why = (error as Error)?.message ?? String(error);
    return apiError(503, `${req.method} ${this.server}${req.path}: ${code ? `${code}: ` : ''}${why}`, error);
  }

  private encode(req: TransportRequest, bodyType: BodyType): { body?: Uint8Array; contentType?: string } {
    if (req.body === undefined) return {};
    const explicit = singleHeader(req, 'content-type');
    if (req.body instanceof Uint8Array) return { body: req.body, contentType: explicit ?? 'application/octet-stream' };
    // Patches name their own (JSON-based) content type; everything else goes through the codecs.
    if (explicit) return { body: jsonCodec.encode(req.body), contentType: explicit };
    if (bodyType === 'json') return { body: jsonCodec.encode(req.body), contentType: JSON_MEDIA_TYPE };
    const encoded = this.contentTypes.encode(req.body);
    return { body: encoded.bytes, contentType: encoded.mediaType };
  }
}

/** Decodes a watch body with the decoder of its Content-Type; an abort by `close()` ends it quietly. */
async function* watchEvents(body: Readable, decoder: WatchDecoder, signal: AbortSignal, server: string): AsyncGenerator<WireWatchEvent> {
  let pending: WireWatchEvent[] = [];
  try {
    for await (const chunk of body) {
      pending = decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      for (const ev of pending) yield ev;
      pending = [];
    }
    pending = decoder.end();
  } catch (err) {
    if (signal.aborted) return;
    if (err instanceof SyntaxError || err instanceof ProtobufDecodeError) throw apiError(500, `undecodable watch event from ${server}: ${err.message}`, err);
    throw apiError(503, `watch connection to ${server} broke: ${(err as Error).message}`, err);
  } finally {
    if (!body.destroyed) body.destroy();
  }
  for (const ev of pending) yield ev;
}
