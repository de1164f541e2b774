/**
 * Watch delivery: `watchers` open watch streams, then sequential writes a few ms apart. For each
 * write, latency = from the write's response arriving at the client to the moment the last of the
 * watchers has parsed the event for that object (matched by name). All watchers and the writer
 * share the bench process, so the client's own parsing of 100 streams is inside the figure, as it
 * is for any client doing the same.
 */
import { Worker } from 'node:worker_threads';
import type { Dispatcher } from 'undici';
import { call, nowMs, quantile } from './load.js';
import type { WatchWorkerData, WatchWorkerMessage } from './watch-worker.js';

export interface WatchOptions {
  /** Pool for the writes. */
  writePool: Dispatcher;
  /** Server origin and CA for the watch connections (opened in the worker threads). */
  url: string;
  ca: string;
  /** Worker threads the watchers are spread over (each holds its own connections). */
  threads: number;
  /** Sent with every watch request (e.g. a bearer token). */
  watchHeaders?: Record<string, string>;
  /** The watch request, e.g. `/api/v1/namespaces/w/configmaps?watch=1&resourceVersion=123`. */
  watchPath: string;
  /** Where writes are POSTed. */
  writePath: string;
  writeBody(name: string): Buffer;
  watchers: number;
  warmupWrites: number;
  writes: number;
  /** Pause between one write being fully delivered and the next write. */
  gapMs: number;
  /** How long to wait for every watch's response headers before the first write. */
  attachWaitMs: number;
  /** Give up on a write that not every watcher saw within this time. */
  timeoutMs: number;
}

export interface WatchResult {
  watchers: number;
  threads: number;
  writes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Writes whose event had reached every watcher before the write's own response (counted as 0 ms). */
  deliveredBeforeResponse: number;
}

interface Pending {
  groupsDone: number;
  lastAt: number;
  done: () => void;
}

const WORKER = new URL('./watch-worker.js', import.meta.url);

export async function measureWatchFanout(opts: WatchOptions): Promise<WatchResult> {
  const pending = new Map<string, Pending>();
  const failed: { error?: Error } = {};
  const failure = (): Error | undefined => failed.error;
  let attached = 0;
  const threads = Math.max(1, Math.min(opts.threads, opts.watchers));
  const workers: Worker[] = [];
  for (let t = 0; t < threads; t++) {
    // Watchers split as evenly as possible; a watch from a resourceVersion replays anything it
    // missed while connecting, so the warm-up writes also prove every watcher is attached.
    const count = Math.floor(opts.watchers / threads) + (t < opts.watchers % threads ? 1 : 0);
    const data: WatchWorkerData = { url: opts.url, ca: opts.ca, path: opts.watchPath, watchers: count, ...(opts.watchHeaders ? { headers: opts.watchHeaders } : {}) };
    const w = new Worker(WORKER, { workerData: data });
    w.on('message', (m: WatchWorkerMessage) => {
      if (m.kind === 'attached') attached++;
      else if (m.kind === 'error') failed.error ??= new Error(m.message);
      else if (m.kind === 'seen') {
        const p = pending.get(m.name);
        if (!p) return;
        p.groupsDone++;
        p.lastAt = Math.max(p.lastAt, m.at);
        if (p.groupsDone === threads) p.done();
      }
    });
    w.on('error', (err) => (failed.error ??= err));
    workers.push(w);
  }
  const stopWorkers = () =>
    Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void w.terminate().then(() => resolve()), 5_000);
            w.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            w.postMessage('stop');
          }),
      ),
    );

  // A server that holds the headers back until the first event never gets here to `watchers`;
  // the warm-up writes cover that case (a watch from a resourceVersion misses nothing).
  const attachDeadline = nowMs() + opts.attachWaitMs;
  while (attached < opts.watchers && nowMs() < attachDeadline && !failure()) await new Promise((r) => setTimeout(r, 10));
  if (failure()) {
    await stopWorkers();
    throw failure();
  }

  const latencies: number[] = [];
  let early = 0;
  for (let i = 0; i < opts.warmupWrites + opts.writes; i++) {
    const name = `watched-${String(i).padStart(6, '0')}`;
    let done!: () => void;
    const delivered = new Promise<void>((r) => (done = r));
    pending.set(name, { groupsDone: 0, lastAt: 0, done });
    await call(opts.writePool, 'POST', opts.writePath, opts.writeBody(name));
    const respondedAt = nowMs();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), opts.timeoutMs)));
    const outcome = await Promise.race([delivered, timeout]);
    clearTimeout(timer);
    const p = pending.get(name)!;
    pending.delete(name);
    if (outcome === 'timeout') {
      await stopWorkers();
      throw new Error(`write ${name}: only ${p.groupsDone} of ${threads} watcher groups saw it within ${opts.timeoutMs} ms${failure() ? ` (${failure()!.message})` : ''}`);
    }
    if (i >= opts.warmupWrites) {
      const ms = p.lastAt - respondedAt;
      if (ms <= 0) early++;
      latencies.push(Math.max(0, ms));
    }
    await new Promise((r) => setTimeout(r, opts.gapMs));
  }

  await stopWorkers();
  const sorted = Float64Array.from(latencies).sort();
  return {
    watchers: opts.watchers,
    threads,
    writes: latencies.length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    deliveredBeforeResponse: early,
  };
}
