/**
 * The ceiling: the same load client against the bare Node.js HTTPS server (bench/bare-server.ts),
 * GETs and POSTs of a fixed 300-byte answer at the same concurrency as the API server runs.
 */
import type { Dispatcher } from 'undici';
import { type LoadResult, runLoad } from './load.js';
import { configMapBody } from './measure-creates.js';

export interface CeilingOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface CeilingResult {
  get: LoadResult;
  post: LoadResult;
}

export async function measureCeiling(pool: Dispatcher, opts: CeilingOptions): Promise<CeilingResult> {
  const get = (durationMs: number) =>
    runLoad({ pool, concurrency: opts.concurrency, durationMs, expectStatus: 200, next: () => ({ method: 'GET', path: '/fixed' }) });
  const post = (durationMs: number) =>
    runLoad({
      pool,
      concurrency: opts.concurrency,
      durationMs,
      expectStatus: 200,
      next: (i) => ({ method: 'POST', path: '/fixed', body: configMapBody('bench', `cm-${i}`) }),
    });
  await get(opts.warmupMs);
  const g = await get(opts.durationMs);
  await post(opts.warmupMs);
  const p = await post(opts.durationMs);
  return { get: g, post: p };
}
