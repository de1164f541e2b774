// Issue 23's fuzz test: the property-based hostile-input suite extended to the surfaces added since
// the first round (test/fuzz/arbitraries.ts, `surfaceRequest`: strategic merge patch directives,
// Protobuf envelopes, the `.k8s.io` aliases, OpenAPI, eviction/binding/access reviews, watch-list
// parameters, text outside Latin-1 and control characters in names, keys, labels, annotations,
// headers and patch paths), mixed with the first round's `hostileRequest`, sent over HTTP/1.1 AND
// HTTP/2 to the real apiserver process. Properties, for every request:
// - it is answered: a complete response by the deadline (no hang, no reset, no socket closed
//   without a response); a watch's headers arrive, and its stream is then cancelled by the client;
// - no 5xx;
// - the response is well-formed: every header value sendable (no control characters), a Warning
//   header in the `299 - "text"` form, and an error is a `Status` (JSON, or Protobuf when asked
//   for) whose code is the HTTP status;
// - a refused request (4xx) changes no stored data: its target object is byte-for-byte the same
//   (resourceVersion included) and the store's revision has not moved (nothing else was written);
// and at the end the process is alive and /readyz is ok.
//
// Bounded in `npm test` (FUZZ_RUNS per protocol, default 500); SOAK=1 runs 30,000 per protocol.
// FUZZ_SEED reproduces a run (FUZZ_PROTOCOLS=h2 runs one protocol); each failure prints the request that caused it.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CM, CR, FUZZ_GROUP, FUZZ_NS, type HostileRequest, hostileRequest, surfaceRequest, SURFACE_SEEDS } from '../fuzz/arbitraries.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { type Answer, FuzzTransport, type Outcome, type Protocol } from '../helpers/fuzz-transport.js';
import { soak } from '../helpers/soak.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? soak(500, 30_000));
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261126);
const DEADLINE_MS = 20_000;
const CHUNK = 500;

const test = suite('fuzz over HTTP/1.1 and HTTP/2 (issue 23)');
let server: ApiServerProcess;
let transport: FuzzTransport;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** The object as stored (its whole JSON text, resourceVersion included), or its absence. */
async function snapshot(path: string): Promise<string> {
  const r = await server.request('GET', path);
  if (r.status !== 200) return String(r.status);
  // A target that is a collection (a PUT to `widgets/`): its items, not the list's resourceVersion
  // (the store's revision, which the server's own writes move; checked apart).
  if (typeof r.json?.kind === 'string' && r.json.kind.endsWith('List')) return JSON.stringify(r.json.items);
  return r.text;
}

/** The store's current revision: any write anywhere moves it. */
async function revision(): Promise<string> {
  const r = await server.request('GET', `/api/v1/namespaces/${FUZZ_NS}/configmaps?limit=1`);
  return String(r.json?.metadata?.resourceVersion);
}

/** Every listable collection the server serves (our group spellings), read once from discovery. */
let collections: string[] = [];
async function discoverCollections(): Promise<string[]> {
  const out: string[] = [];
  const core = await server.request('GET', '/api/v1');
  for (const r of core.json.resources as Array<{ name: string; verbs: string[] }>) if (!r.name.includes('/') && r.verbs.includes('list')) out.push(`/api/v1/${r.name}`);
  const groups = await server.request('GET', '/apis');
  for (const g of groups.json.groups as Array<{ name: string; preferredVersion: { groupVersion: string } }>) {
    if (g.name.endsWith('.k8s.io') && g.name !== 'metrics.k8s.io') continue;
    const list = await server.request('GET', `/apis/${g.preferredVersion.groupVersion}`);
    for (const r of (list.json?.resources ?? []) as Array<{ name: string; verbs: string[] }>) if (!r.name.includes('/') && r.verbs.includes('list')) out.push(`/apis/${g.preferredVersion.groupVersion}/${r.name}`);
  }
  return out;
}

/** The server's own writers: its endpoint lease (renewed every few seconds) and the `kubernetes` Service's objects. */
function isBackground(ns: string | undefined, name: string): boolean {
  return ns === 'svc-system' || ns === 'svc-node-lease' || (ns === 'default' && name === 'kubernetes');
}

