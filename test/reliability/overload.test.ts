// Issue 23, "Overload and fairness": a real apiserver process over HTTPS, rounds of mixed traffic at
// twice its in-flight limits (GETs and LISTs on one side, creates, updates and deletes on the other), slow
// uploaders and a burst of watch-list watches (initial state, then the initial-events-end bookmark)
// running alongside. Asserted for every round:
// - the excess is 429 with Retry-After (which the loops honour, as the established clients do); no
//   5xx; no admitted request loses its answer (a reset or an error after the connection was up);
// - p99 of admitted short requests within a bound (the goal is 1 s; the bounded form on a
//   loaded 2-core machine allows more and prints the figure);
// - /readyz always answered 200 within 1 s in full (5 s bounded), probed from a worker thread, so
//   the load generator's own event loop does not count;
// - RSS back within 25% of its value before the round, some time after it (60 s in full);
// - no watch still registered once the round settled (every watch-list was closed by its client).
// Before the rounds it measures the floor for the LISTs: a bare HTTPS server sending the same bytes
// to as many loops, nothing else running (a figure, not asserted).
// Bounded in `npm test` (2 rounds of 10 s at limits 40/20, 25 s to settle); SOAK=1 runs the issue's
// 5 rounds of 30 s at the default limits 400/200, 60 s after each. Figures: `[figure]` lines.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { join } from 'node:path';
import { startBareServer } from '../../bench/server-process.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { metric } from '../helpers/client.js';
import { soak } from '../helpers/soak.js';

const READ_LIMIT = soak(40, 400);
const WRITE_LIMIT = soak(20, 200);
// Two rounds at least: memory must come back after each, the first (from a cold server) included
// (the server's reclaimer: src/apiserver/memory-reclaimer.ts).
const ROUNDS = soak(2, 5);
const ROUND_MS = soak(10_000, 30_000);
const SETTLE_MS = soak(25_000, 60_000);
/** ConfigMaps the readers GET and LIST (a LIST is about 560 bytes an item, managed fields included). */
const SEEDED = soak(300, 1_000);
const SLOW_UPLOADERS = soak(20, 200);
const WATCHES = soak(40, 400);
const STREAMS_PER_SESSION = 50;
/** p99 of admitted short requests: the goal is 1 s; a loaded 2-core CI machine needs room. */
const P99_BOUND_MS = soak(10_000, 1_000);
/**
 * /readyz: the 1 s in full. Bounded, on a 2-core machine shared with other test runs (load
 * average 25-35 seen), the server got 17% of a core and its own event loop stalled up to 1.1 s with
 * no watch burst at all: the CI bound is 5 s, the figure is printed.
 */
const READYZ_BOUND_MS = soak(5_000, 1_000);
const RSS_SLACK = 0.25;

