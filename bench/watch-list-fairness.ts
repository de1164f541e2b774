/**
 * Fairness while initial state is served (issue 23): against a real apiserver process, seed a
 * namespace with `objects` ConfigMaps of about `objectBytes`, then open `watches` watch-list
 * watches at once (`sendInitialEvents=true`; or any other watch or list path) in a worker thread
 * (./watch-list-clients.ts) while this thread probes a GET of one ConfigMap and `/readyz` in closed
 * loops on connections of their own. Figures: probe latencies (p50/p99/max), time until every watch
 * had its initial state and the bookmark that ends it, bytes streamed, errors.
 *
 * Used by test/reliability/watch-list-fairness.test.ts; `node dist/bench/watch-list-fairness.js`
 * runs it alone against a fresh server (OBJECTS, WATCHES, HTTP2_WATCHES, PATH_KIND=watch-list|
 * watch-rv0|list in the environment).
 */
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import type { WatchClientsOptions, WatchClientsResult } from './watch-list-clients.js';

export const FAIRNESS_NAMESPACE = 'fair';

export interface FairnessTarget {
  url: string;
  ca: string;
}

/** What the storm asks for: the watch-list form, a watch from the cache (rv=0), or a plain LIST. */
export type StormKind = 'watch-list' | 'watch-rv0' | 'list';

export function stormPath(kind: StormKind, namespace = FAIRNESS_NAMESPACE): string {
  const base = `/api/v1/namespaces/${namespace}/configmaps`;
  if (kind === 'watch-list') return `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
  if (kind === 'watch-rv0') return `${base}?watch=1&resourceVersion=0`;
  return base;
}

/** A ConfigMap whose JSON is about `bytes` long. */
export function fairnessConfigMap(namespace: string, name: string, bytes: number): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { payload: 'x'.repeat(Math.max(0, bytes - 120)) } });
}

export async function seedConfigMaps(t: FairnessTarget, objects: number, objectBytes: number, namespace = FAIRNESS_NAMESPACE): Promise<void> {
  const pool = new Pool(t.url, { connections: 16, connect: { ca: t.ca, servername: 'localhost' } });
  try {
    const ns = await pool.request({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ metadata: { name: namespace } }), headers: { 'content-type': 'application/json' } });
    await ns.body.text();
    if (ns.statusCode !== 201 && ns.statusCode !== 409) throw new Error(`namespace: ${ns.statusCode}`);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < objects; i = next++) {
        const r = await pool.request({
          method: 'POST',
          path: `/api/v1/namespaces/${namespace}/configmaps`,
          body: fairnessConfigMap(namespace, `cm-${i}`, objectBytes),
          headers: { 'content-type': 'application/json' },
        });
        const text = await r.body.text();
        if (r.statusCode !== 201) throw new Error(`create cm-${i}: ${r.statusCode} ${text}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  } finally {
    await pool.close();
  }
}

export interface Latencies {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

function summarize(samples: number[], failures: number): Latencies {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]! : NaN);
  return { count: s.length, failures, p50: q(0.5), p99: q(0.99), max: s.length ? s[s.length - 1]! : NaN };
}

/** A closed loop of one request every `everyMs` on a connection of its own, until stopped. */
function probe(t: FairnessTarget, path: string, expect: (status: number, body: string) => boolean, everyMs: number): { stop(): Promise<Latencies> } {
  const pool = new Pool(t.url, { connections: 1, connect: { ca: t.ca, servername: 'localhost' } });
  const samples: number[] = [];
  let failures = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        const r = await pool.request({ method: 'GET', path, headers: { accept: 'application/json' } });
        const body = await r.body.text();
        samples.push(performance.now() - t0);
        if (!expect(r.statusCode, body)) failures++;
      } catch {
        samples.push(performance.now() - t0);
        failures++;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await pool.close();
      return summarize(samples, failures);
    },
  };
}

export interface StormOptions extends FairnessTarget {
  kind: StormKind;
  /** Objects in the namespace (each watch must get them all). */
  expectInitial: number;
  http1: number;
  http2: number;
  streamsPerSession?: number;
  timeoutMs: number;
  /** Probe interval (default 50 ms). */
  probeEveryMs?: number;
}