/**
 * Why the store's revision moved from `from` during a refused request: '' when every write in
 * between was the server's own background work (each write moves the revision by one, so the
 * objects whose resourceVersion lies in between must account for all of it), else the objects.
 */
async function unexplainedWrites(from: string): Promise<string> {
  for (let tries = 0; tries < 5; tries++) {
    const to = Number(await revision());
    const changed: string[] = [];
    for (const path of collections) {
      const r = await server.request('GET', path);
      for (const item of (r.json?.items ?? []) as Array<{ metadata: { namespace?: string; name: string; resourceVersion: string } }>) {
        const rv = Number(item.metadata.resourceVersion);
        if (rv > Number(from)) changed.push(`${rv} ${path} ${item.metadata.namespace ?? ''}/${item.metadata.name}${isBackground(item.metadata.namespace, item.metadata.name) ? ' (background)' : ''}`);
      }
    }
    if (Number(await revision()) !== to) continue; // a write while listing: look again
    const inRange = changed.filter((c) => Number(c.split(' ')[0]) <= to);
    if (inRange.length === to - Number(from) && inRange.every((c) => c.endsWith('(background)'))) return '';
    return `${to - Number(from)} writes; objects changed since: ${inRange.join('; ') || 'none (a deletion?)'}`;
  }
  return 'the store kept moving';
}

/** Puts a seeded object back when an earlier (accepted) request removed it. */
async function reseed(path: string): Promise<void> {
  const seed = SURFACE_SEEDS[path];
  if (!seed || (await server.request('GET', path)).status !== 404) return;
  const r = await server.request('POST', seed.collection, seed.body);
  if (r.status !== 201) throw new Error(`reseeding ${path}: ${r.status} ${r.text}`);
}

