/**
 * Worker thread of bench/watch-list-fairness.ts: opens `http1 + http2` watches at once (HTTP/1.1,
 * one connection each; HTTP/2, `streamsPerSession` streams per connection) and checks each stream
 * without parsing it (the client must not be the bottleneck): the first `expectInitial` lines start
 * with `{"type":"ADDED"`, the next one is a BOOKMARK carrying `"k8s.io/initial-events-end":"true"`.
 * Watches run in a worker so that the main thread's probes measure the server, not this client's
 * own event loop decrypting gigabytes.
 *
 * Messages: in `{ type: 'start', options }`, `{ type: 'close' }`; out `{ type: 'result', result }`
 * once every watch has its initial state (or failed, or `timeoutMs` passed), `{ type: 'closed' }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { Pool } from 'undici';

export interface WatchClientsOptions {
  url: string;
  ca: string;
  path: string;
  expectInitial: number;
  http1: number;
  http2: number;
  streamsPerSession: number;
  timeoutMs: number;
  /**
   * What completes a stream: `bookmark` (watch-list: the ADDED lines, then the initial-events-end
   * bookmark), `count` (a watch from the cache: `expectInitial` ADDED lines), `list` (a LIST: the
   * whole body, a 200, ending with `}`).
   */
  mode: 'bookmark' | 'count' | 'list';
}

export interface WatchClientsResult {
  watches: number;
  /** Watches that got every initial object and then the initial-events-end bookmark. */
  complete: number;
  /** Watches whose initial state was not exactly `expectInitial` ADDED lines then that bookmark. */
  wrong: number;
  /** Connection errors (ECONNRESET and the like) and non-200 answers, and the first few messages. */
  errors: number;
  errorMessages: string[];
  /** Milliseconds from the start to each complete watch's bookmark, sorted. */
  openMs: number[];
  /** Milliseconds from the start to each watch's response headers (connect, TLS, request), sorted. */
  headersMs: number[];
  bytes: number;
  /**
   * Event-loop delay of this client (p99 and max, ms): when it is large, handshakes and response
   * headers waited in the client, not in the server.
   */
  clientLagP99Ms: number;
  clientLagMaxMs: number;
}

const ADDED = Buffer.from('{"type":"ADDED"');
const BOOKMARK = Buffer.from('{"type":"BOOKMARK"');
const END = Buffer.from('"k8s.io/initial-events-end":"true"');
const HEAD = BOOKMARK.length;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** Follows one stream's lines: the head of each line, and the whole of a BOOKMARK line (small). */
export class InitialStateChecker {
  added = 0;
  wrong = false;
  done = false;
  private head = Buffer.alloc(HEAD);
  private headLen = 0;
  private bookmark: Buffer[] | undefined;
  private last = 0;
  constructor(
    private readonly expect: number,
    private readonly mode: WatchClientsOptions['mode'] = 'bookmark',
  ) {}

  /** Returns true when the initial state is complete (see `mode`). */
  push(chunk: Buffer): boolean {
    if (this.mode === 'list') {
      for (let i = chunk.length - 1; i >= 0; i--) if (chunk[i] !== 10 && chunk[i] !== 32) (this.last = chunk[i]!), (i = 0);
      return false;
    }
    let pos = 0;
    while (pos < chunk.length && !this.done) {
      const nl = chunk.indexOf(10, pos);
      const end = nl < 0 ? chunk.length : nl;
      if (this.headLen < HEAD) {
        const take = Math.min(HEAD - this.headLen, end - pos);
        chunk.copy(this.head, this.headLen, pos, pos + take);
        this.headLen += take;
        if (this.headLen === HEAD && this.head.equals(BOOKMARK)) this.bookmark = [this.head];
        if (this.bookmark) pos += take;
      }
      if (this.bookmark) this.bookmark.push(chunk.subarray(pos, end));
      if (nl < 0) return false;
      this.endLine();
      pos = nl + 1;
    }
    return this.done;
  }

  private endLine(): void {
    if (this.bookmark) {
      const line = Buffer.concat(this.bookmark);
      this.bookmark = undefined;
      if (line.includes(END)) {
        if (this.added !== this.expect) this.wrong = true;
        this.done = true;
      }
      // a periodic bookmark before the end is allowed only once the initial state is sent: not here.
      else this.wrong = true;
    } else if (this.headLen >= ADDED.length && this.head.subarray(0, ADDED.length).equals(ADDED)) {
      this.added++;
      if (this.mode === 'count' && this.added === this.expect) this.done = true;
    } else this.wrong = true;
    this.headLen = 0;
  }

  /** A LIST's body has ended: it is complete when it is one JSON document (ends with `}`). */
  ended(): boolean {
    if (this.mode !== 'list') return false;
    this.done = this.last === 0x7d;
    return this.done;
  }
}