const READ_NS = 'overload-read';
const WRITE_NS = 'overload-write';
const WATCH_PATH = `/api/v1/namespaces/${READ_NS}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
const SERVERNAME = 'localhost';
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

function configMap(ns: string, name: string, round = 0): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { app: 'overload' } }, data: { key: `value-${round}-`.padEnd(100, 'v') } });
}

function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** True when the process runs on jemalloc (its launcher preloads Debian's libjemalloc2). */
function onJemalloc(pid: number): boolean {
  return /libjemalloc\.so/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

/** User + system CPU seconds of a process. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Where the server's memory is: V8's heap (used / total) and Buffers (`external`), from its /metrics; the rest of RSS is native. */
async function memoryOf(server: ApiServerProcess): Promise<string> {
  const text = (await server.request('GET', '/metrics')).text;
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return `heap ${mib(value('nodejs_heap_size_used_bytes'))}/${mib(value('nodejs_heap_size_total_bytes'))}, external ${mib(value('nodejs_external_memory_bytes'))}`;
}

/** The server's longest event-loop delay since the last scrape of /metrics (prom-client resets it at each), in ms. */
async function eventLoopLagMaxMs(server: ApiServerProcess): Promise<number> {
  const r = await server.request('GET', '/metrics');
  const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)/m.exec(r.text);
  return m ? Number(m[1]) * 1000 : NaN;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Errors raised before a request could be sent (no connection): not a lost answer. */
const NOT_SENT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED']);

/** The kinds of short request the loops send. */
type RequestKind = 'get' | 'list' | 'create' | 'update' | 'delete';

interface Traffic {
  byStatus: Record<string, number>;
  missingRetryAfter: number;
  /** Admitted (not 429) short requests: milliseconds from sending to the whole answer read. */
  latencies: number[];
  /** The same, by kind of request. */
  byKind: Record<RequestKind, number[]>;
  lost: string[];
  notSent: number;
  /** The load generator's own longest event-loop delay during the round (ms): its latencies include it. */
  clientLagMaxMs: number;
}

/**
 * Reads a body to its end and lets the bytes go; fails as the body does (a reset, a short body). In
 * 'data' events rather than an async iterator (a promise per chunk): the load generator shares the
 * 2 cores with the server, and at 270 MB/s of LIST bodies the iterator cost it a share of a core.
 */
function readToEnd(body: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    body.on('data', () => {});
    body.once('end', resolve);
    body.once('error', reject);
  });
}

/** Closed loops of reads and writes at twice the limits over warmed-up HTTP/1.1 connections. */
async function mixedTraffic(server: ApiServerProcess, ca: string, round: number, durationMs: number): Promise<Traffic> {
  const readers = 2 * READ_LIMIT;
  const writers = 2 * WRITE_LIMIT;
  const pool = new Pool(server.url, { connections: readers + writers, pipelining: 1, connect: { ca, servername: SERVERNAME, timeout: 30_000 } });
  const t: Traffic = { byStatus: {}, missingRetryAfter: 0, latencies: [], byKind: { get: [], list: [], create: [], update: [], delete: [] }, lost: [], notSent: 0, clientLagMaxMs: 0 };
  const lag = monitorEventLoopDelay({ resolution: 10 });
  try {
    // Connections first (health probes take no in-flight slot), so the round measures requests, not handshakes.
    await Promise.all(Array.from({ length: readers + writers }, () => pool.request({ method: 'GET', path: '/healthz' }).then((r) => r.body.text())));
    const end = now() + durationMs;
    lag.enable();
    let created = 0;
    /** The answer's status, or undefined when there was none. */
    const one = async (kind: RequestKind, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: string): Promise<number | undefined> => {
      const started = now();
      try {
        const res = await pool.request({ method, path, body, headers: body ? { 'content-type': 'application/json' } : {} });
        // Read to the end without decoding: the generator shares the machine with the server.
        await readToEnd(res.body);
        t.byStatus[res.statusCode] = (t.byStatus[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 429) {
          if (!res.headers['retry-after']) t.missingRetryAfter++;
          // As the established clients do (client-go waits the Retry-After seconds, then retries).
          await sleep(1000 * Number(res.headers['retry-after'] ?? 0) || 5);
        } else {
          const ms = now() - started;
          t.latencies.push(ms);
          t.byKind[kind].push(ms);
        }
        return res.statusCode;
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        if (NOT_SENT.has(code)) t.notSent++;
        else if (t.lost.length < 20) t.lost.push(`${method} ${path}: ${code} ${(err as Error).message}`);
        else t.lost.push('...');
      }
      return undefined;
    };
    const read = async () => {
      for (let i = 0; now() < end; i++) {
        if (i % 10 < 7) await one('get', 'GET', `/api/v1/namespaces/${READ_NS}/configmaps/cm-${Math.floor(Math.random() * SEEDED)}`);
        else await one('list', 'GET', `/api/v1/namespaces/${READ_NS}/configmaps`);
      }
    };
    // Creates, updates and deletes of what the writer created: the stored data stays about the same
    // size from round to round, so the memory checked after a round is the server's, not the data's.
    const write = async (w: number) => {
      const mine: string[] = [];
      for (let i = 0; now() < end; i++) {
        if (i % 3 === 0) {
          const name = `r${round}-${created++}`;
          if ((await one('create', 'POST', `/api/v1/namespaces/${WRITE_NS}/configmaps`, configMap(WRITE_NS, name, round))) === 201) mine.push(name);
        } else if (i % 3 === 1) {
          await one('update', 'PUT', `/api/v1/namespaces/${WRITE_NS}/configmaps/upd-${w}`, configMap(WRITE_NS, `upd-${w}`, round * 1_000_000 + i));
        } else if (mine.length > 0) {
          if ((await one('delete', 'DELETE', `/api/v1/namespaces/${WRITE_NS}/configmaps/${mine[0]}`)) === 200) mine.shift();
        }
      }
    };
    await Promise.all([...Array.from({ length: readers }, read), ...Array.from({ length: writers }, (_, w) => write(w))]);
  } finally {
    lag.disable();
    t.clientLagMaxMs = lag.max / 1e6;
    await pool.destroy().catch(() => {});
  }
  return t;
}

/**
 * What this machine allows for the LISTs alone, measured in the same run: a bare Node.js HTTPS
 * server (bench/bare-server.ts, its own process) sending a fixed body of the LIST's size, nothing
 * else running, to as many closed loops as the round has LIST loops, over the same client. The
 * round's LIST latencies read against these.
 */
async function listFloor(server: ApiServerProcess, bytes: number, loops: number, durationMs: number): Promise<{ perS: number; p50: number; p99: number }> {
  const bare = await startBareServer(server.caFile, join(server.certDir, 'apiserver.key'));
  const pool = bare.pool(loops);
  const latencies: number[] = [];
  try {
    const end = now() + durationMs;
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (now() < end) {
          const started = now();
          const res = await pool.request({ method: 'GET', path: `/sized/${bytes}` });
          await readToEnd(res.body);
          latencies.push(now() - started);
        }
      }),
    );
  } finally {
    await pool.destroy().catch(() => {});
    await bare.stop();
  }
  latencies.sort((a, b) => a - b);
  return { perS: latencies.length / (durationMs / 1000), p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

interface SlowUploads {
  byStatus: Record<string, number>;
  failures: string[];
}

/** Writes whose small bodies trickle in over `spreadMs` (raw TLS, HTTP/1.1): each must be answered. */
function slowUploads(server: ApiServerProcess, ca: string, round: number, count: number, spreadMs: number): Promise<SlowUploads> {
  const out: SlowUploads = { byStatus: {}, failures: [] };
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const body = Buffer.from(configMap(WRITE_NS, `slow-${round}-${i}`, round));
      const pieces = 10;
      const step = Math.ceil(body.length / pieces);
      let answer = '';
      let sent = 0;
      let timer: NodeJS.Timeout | undefined;
      const sock = tlsConnect({ host: '127.0.0.1', port: server.port, ca, servername: SERVERNAME, ALPNProtocols: ['http/1.1'] }, () => {
        sock.write(`POST /api/v1/namespaces/${WRITE_NS}/configmaps HTTP/1.1\r\nHost: ${SERVERNAME}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
        const next = () => {
          if (sent >= body.length) return;
          sock.write(body.subarray(sent, sent + step));
          sent += step;
          timer = setTimeout(next, spreadMs / pieces);
        };
        next();
      });
      sock.setEncoding('utf8');
      sock.on('data', (d: string) => (answer += d));
      sock.on('error', (e) => out.failures.push(`slow upload ${i}: ${e.message}`));
      sock.on('close', () => {
        clearTimeout(timer);
        const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
        if (!m) out.failures.push(`slow upload ${i}: no answer (${answer.slice(0, 80)})`);
        else out.byStatus[m[1]!] = (out.byStatus[m[1]!] ?? 0) + 1;
        resolve();
      });
    });
  return Promise.all(Array.from({ length: count }, (_, i) => one(i))).then(() => out);
}