export interface StormFigures {
  kind: StormKind;
  watches: number;
  complete: number;
  wrong: number;
  errors: number;
  errorMessages: string[];
  /** Time until the last watch had its initial state (NaN when not all did). */
  allOpenMs: number;
  p50OpenMs: number;
  /** Time to the response headers (connect, TLS handshake, request): p99 and max. */
  p99HeadersMs: number;
  maxHeadersMs: number;
  /** Event-loop delay of the watch client (the worker), p99 and max. */
  clientLagP99Ms: number;
  clientLagMaxMs: number;
  bytes: number;
  get: Latencies;
  readyz: Latencies;
}

/** Opens the storm in a worker and probes GET and /readyz meanwhile; closes every watch before returning. */
export async function runStorm(o: StormOptions): Promise<StormFigures> {
  const worker = new Worker(new URL('./watch-list-clients.js', import.meta.url), { workerData: { role: 'watch-list-clients' } });
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  const next = (type: string) =>
    Promise.race([failed, new Promise<{ type: string; result?: WatchClientsResult }>((resolve) => {
      const on = (m: { type: string; result?: WatchClientsResult }) => {
        if (m.type === type) {
          worker.off('message', on);
          resolve(m);
        }
      };
      worker.on('message', on);
    })]);
  const every = o.probeEveryMs ?? 50;
  const get = probe(o, `/api/v1/namespaces/${FAIRNESS_NAMESPACE}/configmaps/cm-0`, (s) => s === 200, every);
  const readyz = probe(o, '/readyz', (s, b) => s === 200 && b === 'ok', every);
  const options: WatchClientsOptions = {
    url: o.url,
    ca: o.ca,
    path: stormPath(o.kind),
    expectInitial: o.expectInitial,
    http1: o.http1,
    http2: o.http2,
    streamsPerSession: o.streamsPerSession ?? 100,
    timeoutMs: o.timeoutMs,
    mode: o.kind === 'watch-list' ? 'bookmark' : o.kind === 'watch-rv0' ? 'count' : 'list',
  };
  try {
    const done = next('result');
    worker.postMessage({ type: 'start', options });
    const r = (await done).result!;
    const [g, z] = [await get.stop(), await readyz.stop()];
    const closed = next('closed');
    worker.postMessage({ type: 'close' });
    await closed;
    return {
      kind: o.kind,
      watches: r.watches,
      complete: r.complete,
      wrong: r.wrong,
      errors: r.errors,
      errorMessages: r.errorMessages,
      allOpenMs: r.complete === r.watches ? r.openMs[r.openMs.length - 1]! : NaN,
      p50OpenMs: r.openMs[Math.floor(r.openMs.length / 2)] ?? NaN,
      p99HeadersMs: r.headersMs[Math.min(r.headersMs.length - 1, Math.ceil(0.99 * r.headersMs.length) - 1)] ?? NaN,
      maxHeadersMs: r.headersMs[r.headersMs.length - 1] ?? NaN,
      clientLagP99Ms: r.clientLagP99Ms,
      clientLagMaxMs: r.clientLagMaxMs,
      bytes: r.bytes,
      get: g,
      readyz: z,
    };
  } finally {
    await get.stop().catch(() => undefined);
    await readyz.stop().catch(() => undefined);
    await worker.terminate();
  }
}

const COMPLETE: Record<StormKind, string> = {
  'watch-list': 'every object, then the initial-events-end bookmark',
  'watch-rv0': 'every object as ADDED',
  list: 'the whole body',
};

export function figureLines(label: string, f: StormFigures): string[] {
  const ms = (n: number) => (Number.isNaN(n) ? 'n/a' : `${n.toFixed(0)} ms`);
  return [
    `${label}: ${f.complete}/${f.watches} ${f.kind} complete (${COMPLETE[f.kind]}), ${f.wrong} wrong, ${f.errors} errors${f.errorMessages.length ? ` (${f.errorMessages.join('; ')})` : ''}`,
    `${label}: all open in ${ms(f.allOpenMs)} (p50 ${ms(f.p50OpenMs)}), ${(f.bytes / 2 ** 30).toFixed(2)} GiB streamed; response headers p99 ${ms(f.p99HeadersMs)} max ${ms(f.maxHeadersMs)}; client event-loop delay p99 ${ms(f.clientLagP99Ms)} max ${ms(f.clientLagMaxMs)}`,
    `${label}: GET p50 ${ms(f.get.p50)} p99 ${ms(f.get.p99)} max ${ms(f.get.max)} (${f.get.count} probes, ${f.get.failures} failed)`,
    `${label}: /readyz p50 ${ms(f.readyz.p50)} p99 ${ms(f.readyz.p99)} max ${ms(f.readyz.max)} (${f.readyz.count} probes, ${f.readyz.failures} failed)`,
  ];
}