function run(o: WatchClientsOptions, post: (m: unknown) => void, onClose: (f: () => Promise<void>) => void): void {
  const started = nowMs();
  const lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  const openMs: number[] = [];
  const headersMs: number[] = [];
  const answered = () => headersMs.push(nowMs() - started);
  const errorMessages: string[] = [];
  let errors = 0;
  let wrong = 0;
  let bytes = 0;
  let closing = false;
  const fail = (what: string, err: unknown) => {
    if (closing) return;
    errors++;
    const m = `${what}: ${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message ?? String(err)}`;
    if (errorMessages.length < 10 && !errorMessages.includes(m)) errorMessages.push(m);
  };
  const checker = (resolve: () => void) => {
    const c = new InitialStateChecker(o.expectInitial, o.mode);
    let settled = false;
    return {
      data(chunk: Buffer) {
        bytes += chunk.length;
        if (settled) return;
        if (c.push(chunk)) {
          settled = true;
          if (c.wrong) wrong++;
          else openMs.push(nowMs() - started);
          resolve();
        }
      },
      end(what: string, err?: unknown) {
        if (settled) return;
        settled = true;
        if (!err && c.ended()) {
          openMs.push(nowMs() - started);
          return resolve();
        }
        fail(what, err ?? new Error(`stream ended after ${c.added} ADDED, before the initial-events-end bookmark`));
        resolve();
      },
    };
  };

  // 30 s to connect (client-go's dial timeout): handshakes wait behind the storm's CPU on a loaded machine.
  const pool = new Pool(o.url, {
    connections: o.http1,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { ca: o.ca, servername: 'localhost', timeout: 30_000 },
  });
  const aborts: AbortController[] = [];
  const sessions: ClientHttp2Session[] = [];
  const watches: Promise<void>[] = [];
  for (let i = 0; i < o.http1; i++) {
    watches.push(
      new Promise<void>((resolve) => {
        const ac = new AbortController();
        aborts.push(ac);
        const c = checker(resolve);
        // A LIST runs once per connection; the pool keeps one per request.
        pool
          .request({ method: 'GET', path: o.path, signal: ac.signal, headers: { accept: 'application/json' } })
          .then((res) => {
            answered();
            if (res.statusCode !== 200) return c.end('HTTP/1.1 watch', new Error(`status ${res.statusCode}`));
            res.body.on('data', (b: Buffer) => c.data(b));
            res.body.on('error', (e) => c.end('HTTP/1.1 watch', e));
            res.body.on('end', () => c.end('HTTP/1.1 watch'));
          })
          .catch((e: unknown) => c.end('HTTP/1.1 watch', e));
      }),
    );
  }
  let session: ClientHttp2Session | undefined;
  for (let i = 0; i < o.http2; i++) {
    if (i % o.streamsPerSession === 0) {
      session = h2connect(o.url, { ca: o.ca, servername: 'localhost' });
      session.on('error', (e) => fail('HTTP/2 session', e));
      sessions.push(session);
    }
    const s = session!;
    watches.push(
      new Promise<void>((resolve) => {
        const c = checker(resolve);
        const st = s.request({ ':path': o.path, accept: 'application/json' });
        st.on('response', (h) => {
          answered();
          if (h[':status'] !== 200) c.end('HTTP/2 watch', new Error(`status ${h[':status']}`));
        });
        st.on('data', (b: Buffer) => c.data(b));
        st.on('error', (e) => c.end('HTTP/2 watch', e));
        st.on('close', () => c.end('HTTP/2 watch'));
      }),
    );
  }
  const timeout = new Promise<void>((r) => setTimeout(r, o.timeoutMs).unref());
  void Promise.race([Promise.all(watches), timeout]).then(() => {
    const result: WatchClientsResult = {
      watches: o.http1 + o.http2,
      complete: openMs.length,
      wrong,
      errors,
      errorMessages,
      openMs: [...openMs].sort((a, b) => a - b),
      headersMs: [...headersMs].sort((a, b) => a - b),
      bytes,
      clientLagP99Ms: lag.percentile(99) / 1e6,
      clientLagMaxMs: lag.max / 1e6,
    };
    lag.disable();
    post({ type: 'result', result });
  });
  onClose(async () => {
    closing = true;
    for (const ac of aborts) ac.abort();
    for (const s of sessions) s.destroy();
    await pool.destroy().catch(() => {});
  });
}

if (parentPort && (workerData as { role?: string } | undefined)?.role === 'watch-list-clients') {
  const port = parentPort;
  let close: (() => Promise<void>) | undefined;
  port.on('message', (m: { type: string; options?: WatchClientsOptions }) => {
    if (m.type === 'start') run(m.options!, (msg) => port.postMessage(msg), (f) => (close = f));
    else if (m.type === 'close') void (close?.() ?? Promise.resolve()).then(() => port.postMessage({ type: 'closed' }));
  });
}
