/**
 * Calls from the API server to the services authentication and authorization consult: the token
 * review and access review webhooks (a JSON POST to the server a kubeconfig-format file names,
 * with its CA, client certificate or token) and the OIDC issuer (JSON GETs of its discovery
 * document and keys over HTTPS, trusting --oidc-ca-file).
 *
 * The established webhook client's rules, kept:
 * - each call has a deadline (30 s);
 * - a failed call is retried with exponential backoff (0.5 s, x1.5, 20% jitter, 5 attempts in
 *   all), but only for failures that say "try again": a reset connection, HTTP 500, 504, 429, or
 *   any answer with Retry-After. A refused connection or another status is an error at once, so a
 *   webhook that is down costs one failed connect, not seconds per request;
 * - an answer other than 2xx, or a body that is not JSON, is an error (the caller decides what an
 *   error means: 401 for authentication, no opinion for authorization).
 */
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { ClientConfig } from '../../client/svcconfig.js';

/** How to reach one remote service. */
export interface RemoteTarget {
  /** The full URL (a webhook's path included). */
  url: string;
  tls?: { ca?: string; cert?: string; key?: string; serverName?: string; insecureSkipVerify?: boolean };
  /** Sent as `Authorization: Bearer`. */
  token?: string;
}

export interface RemoteAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A failed call: the status (0 for a connection error) and whether the established client retries it. */
export class RemoteCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'RemoteCallError';
  }
}

export const WEBHOOK_TIMEOUT_MS = 30_000;

/** Exponential backoff: the first wait, its growth per attempt, added jitter (a fraction), attempts in all. */
export interface Backoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** The established DefaultAuthWebhookRetryBackoff. */
export const WEBHOOK_BACKOFF: Readonly<Backoff> = Object.freeze({ initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 });

const RETRYABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_HTTP2_STREAM_ERROR']);

/** One HTTP(S) exchange; no retries. Rejects with RemoteCallError. */
export function callRemote(
  target: RemoteTarget,
  method: 'GET' | 'POST',
  body: string | undefined,
  opts: { timeoutMs?: number; agent?: HttpAgent; signal?: AbortSignal } = {},
): Promise<RemoteAnswer> {
  const url = new URL(target.url);
  const https = url.protocol === 'https:';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  if (target.token) headers['authorization'] = `Bearer ${target.token}`;
  const tls = target.tls ?? {};
  return new Promise<RemoteAnswer>((resolve, reject) => {
    const options = {
      method,
      headers,
      timeout: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      ...(opts.agent ? { agent: opts.agent } : {}),
      // A whole-call deadline (admission webhooks' timeoutSeconds); `timeout` above is per idle socket.
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(https
        ? {
            ...(tls.ca ? { ca: tls.ca } : {}),
            ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
            ...(tls.serverName ? { servername: tls.serverName } : {}),
            rejectUnauthorized: !tls.insecureSkipVerify,
          }
        : {}),
    };
    const req = (https ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => reject(new RemoteCallError(`${method} ${target.url}: ${err.message}`, 0, true)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${options.timeout} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A timeout is the established client's "Timeout" error, which it retries like a reset.
      const retryable = RETRYABLE_CODES.has(err.code ?? '') || err.code === 'ETIMEDOUT';
      reject(new RemoteCallError(`${method} ${target.url}: ${err.message}`, 0, retryable));
    });
    req.end(body);
  });
}

/** The JSON body of a 2xx answer, else a RemoteCallError (retryable as the established client judges). */
export function jsonOf(target: RemoteTarget, answer: RemoteAnswer): unknown {
  if (answer.status < 200 || answer.status > 299) {
    const retryable = answer.status === 500 || answer.status === 504 || answer.status === 429 || answer.headers['retry-after'] !== undefined;
    const excerpt = answer.body.length > 200 ? `${answer.body.slice(0, 200)}...` : answer.body;
    throw new RemoteCallError(`${target.url} answered ${answer.status}: ${excerpt}`, answer.status, retryable);
  }
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    throw new RemoteCallError(`${target.url} answered with a body that is not JSON`, answer.status, false);
  }
}

/** A webhook named by a kubeconfig-format file: POSTs one JSON document and returns the JSON answer. */
export class WebhookClient {
  private readonly target: RemoteTarget;
  private readonly agent: HttpAgent;

  constructor(
    config: ClientConfig,
    private readonly opts: { timeoutMs?: number; backoff?: Readonly<Backoff> } = {},
  ) {
    this.target = {
      url: config.server,
      tls: { ...config.tls },
      ...(config.token ? { token: config.token } : {}),
    };
    // Keep-alive: a busy server asks its webhook for every request it has not cached.
    this.agent = this.target.url.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  get url(): string {
    return this.target.url;
  }

  async post(document: unknown): Promise<unknown> {
    const body = JSON.stringify(document);
    const backoff = this.opts.backoff ?? WEBHOOK_BACKOFF;
    let wait = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await callRemote(this.target, 'POST', body, { agent: this.agent, timeoutMs: this.opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS });
        return jsonOf(this.target, answer);
      } catch (err) {
        if (!(err instanceof RemoteCallError) || !err.retryable || attempt >= backoff.steps) throw err;
        await new Promise((r) => setTimeout(r, wait * (1 + Math.random() * backoff.jitter)));
        wait *= backoff.factor;
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * The webhooks' answer cache: entries live for the TTL they were stored with; at most `max`
 * entries (the oldest stored goes first), so a flood of distinct tokens cannot grow it without end.
 * Concurrent look-ups of one key that miss share one call (`load`), as the established cache does.
 */
export class AnswerCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly pending = new Map<string, Promise<V>>();

  constructor(private readonly max = 10_000) {}

  get(key: string, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expires: now + ttlMs });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The cached value, or the one `load` gives (shared by concurrent callers of the same key; not cached here: `load` stores what it wants). */
  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const running = this.pending.get(key);
    if (running) return running;
    const p = load().finally(() => this.pending.delete(key));
    this.pending.set(key, p);
    return p;
  }
}
