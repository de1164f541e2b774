/**
 * Memory with many objects stored: create `count` ConfigMaps at the benchmark concurrency, pause so
 * the server's garbage collector can settle, then read the server's VmRSS from /proc/<pid>/status.
 */
import type { Dispatcher } from 'undici';
import type { LoadResult } from './load.js';
import { measureCreates } from './measure-creates.js';
import type { ServerProcess } from './server-process.js';

export interface RssOptions {
  namespace: string;
  prefix: string;
  count: number;
  concurrency: number;
  /** Pause after the last create before RSS is read. */
  settleMs: number;
}

export interface RssResult {
  create: LoadResult;
  rssBytes: number;
  peakRssBytes: number;
  settleMs: number;
}

export async function measureRss(server: ServerProcess, pool: Dispatcher, opts: RssOptions): Promise<RssResult> {
  const create = await measureCreates(pool, opts);
  await new Promise((r) => setTimeout(r, opts.settleMs));
  return { create, rssBytes: server.rssBytes(), peakRssBytes: server.peakRssBytes(), settleMs: opts.settleMs };
}
