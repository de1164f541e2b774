/**
 * Hostile load against a real apiserver process, for memory measurements (bench/measure-storms.ts
 * and test/e2e/memory-storms.test.ts):
 * - a watch storm: many concurrent watches that ask for initial state (no resourceVersion), over
 *   HTTP/1.1 and HTTP/2, some of them slow readers that never read their socket; a fast watch is
 *   open when it has counted `expectInitial` ADDED lines (counted, not parsed: the client must not
 *   be the bottleneck);
 * - an overload: closed-loop LISTs and creates at a fixed concurrency (twice the server's in-flight
 *   limits), where 429 is an expected answer.
 * RSS is read from /proc/<pid>/status (VmRSS), sampled every 100 ms for a phase's peak.
 */
import { connect as h2connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { Pool } from 'undici';

export interface StormTarget {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** PEM the server's certificate verifies against. */
  ca: string;
}

export interface WatchStormOptions extends StormTarget {
  /** The watch request, e.g. `/api/v1/namespaces/storm/configmaps?watch=1` (initial state). */
  path: string;
  /** ADDED lines each fast watch must receive before it counts as open. */
  expectInitial: number;
  http1: number;
  http2: number;
  /** Watches that send their request and then never read a byte (HTTP/1.1 raw TLS, HTTP/2 paused streams). */
  slowHttp1: number;
  slowHttp2: number;
  /** HTTP/2 streams per connection. */
  streamsPerSession: number;
  /** Give up on the fast watches that are not open after this long. */
  timeoutMs: number;
}

export interface WatchStormResult {
  fast: number;
  /** Fast watches that received all their initial state. */
  opened: number;
  /** First lines that were not ADDED (would mean the initial state is wrong). */
  notAdded: number;
  errors: string[];
  /** From the start of the storm to each watch's last initial event, in ms. */
  p50OpenMs: number;
  p99OpenMs: number;
  /** From the start until the last fast watch had its initial state. */
  allOpenMs: number;
}

export interface WatchStorm {
  /** Resolves when every fast watch is open (or failed, or timed out). */
  result: Promise<WatchStormResult>;
  /** Closes every watch (fast and slow). */
  close(): Promise<void>;
}

const SERVERNAME = 'localhost';
const ADDED = Buffer.from('{"type":"ADDED"');
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Counts lines of a watch stream and checks each of the first `expect` starts with `{"type":"ADDED"`. */
class LineCounter {
  lines = 0;
  notAdded = 0;
  /** Bytes of the current line's start seen so far (up to ADDED.length). */
  private head = Buffer.alloc(ADDED.length);
  private headLen = 0;
  constructor(private readonly expect: number) {}

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.headLen < ADDED.length && this.lines < this.expect) {
        const take = Math.min(ADDED.length - this.headLen, chunk.length - pos);
        const nl = chunk.indexOf(10, pos);
        const upto = nl >= 0 && nl < pos + take ? nl - pos : take;
        chunk.copy(this.head, this.headLen, pos, pos + upto);
        this.headLen += upto;
      }
      const nl = chunk.indexOf(10, pos);
      if (nl < 0) return;
      if (this.lines < this.expect && (this.headLen < ADDED.length || !this.head.equals(ADDED))) this.notAdded++;
      this.lines++;
      this.headLen = 0;
      pos = nl + 1;
    }
  }
}

