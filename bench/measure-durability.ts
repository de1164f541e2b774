/**
 * `BENCH_ONLY=durability npm run bench`: the write rate of the embedded store with and without an
 * fsync per commit (`--data-dir-fsync`: the WAL fsynced after each group commit, or not), measured two ways:
 * - the real `apiserver` over HTTPS: ConfigMap creates at concurrency 32 and one at a time;
 * - the store alone in this process (no HTTP, no API machinery): creates with 256 in flight and
 *   one at a time, so the cost of the fsync itself shows without the server's own work.
 * Each mode gets a fresh data directory; the modes alternate over `rounds` and the median is kept.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openEmbeddedStore } from '../src/storage/embedded.js';
import type { LoadResult } from './load.js';
import { createNamespace, measureCreates } from './measure-creates.js';
import { startApiServer, tempDir } from './server-process.js';

export interface DurabilitySettings {
  rounds: number;
  apiCreates: number;
  apiSequentialCreates: number;
  storeCreates: number;
  storeSequentialCreates: number;
}

export interface ModeFigures {
  fsync: boolean;
  apiConcurrentPerSecond: number;
  apiConcurrentP99Ms: number;
  apiSequentialPerSecond: number;
  apiSequentialP50Ms: number;
  storeConcurrentPerSecond: number;
  storeSequentialPerSecond: number;
}

export interface DurabilityFigures {
  settings: DurabilitySettings;
  modes: [ModeFigures, ModeFigures];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function storeRates(fsync: boolean, s: DurabilitySettings): Promise<{ concurrent: number; sequential: number }> {
  const dir = tempDir('svc-bench-durability-store-');
  const store = openEmbeddedStore({ dir, fsync });
  const value = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v'.repeat(200) } }));
  try {
    let next = 0;
    let t = performance.now();
    await Promise.all(
      Array.from({ length: 256 }, async () => {
        while (next < s.storeCreates) await store.create(`/registry/configmaps/default/c-${next++}`, value);
      }),
    );
    const concurrent = s.storeCreates / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < s.storeSequentialCreates; i++) await store.create(`/registry/configmaps/seq/c-${i}`, value);
    const sequential = s.storeSequentialCreates / ((performance.now() - t) / 1000);
    return { concurrent, sequential };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function apiRates(fsync: boolean, s: DurabilitySettings, round: number): Promise<{ concurrent: LoadResult; sequential: LoadResult }> {
  const work = tempDir('svc-bench-durability-api-');
  const api = await startApiServer({ dataDir: join(work, 'data'), certDir: join(work, 'certs'), args: [`--data-dir-fsync=${fsync}`] });
  try {
    const pool = api.pool(32);
    await createNamespace(pool, 'durability');
    // Warm-up: the first requests pay for compilation and caches.
    await measureCreates(pool, { namespace: 'durability', prefix: `warm-${round}`, count: 1_000, concurrency: 32 });
    const concurrent = await measureCreates(pool, { namespace: 'durability', prefix: `c-${round}`, count: s.apiCreates, concurrency: 32 });
    const sequential = await measureCreates(pool, { namespace: 'durability', prefix: `s-${round}`, count: s.apiSequentialCreates, concurrency: 1 });
    return { concurrent, sequential };
  } finally {
    await api.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export async function measureDurability(s: DurabilitySettings, log: (msg: string) => void): Promise<DurabilityFigures> {
  const acc = new Map<boolean, { ac: number[]; ap99: number[]; as: number[]; ap50: number[]; sc: number[]; ss: number[] }>([
    [true, { ac: [], ap99: [], as: [], ap50: [], sc: [], ss: [] }],
    [false, { ac: [], ap99: [], as: [], ap50: [], sc: [], ss: [] }],
  ]);
  for (let round = 0; round < s.rounds; round++) {
    // Alternate the order, so a drift in the machine's load does not favour one mode.
    for (const fsync of round % 2 === 0 ? [true, false] : [false, true]) {
      const a = acc.get(fsync)!;
      const api = await apiRates(fsync, s, round);
      a.ac.push(api.concurrent.perSecond);
      a.ap99.push(api.concurrent.p99Ms);
      a.as.push(api.sequential.perSecond);
      a.ap50.push(api.sequential.p50Ms);
      const store = await storeRates(fsync, s);
      a.sc.push(store.concurrent);
      a.ss.push(store.sequential);
      log(
        `round ${round + 1} fsync=${fsync}: apiserver ${Math.round(api.concurrent.perSecond)}/s at c=32, ${Math.round(api.sequential.perSecond)}/s one at a time; ` +
          `store ${Math.round(store.concurrent)}/s with 256 in flight, ${Math.round(store.sequential)}/s one at a time`,
      );
    }
  }
  const mode = (fsync: boolean): ModeFigures => {
    const a = acc.get(fsync)!;
    return {
      fsync,
      apiConcurrentPerSecond: median(a.ac),
      apiConcurrentP99Ms: median(a.ap99),
      apiSequentialPerSecond: median(a.as),
      apiSequentialP50Ms: median(a.ap50),
      storeConcurrentPerSecond: median(a.sc),
      storeSequentialPerSecond: median(a.ss),
    };
  };
  return { settings: s, modes: [mode(true), mode(false)] };
}
