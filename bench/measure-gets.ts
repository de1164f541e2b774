/**
 * Gets by name: GETs of existing ConfigMaps, spread over all of them in a fixed pseudo-random order
 * (so no single object is hot), for a fixed time at a fixed concurrency.
 */
import type { Dispatcher } from 'undici';
import { type LoadResult, runLoad } from './load.js';
import { objectName } from './measure-creates.js';

export interface GetOptions {
  namespace: string;
  prefix: string;
  /** How many objects `<prefix>-0 .. <prefix>-(count-1)` exist. */
  count: number;
  concurrency: number;
  durationMs: number;
}

export function measureGets(pool: Dispatcher, opts: GetOptions): Promise<LoadResult> {
  const base = `/api/v1/namespaces/${opts.namespace}/configmaps/`;
  // A large prime stride visits every index before repeating when count is not a multiple of it.
  const STRIDE = 7_919;
  return runLoad({
    pool,
    concurrency: opts.concurrency,
    durationMs: opts.durationMs,
    expectStatus: 200,
    next: (i) => ({ method: 'GET', path: base + objectName(opts.prefix, (i * STRIDE) % opts.count) }),
  });
}