interface WatchBurst {
  opened: number;
  openMs: number[];
  failures: string[];
}

/** Watch-list watches over HTTP/2: each must get every seeded object, then the initial-events-end bookmark. */
async function watchListBurst(server: ApiServerProcess, ca: string, count: number, timeoutMs: number): Promise<WatchBurst> {
  const out: WatchBurst = { opened: 0, openMs: [], failures: [] };
  const sessions: ClientHttp2Session[] = [];
  const started = now();
  const one = (s: ClientHttp2Session, i: number) =>
    new Promise<void>((resolve) => {
      const st = s.request({ ':path': WATCH_PATH, accept: 'application/json' });
      let buf = '';
      let added = 0;
      let done = false;
      const finish = (failure?: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (failure) out.failures.push(`watch ${i}: ${failure}`);
        st.close();
        resolve();
      };
      const timer = setTimeout(() => finish(`no initial-events-end bookmark within ${timeoutMs} ms (${added} ADDED)`), timeoutMs);
      st.setEncoding('utf8');
      st.on('response', (h) => {
        if (h[':status'] !== 200) finish(`status ${h[':status']}`);
      });
      st.on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          // By prefix, not JSON.parse: 400 watches x 1,000 events would cost the load generator,
          // which shares the machine with the server, more than the server spends sending them.
          if (line.startsWith('{"type":"ADDED"')) added++;
          else if (line.startsWith('{"type":"BOOKMARK"')) {
            const ev = JSON.parse(line) as { object: { metadata?: { annotations?: Record<string, string> } } };
            if (ev.object.metadata?.annotations?.['k8s.io/initial-events-end'] !== 'true') continue;
            if (added < SEEDED) return finish(`bookmark after ${added} of ${SEEDED} objects`);
            out.opened++;
            out.openMs.push(now() - started);
            return finish();
          } else if (line.startsWith('{"type":"ERROR"')) return finish(`ERROR event ${line.slice(0, 200)}`);
          else return finish(`not a watch event: ${line.slice(0, 200)}`);
        }
      });
      st.on('error', (e) => finish(e.message));
      st.on('close', () => finish('stream closed before the bookmark'));
    });
  try {
    const all: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      if (i % STREAMS_PER_SESSION === 0) {
        const s = h2connect(server.url, { ca, servername: SERVERNAME });
        s.on('error', (e) => out.failures.push(`session: ${e.message}`));
        sessions.push(s);
      }
      all.push(one(sessions[sessions.length - 1]!, i));
    }
    await Promise.all(all);
  } finally {
    for (const s of sessions) s.destroy();
  }
  return out;
}

