/**
 * One group of watchers, run in a worker thread so that parsing 100 streams is spread over the
 * machine's cores as a multi-threaded client would, instead of queueing on the bench process's
 * one event loop. Reports, per object name, the hrtime (same clock in every thread) at which the
 * last watcher of this group parsed its event.
 *
 * workerData: WatchWorkerData. Messages out: WatchWorkerMessage. Message in: 'stop'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

export interface WatchWorkerData {
  url: string;
  ca: string;
  path: string;
  watchers: number;
  /** Sent with every watch request (e.g. a bearer token). */
  headers?: Record<string, string>;
}

export type WatchWorkerMessage =
  | { kind: 'attached' }
  | { kind: 'seen'; name: string; at: number }
  | { kind: 'error'; message: string }
  | { kind: 'stopped' };

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function run(data: WatchWorkerData): Promise<void> {
  const port = parentPort!;
  const pool = new Pool(data.url, {
    connections: data.watchers + 1,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { ca: data.ca, servername: 'localhost' },
  });
  const counts = new Map<string, number>();
  const aborts: AbortController[] = [];
  const onEvent = (name: string) => {
    const n = (counts.get(name) ?? 0) + 1;
    if (n === data.watchers) {
      counts.delete(name);
      port.postMessage({ kind: 'seen', name, at: nowMs() } satisfies WatchWorkerMessage);
    } else counts.set(name, n);
  };
  const streams = Array.from({ length: data.watchers }, async () => {
    const ac = new AbortController();
    aborts.push(ac);
    try {
      const res = await pool.request({ method: 'GET', path: data.path, signal: ac.signal, headers: { accept: 'application/json', ...data.headers } });
      if (res.statusCode !== 200) throw new Error(`watch ${data.path}: ${res.statusCode}: ${(await res.body.text()).slice(0, 500)}`);
      port.postMessage({ kind: 'attached' } satisfies WatchWorkerMessage);
      let buf = '';
      // 'data' events, not for-await: the async iterator costs more per chunk than the parsing.
      await new Promise<void>((resolve, reject) => {
        res.body.on('data', (chunk: Buffer) => {
          buf += chunk.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line) as { type?: string; object?: { metadata?: { name?: string } } };
            const name = ev.object?.metadata?.name;
            if (name !== undefined && ev.type !== 'BOOKMARK') onEvent(name);
          }
        });
        res.body.once('end', resolve);
        res.body.once('error', reject);
      });
    } catch (err) {
      if (!ac.signal.aborted) port.postMessage({ kind: 'error', message: (err as Error).message } satisfies WatchWorkerMessage);
    }
  });
  port.on('message', async (m: unknown) => {
    if (m !== 'stop') return;
    for (const ac of aborts) ac.abort();
    await Promise.all(streams);
    await pool.destroy().catch(() => {});
    port.postMessage({ kind: 'stopped' } satisfies WatchWorkerMessage);
    port.close();
  });
}

if (parentPort && workerData) void run(workerData as WatchWorkerData);