/** What is wrong with a response's form ('' when nothing). */
function malformed(req: HostileRequest, a: Answer): string {
  for (const [k, v] of Object.entries(a.headers)) {
    for (const one of Array.isArray(v) ? v : [v ?? '']) {
      if (/[^\t\x20-\x7e\x80-\xff]/.test(one)) return `header ${k} holds ${JSON.stringify(one)}`;
      // One header may carry several warnings, comma-separated (HTTP/2 clients join repeated headers so).
      if (k === 'warning' && !/^\d{3} \S+ "(?:[^"\\]|\\.)*"(?:, \d{3} \S+ "(?:[^"\\]|\\.)*")*$/.test(one)) return `Warning header not in the 299 - "text" form: ${JSON.stringify(one)}`;
    }
  }
  if (req.raw || req.method === 'HEAD' || a.status < 400) return '';
  const ct = String(a.headers['content-type'] ?? '');
  // A path outside the API (not /api/..., /apis/...) that names nothing: the established server's
  // plain-text 404, as Go's http.NotFound writes it.
  if (a.status === 404 && (!/^\/apis?\//.test(req.path) || req.method === 'OPTIONS') && ct.startsWith('text/plain') && a.body.toString().startsWith('404 page not found')) return '';
  if (ct.includes('protobuf')) {
    if (!a.body.subarray(0, 4).equals(Buffer.from('k8s\0', 'latin1'))) return `a Protobuf error without the k8s\\0 prefix`;
    return a.body.includes(Buffer.from('Status')) ? '' : 'a Protobuf error that is not a Status';
  }
  let s: { kind?: unknown; apiVersion?: unknown; code?: unknown; message?: unknown } | undefined;
  try {
    s = JSON.parse(a.body.toString('utf8')) as typeof s;
  } catch {
    return `an error body that is not JSON (content-type ${ct}): ${JSON.stringify(a.body.toString('utf8').slice(0, 120))}`;
  }
  if (s?.kind !== 'Status' || s.apiVersion !== 'v1') return `an error body that is not a Status: ${a.body.toString('utf8').slice(0, 120)}`;
  if (s.code !== a.status) return `Status code ${String(s.code)} on HTTP ${a.status}`;
  if (typeof s.message !== 'string' || !s.message) return 'a Status without a message';
  return '';
}

function show(req: HostileRequest): string {
  const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? `<${req.body.length} bytes: ${req.body.subarray(0, 48).toString('hex')}>` : req.body.slice(0, 300);
  return `${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 200)} ${body}`;
}

interface Figures {
  requests: number;
  unsent: number;
  statuses: Map<number, number>;
  slowestMs: number;
  over2s: number;
  failures: string[];
  seconds: number;
  futureVersion: number;
}

function histogram(f: Figures): string {
  return [...f.statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(', ');
}

async function run(protocol: Protocol, seed: number): Promise<Figures> {
  const f: Figures = { requests: 0, unsent: 0, statuses: new Map(), slowestMs: 0, over2s: 0, failures: [], seconds: 0, futureVersion: 0 };
  const started = Date.now();
  let seedsMayBeGone = true;
  let knownRevision: string | undefined;
  const arb = fc.oneof({ weight: 4, arbitrary: surfaceRequest }, { weight: 1, arbitrary: hostileRequest });
  for (let done = 0; done < RUNS; done += CHUNK) {
    const batch = fc.sample(arb, { numRuns: Math.min(CHUNK, RUNS - done), seed: seed + done });
    for (const req of batch) {
      if (req.raw && protocol === 'h2') continue;
      // Only an accepted delete or eviction can remove a seeded object.
      if (seedsMayBeGone) {
        for (const path of Object.keys(SURFACE_SEEDS)) await reseed(path);
        seedsMayBeGone = false;
        knownRevision = undefined;
      }
      const before = req.target ? await snapshot(req.target) : '';
      // The revision after the last refused request is the one before this (requests are sequential).
      const rev = knownRevision ?? (await revision());
      knownRevision = undefined;
      const out: Outcome = await transport.send(protocol, { method: req.method, path: req.path, headers: req.headers, body: req.body }, req.raw);
      if (out.kind === 'unsent') {
        f.unsent++;
        continue;
      }
      f.requests++;
      const fail = (why: string) => {
        f.failures.push(`[${protocol}] ${why}\n    request: ${show(req)}`);
        // Printed at once as well: a long run shows what it found while it goes on.
        if (f.failures.length <= 20) console.error(`[failure] ${f.failures.at(-1)!}`);
      };
      if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
        fail(`the server exited (${server.proc.exitCode ?? server.proc.signalCode}):\n${server.output().slice(-2000)}`);
        return f;
      }
      if (out.kind === 'failed') {
        fail(out.failure);
        continue;
      }
      const a = out.answer;
      if (a.status < 300 && (req.method === 'DELETE' || req.path.includes('/eviction'))) seedsMayBeGone = true;
      f.statuses.set(a.status, (f.statuses.get(a.status) ?? 0) + 1);
      f.slowestMs = Math.max(f.slowestMs, a.ms);
      if (a.ms > 2000) f.over2s++;
      // A resourceVersion from the future: the established 504 Timeout (ResourceVersionTooLarge), which
      // clients retry; the server's doing nothing wrong, so it is counted, not failed.
      if (a.status === 504 && a.body.includes('ResourceVersionTooLarge')) f.futureVersion++;
      else if (a.status >= 500) fail(`${a.status}: ${a.body.toString('utf8').slice(0, 300)}`);
      const bad = malformed(req, a);
      if (bad) fail(`malformed ${a.status} response: ${bad}`);
      if (a.status >= 400) {
        const after = req.target ? await snapshot(req.target) : '';
        if (after !== before) fail(`a refused request (${a.status}) changed ${req.target}:\n    before ${before.slice(0, 400)}\n    after  ${after.slice(0, 400)}`);
        const revAfter = await revision();
        const why = revAfter === rev ? '' : await unexplainedWrites(rev);
        if (why) fail(`a refused request (${a.status}) moved the store's revision ${rev} -> ${revAfter}: ${why}`);
        knownRevision = revAfter;
      }
      if (f.requests % 100 === 0) {
        const ready = await server.request('GET', '/readyz');
        if (ready.status !== 200) fail(`/readyz answered ${ready.status} after ${f.requests} requests`);
      }
      if (f.requests % 2000 === 0) console.log(`[progress] ${protocol}: ${f.requests} requests in ${((Date.now() - started) / 1000).toFixed(0)} s; statuses ${histogram(f)}; ${f.failures.length} failures`);
    }
  }
  f.seconds = (Date.now() - started) / 1000;
  return f;
}

test.before(async () => {
  server = await startApiServer();
  collections = await discoverCollections();
  transport = new FuzzTransport({ port: server.port, ca: readFileSync(server.caFile, 'utf8'), deadlineMs: DEADLINE_MS, watchReadMs: 300 });
  const crd = {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${FUZZ_GROUP}` },
    spec: {
      group: FUZZ_GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, free: { type: 'object', 'x-svc-preserve-unknown-fields': true } } }, status: { type: 'object', 'x-svc-preserve-unknown-fields': true } } } } }],
    },
  };
  assert.is((await server.request('POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd)).status, 201);
  for (let deadline = Date.now() + 30_000; (await server.request('GET', CR)).status !== 200; ) {
    if (Date.now() > deadline) throw new Error('custom resource not served');
    await new Promise((r) => setTimeout(r, 50));
  }
  const keep = { finalizers: ['fuzz.example.com/keep'] };
  assert.is((await server.request('POST', CM, { metadata: { name: 'seed-cm', ...keep }, data: { a: 'b' } })).status, 201);
  assert.is((await server.request('POST', CR, { apiVersion: `${FUZZ_GROUP}/v1`, kind: 'Widget', metadata: { name: 'seed-cr', ...keep }, spec: { size: 1 } })).status, 201);
  assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: 'fuzz-ns' } })).status, 201);
  assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: FUZZ_NS } })).status, 201);
  for (const [path, seed] of Object.entries(SURFACE_SEEDS)) {
    const r = await server.request('POST', seed.collection, seed.body);
    assert.is(r.status, 201, `seeding ${path}: ${r.text}`);
  }
  // The CRD's status is written asynchronously; wait until the store is quiet.
  for (let last = '', deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 500));
    const rev = await revision();
    if (rev === last) break;
    last = rev;
  }
});

test.after(async () => {
  transport?.close();
  await server?.stop();
  server?.cleanup();
});

const PROTOCOLS = (process.env['FUZZ_PROTOCOLS'] ?? 'http/1.1,h2').split(',') as Protocol[];
for (const [i, protocol] of PROTOCOLS.entries()) {
  test(`${RUNS} hostile requests over ${protocol}: all answered, no 5xx, well-formed, refused ones change nothing`, async () => {
    const rss0 = rssMiB(server.proc.pid!);
    const f = await run(protocol, SEED + i * 1_000_000);
    console.log(`[figure] fuzz ${protocol}: ${f.requests} requests in ${f.seconds.toFixed(1)} s (seed ${SEED + i * 1_000_000}; ${f.unsent} the client could not send)`);
    console.log(`[figure] fuzz ${protocol} statuses: ${histogram(f)}`);
    console.log(`[figure] fuzz ${protocol}: slowest ${f.slowestMs} ms, ${f.over2s} over 2 s; RSS ${rssMiB(server.proc.pid!).toFixed(0)} MiB (${rss0.toFixed(0)} before)`);
    console.log(`[figure] fuzz ${protocol}: ${f.futureVersion} answered 504 ResourceVersionTooLarge (a resourceVersion from the future, as established)`);
    console.log(`[figure] fuzz ${protocol}: ${f.failures.length} failures`);
    // The gravest first (5xx, no answer, a change by a refused request), then the malformed.
    const ranked = [...f.failures].sort((a, b) => Number(a.includes('] malformed')) - Number(b.includes('] malformed')));
    for (const line of ranked.slice(0, 40)) console.error(line);
    assert.is(f.failures.length, 0, `${f.failures.length} failures, the first: ${f.failures[0]}`);
    assert.ok(f.requests > RUNS * 0.9, `only ${f.requests} of ${RUNS} sent`);
  });
}

test('the server is still up and ready', async () => {
  assert.is(server.proc.exitCode, null);
  const r = await server.request('GET', '/readyz');
  assert.is(r.status, 200);
  assert.is(r.text, 'ok');
});

test.run();
