/**
 * A watch client for tests: opens `?watch=1` on the real server and collects the JSON lines.
 */
import { request, type Dispatcher } from 'undici';
import type { ApiServerProcess } from './apiserver.js';

/** The JSON values of a newline-delimited body (a watch stream), each as soon as its line is complete. */
export async function* jsonLines<T>(body: AsyncIterable<Buffer | string>): AsyncGenerator<T> {
  let buf = '';
  for await (const chunk of body) {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  if (buf.trim()) yield JSON.parse(buf) as T;
}

export interface WatchLine {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

export interface OpenWatch {
  status: number;
  events: WatchLine[];
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Waits until `n` events arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<WatchLine[]>;
  close(): void;
}

export async function openWatch(server: ApiServerProcess, path: string, headers: Record<string, string> = {}): Promise<OpenWatch> {
  const ac = new AbortController();
  const res: Dispatcher.ResponseData = await request(`${server.url}${path}`, { dispatcher: server.agent, signal: ac.signal, headers });
  const events: WatchLine[] = [];
  const waiters: (() => void)[] = [];
  const ended = (async () => {
    try {
      for await (const event of jsonLines<WatchLine>(res.body)) {
        events.push(event);
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      // aborted by close()
    }
    for (const w of waiters.splice(0)) w();
  })();
  return {
    status: res.statusCode,
    events,
    ended,
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} watch events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), new Promise((r) => setTimeout(r, 50)), ended]);
      }
      return events.slice(0, n);
    },
    close() {
      ac.abort();
    },
  };
}
