// The property-based hostile-input suite (issue 8): fast-check requests (./arbitraries.ts) against
// the real apiserver process over HTTPS. Properties: no 5xx, no request slower than 2 s, /readyz
// answers alongside, a rejected request leaves its target exactly as it was, the server stays up,
// and RSS is back within 300 MiB of its baseline 10 s after the run.
//
// CI: FUZZ_RUNS defaults to 2,000 cases with a fixed seed. `npm run fuzz` runs 100,000 (or
// FUZZ_RUNS); FUZZ_SEED reproduces a failure (the seed and the counterexample are printed).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { CM, CR, FUZZ_GROUP, type HostileRequest, hostileRequest, SEEDED } from './arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const MAX_LATENCY_MS = 2000;
const RSS_SLACK_BYTES = 300 * 1024 * 1024;

const test = suite('hostile input (fast-check)');
let server: ApiServerProcess;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

async function state(path: string): Promise<string> {
  const r = await server.request('GET', path);
  return `${r.status}:${r.status === 200 ? r.json?.metadata?.resourceVersion : ''}`;
}

test.before(async () => {
  server = await startApiServer();
  const crd = {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${FUZZ_GROUP}` },
    spec: {
      group: FUZZ_GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, name: { type: 'string', pattern: '^(a+)+$' }, free: { type: 'object', 'x-svc-preserve-unknown-fields': true } } }, status: { type: 'object', 'x-svc-preserve-unknown-fields': true } } } } }],
    },
  };
  assert.is((await server.request('POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd)).status, 201);
  for (let deadline = Date.now() + 10_000; (await server.request('GET', CR)).status !== 200; ) {
    if (Date.now() > deadline) throw new Error('custom resource not served');
    await new Promise((r) => setTimeout(r, 20));
  }
  const keep = { finalizers: ['fuzz.example.com/keep'] };
  assert.is((await server.request('POST', CM, { metadata: { name: 'seed-cm', ...keep }, data: { a: 'b' } })).status, 201);
  assert.is((await server.request('POST', CR, { apiVersion: `${FUZZ_GROUP}/v1`, kind: 'Widget', metadata: { name: 'seed-cr', ...keep }, spec: { size: 1 } })).status, 201);
  assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: 'fuzz-ns' } })).status, 201);
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test(`${RUNS} hostile requests: no 5xx, none slow, rejected ones change nothing, memory returns`, async () => {
  await new Promise((r) => setTimeout(r, 1000));
  const baseline = rssBytes(server.proc.pid!);
  let peak = baseline;
  const byStatus = new Map<number, number>();
  let slowest = 0;
  const started = Date.now();
  const property = fc.asyncProperty(hostileRequest, async (req: HostileRequest) => {
    const before = req.target ? await state(req.target) : '';
    const t = Date.now();
    const [r, ready] = await Promise.all([server.request(req.method, req.path, req.body, req.headers), server.request('GET', '/readyz')]);
    const ms = Date.now() - t;
    slowest = Math.max(slowest, ms);
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    if (r.status >= 500) throw new Error(`${r.status} for ${req.method} ${req.path}: ${r.text.slice(0, 300)}`);
    if (ms > MAX_LATENCY_MS) throw new Error(`${req.method} ${req.path} took ${ms} ms`);
    if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status} alongside`);
    if (req.target && r.status >= 400) {
      const after = await state(req.target);
      if (after !== before) throw new Error(`a rejected request (${r.status}) changed ${req.target}: ${before} -> ${after}`);
    }
    if (byStatus.size && (byStatus.get(r.status) ?? 0) % 200 === 0) peak = Math.max(peak, rssBytes(server.proc.pid!));
  });
  const out = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
  if (out.failed) {
    console.error(`fuzz failure: seed=${out.seed} path=${out.counterexamplePath}\n${fc.stringify(out.counterexample)}\n${String(out.errorInstance)}`);
  }
  assert.not.ok(out.failed, `counterexample (FUZZ_SEED=${out.seed}): ${String(out.errorInstance)}`);
  assert.is(server.proc.exitCode, null, 'the server is still running');
  await new Promise((r) => setTimeout(r, 10_000));
  const after = rssBytes(server.proc.pid!);
  const histogram = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
  console.log(
    `fuzz: ${RUNS} cases in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED}); statuses ${histogram}; slowest ${slowest} ms; ` +
      `RSS baseline ${(baseline / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB, 10 s after ${(after / 2 ** 20).toFixed(0)} MiB`,
  );
  assert.ok(after - baseline < RSS_SLACK_BYTES, `RSS ${after} is more than 300 MiB over its baseline ${baseline}`);
  for (const path of SEEDED) assert.ok([200, 404].includes((await server.request('GET', path)).status));
});

test.run();
