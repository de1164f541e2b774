/**
 * Watch delivery: `watchers` open watch streams, then sequential writes a few ms apart. For each
 * write, latency = from the write's response arriving at the client to the moment the last of the
 * watchers has parsed the event for that object (matched by name). All watchers and the writer
 * share the bench process, so the client's own parsing of 100 streams is inside the figure, as it
 * is for any client doing the same.
 */
import type { Dispatcher } from 'undici';
import { call, nowMs, quantile } from './load.js';

export interface WatchOptions {
  /** Pool for the writes. */
  writePool: Dispatcher;
  /** Pool with at least `watchers` connections: each open watch holds one. */
  watchPool: Dispatcher;
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
  writes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Writes whose event had reached every watcher before the write's own response (counted as 0 ms). */
  deliveredBeforeResponse: number;
}

interface Pending {
  seen: number;
  lastAt: number;
  done: () => void;
}

export async function measureWatchFanout(opts: WatchOptions): Promise<WatchResult> {
  const pending = new Map<string, Pending>();
  const aborts: AbortController[] = [];
  const streams: Promise<void>[] = [];

  const onEvent = (name: string, at: number) => {
    const p = pending.get(name);
    if (!p) return;
    p.seen++;
    p.lastAt = at;
    if (p.seen === opts.watchers) p.done();
  };

  // All watches start at once; a watch from a resourceVersion replays anything it missed while
  // connecting, so the warm-up writes also prove every watcher is attached.
  // Set from the stream callbacks; typed through a holder so narrowing does not pin it to undefined.
  const failed: { error?: Error } = {};
  const failure = (): Error | undefined => failed.error;
  let attached = 0;
  for (let w = 0; w < opts.watchers; w++) {
    const ac = new AbortController();
    aborts.push(ac);
    streams.push(
      (async () => {
        let buf = '';
        try {
          const res = await opts.watchPool.request({ method: 'GET', path: opts.watchPath, signal: ac.signal, headers: { accept: 'application/json' } });
          if (res.statusCode !== 200) {
            failed.error ??= new Error(`watch ${opts.watchPath}: ${res.statusCode}: ${(await res.body.text()).slice(0, 500)}`);
            return;
          }
          attached++;
          for await (const chunk of res.body) {
            buf += (chunk as Buffer).toString();
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              if (!line.trim()) continue;
              const ev = JSON.parse(line) as { type?: string; object?: { metadata?: { name?: string } } };
              const name = ev.object?.metadata?.name;
              if (name !== undefined && ev.type !== 'BOOKMARK') onEvent(name, nowMs());
            }
          }
        } catch (err) {
          if (!ac.signal.aborted) failed.error ??= err as Error;
        }
      })(),
    );
  }

  // A server that holds the headers back until the first event never gets here to `watchers`;
  // the warm-up writes cover that case (a watch from a resourceVersion misses nothing).
  const attachDeadline = nowMs() + opts.attachWaitMs;
  while (attached < opts.watchers && nowMs() < attachDeadline && !failure()) await new Promise((r) => setTimeout(r, 10));
  if (failed.error) throw failed.error;

  const latencies: number[] = [];
  let early = 0;
  for (let i = 0; i < opts.warmupWrites + opts.writes; i++) {
    const name = `watched-${String(i).padStart(6, '0')}`;
    let done!: () => void;
    const delivered = new Promise<void>((r) => (done = r));
    pending.set(name, { seen: 0, lastAt: 0, done });
    await call(opts.writePool, 'POST', opts.writePath, opts.writeBody(name));
    const respondedAt = nowMs();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), opts.timeoutMs)));
    const outcome = await Promise.race([delivered, timeout]);
    clearTimeout(timer);
    const p = pending.get(name)!;
    pending.delete(name);
    if (outcome === 'timeout') {
      for (const ac of aborts) ac.abort();
      throw new Error(`write ${name}: only ${p.seen} of ${opts.watchers} watchers saw it within ${opts.timeoutMs} ms${failure() ? ` (${failure()!.message})` : ''}`);
    }
    if (i >= opts.warmupWrites) {
      const ms = p.lastAt - respondedAt;
      if (ms <= 0) early++;
      latencies.push(Math.max(0, ms));
    }
    await new Promise((r) => setTimeout(r, opts.gapMs));
  }

  for (const ac of aborts) ac.abort();
  await Promise.all(streams);
  const sorted = Float64Array.from(latencies).sort();
  return {
    watchers: opts.watchers,
    writes: latencies.length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    deliveredBeforeResponse: early,
  };
}