export function startWatchStorm(o: WatchStormOptions): WatchStorm {
  const started = nowMs();
  const openedAt: number[] = [];
  const errors: string[] = [];
  let notAdded = 0;
  let closing = false;
  const pool = new Pool(o.url, {
    connections: o.http1,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { ca: o.ca, servername: SERVERNAME },
  });
  const aborts: AbortController[] = [];
  const sessions: ClientHttp2Session[] = [];
  const sockets: TLSSocket[] = [];
  const fail = (what: string, err: unknown) => {
    if (!closing && errors.length < 20) errors.push(`${what}: ${(err as Error).message ?? String(err)}`);
  };

  const counted = (counter: LineCounter) => (chunk: Buffer, done: () => void) => {
    const before = counter.lines;
    counter.push(chunk);
    if (before < o.expectInitial && counter.lines >= o.expectInitial) {
      notAdded += counter.notAdded;
      openedAt.push(nowMs() - started);
      done();
    }
  };

  const http1 = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const ac = new AbortController();
      aborts.push(ac);
      const onChunk = counted(new LineCounter(o.expectInitial));
      pool
        .request({ method: 'GET', path: o.path, signal: ac.signal, headers: { accept: 'application/json' } })
        .then((res) => {
          if (res.statusCode !== 200) {
            fail('HTTP/1.1 watch', new Error(`status ${res.statusCode}`));
            resolve();
            return;
          }
          res.body.on('data', (c: Buffer) => onChunk(c, resolve));
          res.body.on('error', (e) => (fail('HTTP/1.1 watch', e), resolve()));
          res.body.on('end', resolve);
        })
        .catch((e: unknown) => (fail('HTTP/1.1 watch', e), resolve()));
    });

  const session = (windowBytes: number): ClientHttp2Session => {
    const s = h2connect(o.url, { ca: o.ca, servername: SERVERNAME, settings: { initialWindowSize: windowBytes } });
    s.on('error', (e) => fail('HTTP/2 session', e));
    s.on('connect', () => s.setLocalWindowSize(windowBytes * o.streamsPerSession));
    sessions.push(s);
    return s;
  };
  const request = (s: ClientHttp2Session): ClientHttp2Stream => {
    const st = s.request({ ':path': o.path, accept: 'application/json' });
    st.on('error', (e) => fail('HTTP/2 watch', e));
    return st;
  };

  const http2 = (s: ClientHttp2Session): Promise<void> =>
    new Promise<void>((resolve) => {
      const st = request(s);
      const onChunk = counted(new LineCounter(o.expectInitial));
      st.on('response', (h) => {
        if (h[':status'] !== 200) fail('HTTP/2 watch', new Error(`status ${h[':status']}`));
      });
      st.on('data', (c: Buffer) => onChunk(c, resolve));
      st.on('close', resolve);
    });

  const fastWatches: Promise<void>[] = [];
  for (let i = 0; i < o.http1; i++) fastWatches.push(http1());
  let s: ClientHttp2Session | undefined;
  for (let i = 0; i < o.http2; i++) {
    if (i % o.streamsPerSession === 0) s = session(1 << 20);
    fastWatches.push(http2(s!));
  }
  // Slow readers: the request goes out, then nothing is ever read.
  const { hostname, port } = new URL(o.url);
  for (let i = 0; i < o.slowHttp1; i++) {
    const sock = tlsConnect({ host: hostname, port: Number(port), ca: o.ca, servername: SERVERNAME, ALPNProtocols: ['http/1.1'] }, () => {
      sock.write(`GET ${o.path} HTTP/1.1\r\nHost: ${SERVERNAME}\r\nAccept: application/json\r\n\r\n`);
      sock.pause();
    });
    sock.on('error', (e) => fail('slow HTTP/1.1 watch', e));
    sockets.push(sock);
  }
  for (let i = 0; i < o.slowHttp2; i++) {
    if (i % o.streamsPerSession === 0) s = session(65_535);
    request(s!).pause();
  }

  const timeout = new Promise<void>((r) => setTimeout(r, o.timeoutMs).unref());
  const result = Promise.race([Promise.all(fastWatches), timeout]).then((): WatchStormResult => {
    const sorted = [...openedAt].sort((a, b) => a - b);
    return {
      fast: o.http1 + o.http2,
      opened: openedAt.length,
      notAdded,
      errors: [...errors],
      p50OpenMs: quantile(sorted, 0.5),
      p99OpenMs: quantile(sorted, 0.99),
      allOpenMs: sorted.length === o.http1 + o.http2 ? sorted[sorted.length - 1]! : NaN,
    };
  });

  return {
    result,
    async close() {
      closing = true;
      for (const ac of aborts) ac.abort();
      for (const sock of sockets) sock.destroy();
      for (const ss of sessions) ss.destroy();
      await pool.destroy().catch(() => {});
    },
  };
}

export interface OverloadOptions extends StormTarget {
  /** Concurrent LIST loops (e.g. twice --max-requests-inflight). */
  readers: number;
  listPath: string;
  /** Concurrent create loops (e.g. twice --max-mutating-requests-inflight). */
  writers: number;
  createPath: string;
  createBody: (i: number) => Buffer;
  durationMs: number;
}

export interface OverloadResult {
  /** Answers by status code. */
  byStatus: Record<string, number>;
  /** Requests that failed without an answer (connection errors), and the first few messages. */
  errors: number;
  errorMessages: string[];
  bytes: number;
  seconds: number;
}

/** Closed-loop LISTs and creates at a fixed concurrency; every answer (429 included) is read in full. */
export async function runOverload(o: OverloadOptions): Promise<OverloadResult> {
  const pool = new Pool(o.url, {
    connections: o.readers + o.writers,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { ca: o.ca, servername: SERVERNAME },
  });
  const byStatus: Record<string, number> = {};
  let errors = 0;
  const errorMessages: string[] = [];
  let bytes = 0;
  let created = 0;
  const start = nowMs();
  const end = start + o.durationMs;
  const loop = async (write: boolean) => {
    while (nowMs() < end) {
      try {
        const res = await pool.request(
          write
            ? { method: 'POST', path: o.createPath, body: o.createBody(created++), headers: { 'content-type': 'application/json', accept: 'application/json' } }
            : { method: 'GET', path: o.listPath, headers: { accept: 'application/json' } },
        );
        for await (const chunk of res.body) bytes += (chunk as Buffer).length;
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 429) await new Promise((r) => setTimeout(r, 5));
      } catch (err) {
        errors++;
        const message = (err as Error).message;
        if (errorMessages.length < 5 && !errorMessages.includes(message)) errorMessages.push(message);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all([...Array.from({ length: o.readers }, () => loop(false)), ...Array.from({ length: o.writers }, () => loop(true))]);
  const seconds = (nowMs() - start) / 1000;
  await pool.destroy().catch(() => {});
  return { byStatus, errors, errorMessages, bytes, seconds };
}

/** VmRSS of a process, in bytes. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; `stop()` gives the highest sample. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // the process exited
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, rssBytes(pid));
      } catch {
        // the process exited
      }
      return peak;
    },
  };
}
