/**
 * The watch-delivery step of `npm run bench` alone, repeated, with the bare-Node ceiling measured
 * in the same run (the machine is shared, so only same-run comparisons mean anything):
 *   node dist/bench/watch-step.js [rounds]      (default 3 rounds each, alternating svc and bare)
 * BENCH_PROFILE=1 profiles the apiserver (report beside the profile); SVC_NODE_ARGS adds node flags
 * to the apiserver (e.g. `--trace-gc`, whose lines are counted per round; SHOW_GC=1 prints them).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from './load.js';
import { configMapBody, createNamespace } from './measure-creates.js';
import { measureWatchFanout, type WatchOptions, type WatchResult } from './measure-watch.js';
import { renderProfileSummary, summarizeCpuProfile } from './profile-summary.js';
import { type ServerProcess, startApiServer, startBareServer } from './server-process.js';

const rounds = Number(process.argv[2] ?? 3);
const profile = process.env.BENCH_PROFILE === '1';
const nodeArgs = (process.env.SVC_NODE_ARGS ?? '').split(' ').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'svc-watch-step-'));
const profileDir = profile ? mkdtempSync(join(tmpdir(), 'svc-watch-profile-')) : undefined;
const fmt = (r: WatchResult) => `p50 ${r.p50Ms.toFixed(2)} ms p99 ${r.p99Ms.toFixed(2)} ms max ${r.maxMs.toFixed(2)} ms (early ${r.deliveredBeforeResponse})`;

function options(server: ServerProcess, watchPath: string, writePath: string, namespace: string): WatchOptions {
  return {
    writePool: server.pool(32),
    url: server.url,
    ca: server.ca,
    threads: Number(process.env.BENCH_WATCH_THREADS ?? 2),
    watchPath,
    writePath,
    writeBody: (name) => configMapBody(namespace, name),
    watchers: 100,
    warmupWrites: 10,
    writes: 500,
    gapMs: 5,
    attachWaitMs: 3_000,
    timeoutMs: 10_000,
  };
}

async function main(): Promise<void> {
  console.log(`load average at start ${loadavg()[0]!.toFixed(2)}`);
  const certDir = join(work, 'certs');
  const api = await startApiServer({ dataDir: join(work, 'data'), certDir, profileDir, nodeArgs });
  const bare = await startBareServer(join(certDir, 'apiserver.crt'), join(certDir, 'apiserver.key'));
  const svc: WatchResult[] = [];
  const ceiling: WatchResult[] = [];
  try {
    const pool = api.pool(4);
    for (let r = 0; r < rounds; r++) {
      const ns = `watch-${r}`;
      await createNamespace(pool, ns);
      const gcBefore = (api.output().match(/Scavenge|Mark-Compact|Mark-sweep/g) ?? []).length;
      const rv = (JSON.parse((await call(pool, 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const s = await measureWatchFanout(options(api, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, `/api/v1/namespaces/${ns}/configmaps`, ns));
      const gcs = (api.output().match(/Scavenge|Mark-Compact|Mark-sweep/g) ?? []).length - gcBefore;
      svc.push(s);
      if (process.env.SHOW_GC === '1') console.log(api.output().split('\n').filter((l) => /Scavenge|Mark/.test(l)).slice(-gcs).join('\n'));
      const b = await measureWatchFanout(options(bare, '/watch', '/watch', 'bench'));
      ceiling.push(b);
      console.log(`round ${r + 1}: svc ${fmt(s)}${nodeArgs.includes('--trace-gc') ? ` [${gcs} GC lines]` : ''} | bare ${fmt(b)}`);
    }
  } finally {
    await bare.stop();
    await api.stop();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `median of ${rounds}: svc p50 ${med(svc.map((r) => r.p50Ms)).toFixed(2)} p99 ${med(svc.map((r) => r.p99Ms)).toFixed(2)} | bare p50 ${med(ceiling.map((r) => r.p50Ms)).toFixed(2)} p99 ${med(ceiling.map((r) => r.p99Ms)).toFixed(2)}`,
  );
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) console.log(renderProfileSummary(summarizeCpuProfile(join(profileDir, file), 30)));
    console.log(`profile in ${profileDir}`);
  }
  rmSync(work, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