/**
 * /readyz every 200 ms from a worker thread (its own event loop and connection), until stopped:
 * the slowest answer and every answer that was not 200 `ok` within the bound.
 */
function probeReadyz(server: ApiServerProcess, ca: string): { stop(): Promise<{ probes: number; slowestMs: number; bad: string[] }> } {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const https = require('node:https');
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: workerData.ca, servername: 'localhost' });
    let stopping = false, probes = 0, slowestMs = 0; const bad = [];
    parentPort.on('message', () => { stopping = true; });
    const once = () => new Promise((resolve) => {
      const t0 = performance.now();
      const req = https.get(workerData.url + '/readyz', { agent, timeout: 10000 }, (res) => {
        let body = ''; res.setEncoding('utf8'); res.on('data', (d) => body += d);
        res.on('end', () => {
          const ms = performance.now() - t0; probes++; slowestMs = Math.max(slowestMs, ms);
          if (res.statusCode !== 200 || body !== 'ok' || ms > workerData.boundMs) bad.push(res.statusCode + ' in ' + Math.round(ms) + ' ms: ' + body.slice(0, 80));
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', (e) => { probes++; bad.push('error ' + e.message); resolve(); });
    });
    (async () => {
      while (!stopping) { await once(); await new Promise((r) => setTimeout(r, 200)); }
      agent.destroy();
      parentPort.postMessage({ probes, slowestMs, bad: bad.slice(0, 20).concat(bad.length > 20 ? ['... ' + (bad.length - 20) + ' more'] : []) });
    })();
  `;
  const worker = new Worker(code, { eval: true, workerData: { url: server.url, ca, boundMs: READYZ_BOUND_MS } });
  const result = new Promise<{ probes: number; slowestMs: number; bad: string[] }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

const test = suite('overload and fairness (real server)');
let server: ApiServerProcess;
let ca: string;

test.before(async () => {
  server = await startApiServer({ args: [`--max-requests-inflight=${READ_LIMIT}`, `--max-mutating-requests-inflight=${WRITE_LIMIT}`] });
  ca = readFileSync(server.caFile, 'utf8');
  for (const ns of [READ_NS, WRITE_NS]) assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const seed = async (ns: string, names: string[]) => {
    for (let i = 0; i < names.length; i += 10) {
      await Promise.all(
        names.slice(i, i + 10).map(async (name) => {
          const r = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(ns, name));
          assert.is(r.status, 201, r.text);
        }),
      );
    }
  };
  await seed(READ_NS, Array.from({ length: SEEDED }, (_, i) => `cm-${i}`));
  await seed(WRITE_NS, Array.from({ length: 2 * WRITE_LIMIT }, (_, i) => `upd-${i}`));
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('at twice the in-flight limits with slow uploaders and a watch-list burst: 429 for the excess, answers for the rest, /readyz answered, RSS comes back', async () => {
  const pid = server.proc.pid!;
  // The launcher's allocator: with glibc's, memory freed after a round stays resident (native-heap.ts).
  assert.ok(onJemalloc(pid), 'the server runs on jemalloc (apt install libjemalloc2; its launcher preloads it)');
  await sleep(2_000);
  const problems: string[] = [];
  // The floor for the LISTs (3 of every 10 reads), before the server has seen any load.
  const listBytes = Buffer.byteLength((await server.request('GET', `/api/v1/namespaces/${READ_NS}/configmaps`)).text);
  const listLoops = Math.round(2 * READ_LIMIT * 0.3);
  const floor = await listFloor(server, listBytes, listLoops, soak(5_000, 15_000));
  console.log(`[figure] overload floor: a bare HTTPS server sending ${(listBytes / 1024).toFixed(0)} KiB to ${listLoops} loops, nothing else running: ${floor.perS.toFixed(0)}/s, p50 ${floor.p50.toFixed(0)} ms, p99 ${floor.p99.toFixed(0)} ms`);
  await sleep(2_000);
  /** RSS before the first round: the server before any load. */
  let coldStart = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await eventLoopLagMaxMs(server);
    const before = rssBytes(pid);
    const memoryBefore = await memoryOf(server);
    const cpuBefore = cpuSeconds(pid);
    const clientCpuBefore = process.cpuUsage();
    const readyz = probeReadyz(server, ca);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 200);
    let load: [Traffic, SlowUploads, WatchBurst];
    try {
      load = await Promise.all([
        mixedTraffic(server, ca, round, ROUND_MS),
        slowUploads(server, ca, round, SLOW_UPLOADERS, ROUND_MS * 0.8),
        watchListBurst(server, ca, WATCHES, ROUND_MS + soak(60_000, 30_000)),
      ]);
    } catch (err) {
      await readyz.stop(); // a worker left running would keep this process alive
      throw err;
    } finally {
      clearInterval(sampler);
    }
    const [traffic, slow, watches] = load;
    const cpu = cpuSeconds(pid) - cpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const lagMs = await eventLoopLagMaxMs(server);
    const atEnd = rssBytes(pid);
    // RSS after the load, the probe still running (/readyz must be answered while memory comes back too).
    await sleep(SETTLE_MS);
    const after = rssBytes(pid);
    const memoryAfter = await memoryOf(server);
    // Every watch-list of the round was closed by its client: none may be left once it settled (a
    // session whose client had gone used to keep its watches: src/apiserver/session-liveness.ts).
    const watchersLeft = await metric(server, 'apiserver_registered_watchers');
    const probed = await readyz.stop();

    const sorted = [...traffic.latencies].sort((a, b) => a - b);
    const p99 = quantile(sorted, 0.99);
    const admitted = sorted.length;
    const tooMany = traffic.byStatus['429'] ?? 0;
    const r = `round ${round + 1}/${ROUNDS}`;
    console.log(`[figure] overload ${r}: ${admitted} admitted (${(admitted / (ROUND_MS / 1000)).toFixed(0)}/s, ${(admitted / Math.max(cpu, 0.01)).toFixed(0)} per server CPU-second), ${tooMany} answered 429; statuses ${JSON.stringify(traffic.byStatus)}; ${traffic.notSent} never connected`);
    console.log(`[figure] overload ${r}: admitted short requests p50 ${quantile(sorted, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${sorted[sorted.length - 1]?.toFixed(0)} ms; the load generator's own longest event-loop delay ${traffic.clientLagMaxMs.toFixed(0)} ms`);
    const kinds = Object.entries(traffic.byKind).map(([k, l]) => {
      const ls = [...l].sort((a, b) => a - b);
      return `${k} ${ls.length} p50 ${quantile(ls, 0.5).toFixed(0)} / p99 ${quantile(ls, 0.99).toFixed(0)} ms`;
    });
    console.log(`[figure] overload ${r}: by kind: ${kinds.join('; ')}`);
    const listP99 = quantile([...traffic.byKind.list].sort((a, b) => a - b), 0.99);
    console.log(`[figure] overload ${r}: LIST p99 ${(listP99 / floor.p99).toFixed(1)}x the bare server's for the LISTs alone (${floor.p99.toFixed(0)} ms)`);
    console.log(`[figure] overload ${r}: /readyz ${probed.probes} probes, slowest ${probed.slowestMs.toFixed(0)} ms; the server's longest event-loop delay during the round ${lagMs.toFixed(0)} ms, its CPU ${((cpu / ROUND_MS) * 100_000).toFixed(0)}% of one core (the load generator's ${(((clientCpu.user + clientCpu.system) / 1000 / ROUND_MS) * 100).toFixed(0)}%)`);
    console.log(`[figure] overload ${r}: slow uploaders ${JSON.stringify(slow.byStatus)}; watch-list burst ${watches.opened}/${WATCHES} got their initial state, p50 ${quantile([...watches.openMs].sort((a, b) => a - b), 0.5).toFixed(0)} ms, slowest ${Math.max(0, ...watches.openMs).toFixed(0)} ms`);
    console.log(`[figure] overload ${r}: RSS before ${mib(before)}, peak ${mib(peak)}, at the end ${mib(atEnd)}, ${SETTLE_MS / 1000} s after ${mib(after)} (${(((after - before) / before) * 100).toFixed(1)}%); before: ${memoryBefore}, after: ${memoryAfter}`);

    for (const code of Object.keys(traffic.byStatus)) if (!['200', '201', '429'].includes(code)) problems.push(`${r}: ${traffic.byStatus[code]} answers ${code}`);
    if (traffic.missingRetryAfter) problems.push(`${r}: ${traffic.missingRetryAfter} 429s without Retry-After`);
    if (traffic.lost.length) problems.push(`${r}: ${traffic.lost.length} requests lost their answer: ${traffic.lost.slice(0, 5).join('; ')}`);
    if (traffic.notSent) problems.push(`${r}: ${traffic.notSent} requests could not connect within 30 s`);
    if (!(p99 <= P99_BOUND_MS)) problems.push(`${r}: p99 of admitted requests ${p99.toFixed(0)} ms > ${P99_BOUND_MS} ms`);
    if (probed.bad.length) problems.push(`${r}: /readyz not 200 within ${READYZ_BOUND_MS} ms: ${probed.bad.join('; ')}`);
    for (const code of Object.keys(slow.byStatus)) if (!['201', '429'].includes(code)) problems.push(`${r}: slow uploaders answered ${code} x${slow.byStatus[code]}`);
    if (slow.failures.length) problems.push(`${r}: ${slow.failures.length} slow uploads unanswered: ${slow.failures.slice(0, 3).join('; ')}`);
    if (watchersLeft > 0) problems.push(`${r}: ${watchersLeft} watches still registered ${SETTLE_MS / 1000} s after the round, whose clients had all closed them`);
    if (watches.failures.length) problems.push(`${r}: ${watches.failures.length} watch-list watches failed: ${watches.failures.slice(0, 3).join('; ')}`);
    // Against the larger of the round's start and the server's before any load: a round that starts
    // just after the previous one's memory came back (below the cold level) holds the probes'
    // garbage between two collections too (up to about 20 MiB here), which is not growth.
    if (round === 0) coldStart = before;
    const base = Math.max(before, coldStart);
    if (after > base * (1 + RSS_SLACK)) {
      problems.push(`${r}: RSS ${mib(after)} ${SETTLE_MS / 1000} s after the round, more than ${RSS_SLACK * 100}% over ${mib(base)} (the larger of its start, ${mib(before)}, and the server's before any load, ${mib(coldStart)})`);
    }
  }
  assert.equal(problems, [], problems.join('\n'));
  assert.is((await server.request('GET', `/api/v1/namespaces/${READ_NS}/configmaps?limit=1`)).status, 200, 'the server still serves');
});

test.run();
