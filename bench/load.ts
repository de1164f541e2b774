/**
 * The closed-loop load client: `concurrency` workers, each sending its next request as soon as the
 * previous answer is fully read, over a keep-alive pool with one connection per worker, so exactly
 * `concurrency` requests are in flight at all times. Latency is per request, from just before the
 * request is handed to undici to the last byte of its body (process.hrtime).
 */
import type { Dispatcher } from 'undici';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Buffer;
  /** Accept header (default application/json). */
  accept?: string;
}

export interface LoadOptions {
  pool: Dispatcher;
  concurrency: number;
  /** Stop after this many requests ... */
  total?: number;
  /** ... or after this long, whichever comes first (at least one must be given). */
  durationMs?: number;
  /** The i-th request (i counts from 0 across all workers). */
  next(i: number): LoadRequest;
  /** The status every answer must have; anything else fails the run with the answer's body. */
  expectStatus: number;
  /** Sent with every request (e.g. `authorization: Bearer <token>`). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Bytes of response body received in total. */
  bytes: number;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The q-quantile (0..1) of already sorted values, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.total === undefined && opts.durationMs === undefined) throw new Error('runLoad needs total or durationMs');
  const total = opts.total ?? Number.POSITIVE_INFINITY;
  const capacity = Number.isFinite(total) ? total : 1 << 22;
  const latencies = new Float64Array(capacity);
  let issued = 0;
  let done = 0;
  let bytes = 0;
  const start = nowMs();
  const end = opts.durationMs !== undefined ? start + opts.durationMs : Number.POSITIVE_INFINITY;

  const worker = async () => {
    while (issued < total && issued < capacity && nowMs() < end) {
      const i = issued++;
      const r = opts.next(i);
      const t0 = nowMs();
      const res = await opts.pool.request({
        method: r.method,
        path: r.path,
        body: r.body,
        headers: { ...(r.body ? JSON_HEADERS : { accept: r.accept ?? 'application/json' }), ...opts.headers },
      });
      if (res.statusCode !== opts.expectStatus) {
        const text = await res.body.text();
        throw new Error(`${r.method} ${r.path}: expected ${opts.expectStatus}, got ${res.statusCode}: ${text.slice(0, 500)}`);
      }
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      latencies[done++] = nowMs() - t0;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (nowMs() - start) / 1000;
  const sorted = latencies.subarray(0, done).sort();
  return {
    requests: done,
    seconds,
    perSecond: done / seconds,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    bytes,
  };
}

/** One request outside the load loop (setup steps); fails unless the status is one of `ok`. */
export async function call(
  pool: Dispatcher,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  ok: number[] = [200, 201],
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const res = await pool.request({
    method,
    path,
    body: payload,
    headers: payload ? JSON_HEADERS : { accept: 'application/json' },
  });
  const text = await res.body.text();
  if (!ok.includes(res.statusCode)) throw new Error(`${method} ${path}: ${res.statusCode}: ${text.slice(0, 500)}`);
  return { status: res.statusCode, text };
}
