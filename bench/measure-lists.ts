/**
 * Lists: the time to receive a whole 5,000-item list, and to walk the same list in chunks of 500
 * (`limit` + `continue`, one chunk after the other, as a paging client does). Each figure is the
 * median of several runs after warm-up runs. The clock stops at the last byte of the body: the
 * client does not decode the items (that is client cost, not server cost), except for reading the
 * `continue` token it needs to ask for the next chunk.
 */
import type { Dispatcher } from 'undici';
import { median, nowMs } from './load.js';

export interface ListOptions {
  /** e.g. `/api/v1/namespaces/bench/configmaps` */
  path: string;
  /** The item count the whole list must have; checked once, outside the timing. */
  expectItems: number;
  chunkSize: number;
  warmupRuns: number;
  runs: number;
}

export interface ListResult {
  wholeMs: number;
  wholeRunsMs: number[];
  wholeBytes: number;
  chunkedMs: number;
  chunkedRunsMs: number[];
  chunks: number;
  chunkedBytes: number;
}

async function fetchBody(pool: Dispatcher, path: string): Promise<Buffer> {
  const res = await pool.request({ method: 'GET', path, headers: { accept: 'application/json' } });
  const parts: Buffer[] = [];
  for await (const c of res.body) parts.push(c as Buffer);
  const body = Buffer.concat(parts);
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}: ${body.toString().slice(0, 500)}`);
  return body;
}

const CONTINUE = /"continue":"([^"]*)"/;

/** The list's `metadata.continue`, looked for only in the list's head and tail (never in items). */
export function continueToken(body: Buffer): string | undefined {
  const head = CONTINUE.exec(body.subarray(0, 2048).toString());
  const m = head ?? CONTINUE.exec(body.subarray(Math.max(0, body.length - 2048)).toString());
  return m?.[1] || undefined;
}

async function walkChunks(pool: Dispatcher, path: string, limit: number): Promise<{ chunks: number; bytes: number; items?: number }> {
  let token: string | undefined;
  let chunks = 0;
  let bytes = 0;
  do {
    const q = `?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
    const body = await fetchBody(pool, path + q);
    chunks++;
    bytes += body.length;
    token = continueToken(body);
    if (chunks > 100_000) throw new Error('list never ends');
  } while (token);
  return { chunks, bytes };
}

export async function measureLists(pool: Dispatcher, opts: ListOptions): Promise<ListResult> {
  const first = await fetchBody(pool, opts.path);
  const items = (JSON.parse(first.toString()) as { items: unknown[] }).items.length;
  if (items !== opts.expectItems) throw new Error(`GET ${opts.path}: expected ${opts.expectItems} items, got ${items}`);

  const wholeRunsMs: number[] = [];
  let wholeBytes = first.length;
  for (let i = 0; i < opts.warmupRuns + opts.runs; i++) {
    const t0 = nowMs();
    const body = await fetchBody(pool, opts.path);
    const ms = nowMs() - t0;
    wholeBytes = body.length;
    if (i >= opts.warmupRuns) wholeRunsMs.push(ms);
  }

  const chunkedRunsMs: number[] = [];
  let chunks = 0;
  let chunkedBytes = 0;
  for (let i = 0; i < opts.warmupRuns + opts.runs; i++) {
    const t0 = nowMs();
    const r = await walkChunks(pool, opts.path, opts.chunkSize);
    const ms = nowMs() - t0;
    chunks = r.chunks;
    chunkedBytes = r.bytes;
    if (i >= opts.warmupRuns) chunkedRunsMs.push(ms);
  }
  const expectedChunks = Math.ceil(opts.expectItems / opts.chunkSize);
  if (chunks < expectedChunks) throw new Error(`chunked list of ${opts.expectItems} by ${opts.chunkSize}: only ${chunks} chunks`);
  return { wholeMs: median(wholeRunsMs), wholeRunsMs, wholeBytes, chunkedMs: median(chunkedRunsMs), chunkedRunsMs, chunks, chunkedBytes };
}

/**
 * The ceiling for the same lists: the bare server answering bodies of the same sizes
 * (`/sized/<bytes>`), once whole and as `chunks` sequential answers of the average chunk size.
 */
export async function measureSizedCeiling(
  pool: Dispatcher,
  opts: { wholeBytes: number; chunks: number; chunkedBytes: number; warmupRuns: number; runs: number },
): Promise<{ wholeMs: number; chunkedMs: number }> {
  const chunkBytes = Math.round(opts.chunkedBytes / Math.max(1, opts.chunks));
  const whole: number[] = [];
  const chunked: number[] = [];
  for (let i = 0; i < opts.warmupRuns + opts.runs; i++) {
    let t0 = nowMs();
    await fetchBody(pool, `/sized/${opts.wholeBytes}`);
    if (i >= opts.warmupRuns) whole.push(nowMs() - t0);
    t0 = nowMs();
    for (let c = 0; c < opts.chunks; c++) await fetchBody(pool, `/sized/${chunkBytes}`);
    if (i >= opts.warmupRuns) chunked.push(nowMs() - t0);
  }
  return { wholeMs: median(whole), chunkedMs: median(chunked) };
}
