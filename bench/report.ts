/**
 * Renders the figures of one `npm run bench` run as docs/benchmarks.md: machine, command, one
 * table with every figure beside the bare-Node ceiling measured in the same run, the established
 * server's figures and our targets.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, release, totalmem } from 'node:os';

/** Above this 1-minute load average at start, the report warns that something else was running. */
const BUSY_LOAD = 0.5;
import type { LoadResult } from './load.js';
import type { CeilingResult } from './measure-ceiling.js';
import type { ListResult } from './measure-lists.js';
import type { RssResult } from './measure-rss.js';
import { type ProtobufFigures, renderProtobufSection } from './report-protobuf.js';
import type { RuntimeFigures } from './measure-runtime.js';
import { queueTargetMet, renderRuntimeSection } from './report-runtime.js';
import type { StormFigures } from './measure-storms.js';
import { renderStormsSection, STORMS_BEFORE } from './report-storms.js';
import type { WatchResult } from './measure-watch.js';

export interface MachineInfo {
  /** 1-minute load average when the run started (before any server ran). */
  loadAtStart: number;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
}

export function machineInfo(loadAtStart: number): MachineInfo {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux
  }
  return { loadAtStart, cpus: availableParallelism(), cpuModel, memoryGiB: totalmem() / 2 ** 30, node: process.version, kernel: release() };
}

export interface BenchSettings {
  concurrency: number;
  warmupCreates: number;
  warmupGetMs: number;
  ceilingWarmupMs: number;
  createCount: number;
  createRounds: number;
  getDurationMs: number;
  listItems: number;
  listChunk: number;
  listRuns: number;
  watchers: number;
  watchThreads: number;
  watchWrites: number;
  watchGapMs: number;
  /** ConfigMaps stored in all (every step's) when RSS is read. */
  rssCount: number;
  rssSettleMs: number;
  /** Deployments the server-side apply step applies to, round robin. */
  applyObjects: number;
  applyDurationMs: number;
  /** Pods in the Protobuf step's list, codec runs, and the served-list step's concurrency and duration. */
  protobufItems: number;
  protobufCodecRuns: number;
  protobufListConcurrency: number;
  protobufServeMs: number;
  protobufServeRounds: number;
  dataDir: string;
}

export interface BenchFigures {
  startedAt: Date;
  durationS: number;
  machine: MachineInfo;
  command: string;
  quick: boolean;
  /** Where the CPU profile went, when the run was profiled. */
  profileDir?: string;
  settings: BenchSettings;
  ceiling: CeilingResult;
  ceilingLists: { wholeMs: number; chunkedMs: number };
  ceilingWatch: WatchResult;
  bareRssBytes: number;
  /** The median round of `createRounds`. */
  creates: LoadResult;
  createRounds: LoadResult[];
  gets: LoadResult;
  lists: ListResult;
  watch: WatchResult;
  rssAtStartBytes: number;
  rssAfterSmallStepsBytes: number;
  /** Server-side applies of Deployments by two managers. */
  applies?: LoadResult;
  /** JSON vs Protobuf: codec in the bench process, and lists served. */
  protobuf?: ProtobufFigures;
  rss?: RssResult;
  /** The actor runtime: informers, work-queue overhead, cache memory (bench/measure-runtime.ts). */
  runtime?: RuntimeFigures;
  /** RSS around a watch storm and an overload (bench/measure-storms.ts). */
  storms?: StormFigures;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => (x < 10 ? `${x.toFixed(2)} ms` : x < 100 ? `${x.toFixed(1)} ms` : `${x.toFixed(0)} ms`);
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
/** Rates: ours ÷ bare. Times and memory (smaller is better): bare ÷ ours. 100% = as good as bare Node. */
const ofRate = (ours: number, bare: number) => pct(ours / bare);
const ofTime = (ours: number, bare: number) => (ours <= 0 ? '—' : pct(bare / ours));
const mark = (ok: boolean) => (ok ? '✓' : '✗');

export function renderReport(f: BenchFigures): string {
  const s = f.settings;
  const c = f.ceiling;
  const m = f.machine;
  const GiB = 2 ** 30;
  const rows: string[][] = [
    [`Creates/s (${n0(s.createCount)} ConfigMaps, median of ${s.createRounds} rounds)`, n0(f.creates.perSecond), `${n0(c.post.perSecond)} POSTs/s`, ofRate(f.creates.perSecond, c.post.perSecond), '≈ 2,100', '≥ 6,000', mark(f.creates.perSecond >= 6000)],
    ['Create latency p50', ms(f.creates.p50Ms), ms(c.post.p50Ms), ofTime(f.creates.p50Ms, c.post.p50Ms), '', '', ''],
    ['Create latency p99', ms(f.creates.p99Ms), ms(c.post.p99Ms), ofTime(f.creates.p99Ms, c.post.p99Ms), '40–56 ms', '', ''],
    ['Gets/s by name', n0(f.gets.perSecond), `${n0(c.get.perSecond)} GETs/s`, ofRate(f.gets.perSecond, c.get.perSecond), '≈ 4,200', '≥ 15,000', mark(f.gets.perSecond >= 15000)],
    ['Get latency p50', ms(f.gets.p50Ms), ms(c.get.p50Ms), ofTime(f.gets.p50Ms, c.get.p50Ms), '', '', ''],
    ['Get latency p99', ms(f.gets.p99Ms), ms(c.get.p99Ms), ofTime(f.gets.p99Ms, c.get.p99Ms), '25 ms', '', ''],
    [`List ${n0(s.listItems)} ConfigMaps, whole (${(f.lists.wholeBytes / 2 ** 20).toFixed(2)} MiB)`, ms(f.lists.wholeMs), ms(f.ceilingLists.wholeMs), ofTime(f.lists.wholeMs, f.ceilingLists.wholeMs), '65–88 ms', '≤ 30 ms', mark(f.lists.wholeMs <= 30)],
    [`List ${n0(s.listItems)} in chunks of ${s.listChunk} (all ${f.lists.chunks} requests)`, ms(f.lists.chunkedMs), ms(f.ceilingLists.chunkedMs), ofTime(f.lists.chunkedMs, f.ceilingLists.chunkedMs), '', '', ''],
    [`Watch delivery to ${s.watchers} watchers p50`, ms(f.watch.p50Ms), ms(f.ceilingWatch.p50Ms), ofTime(f.watch.p50Ms, f.ceilingWatch.p50Ms), '1.8 ms', '', ''],
    [`Watch delivery to ${s.watchers} watchers p99`, ms(f.watch.p99Ms), ms(f.ceilingWatch.p99Ms), ofTime(f.watch.p99Ms, f.ceilingWatch.p99Ms), '5–7 ms', '≤ 5 ms', mark(f.watch.p99Ms <= 5)],
  ];
  if (f.applies) {
    rows.push(
      [`Server-side applies/s (${s.applyObjects} Deployments, two managers)`, n0(f.applies.perSecond), `${n0(c.post.perSecond)} POSTs/s`, ofRate(f.applies.perSecond, c.post.perSecond), '', '', ''],
      ['Apply latency p50 / p99', `${ms(f.applies.p50Ms)} / ${ms(f.applies.p99Ms)}`, `${ms(c.post.p50Ms)} / ${ms(c.post.p99Ms)}`, '', '', '', ''],
    );
  }
  if (f.rss) {
    rows.push(
      [`RSS with ${n0(s.rssCount)} ConfigMaps stored`, mib(f.rss.rssBytes), `${mib(f.bareRssBytes)} (bare process)`, ofTime(f.rss.rssBytes, f.bareRssBytes), '≈ 890 MB (20,000 ConfigMaps + 12,000 pods)', '≤ 1 GiB', mark(f.rss.rssBytes <= GiB)],
      [`Time to create the last ${n0(f.rss.create.requests)} of them`, `${f.rss.create.seconds.toFixed(1)} s (${n0(f.rss.create.perSecond)}/s, p99 ${ms(f.rss.create.p99Ms)})`, `${n0(c.post.perSecond)} POSTs/s`, ofRate(f.rss.create.perSecond, c.post.perSecond), '', '', ''],
    );
  } else {
    rows.push([`RSS with ${n0(s.rssCount)} ConfigMaps stored`, 'not measured (BENCH_QUICK=1)', '', '', '≈ 890 MB (20,000 ConfigMaps + 12,000 pods)', '≤ 1 GiB', '—']);
  }
  const table = [
    '| Measurement | svc | Bare Node (same run) | Share of bare Node | Established server (v1.20, etcd 3.4) | Target | Met |',
    '|---|---:|---:|---:|---|---|:-:|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

  const targets = [
    ['creates ≥ 6,000/s', f.creates.perSecond >= 6000, n0(f.creates.perSecond)],
    ['gets ≥ 15,000/s', f.gets.perSecond >= 15000, n0(f.gets.perSecond)],
    ['a 5,000-item list ≤ 30 ms', f.lists.wholeMs <= 30, ms(f.lists.wholeMs)],
    ['watch delivery p99 ≤ 5 ms', f.watch.p99Ms <= 5, ms(f.watch.p99Ms)],
    ['100,000 ConfigMaps in ≤ 1 GiB RSS', f.rss ? f.rss.rssBytes <= GiB : undefined, f.rss ? mib(f.rss.rssBytes) : 'not measured'],
    [
      "controller machine + workers ≥ 80% of a plain async loop's throughput (every work and concurrency)",
      f.runtime ? queueTargetMet(f.runtime) : undefined,
      f.runtime ? `lowest ${Math.round(Math.min(...f.runtime.queue.rows.map((r) => r.ratio)) * 100)}%` : 'not measured',
    ],
  ] as const;

  return `# Benchmarks

Written by \`npm run bench\` (bench/run.ts); do not edit by hand, run it again.
${f.profileDir ? `\n**Profiled run** (\`--cpu-prof\`): the profiler slows the server, so these figures are lower than an ordinary run. Profile: \`${f.profileDir}\`.\n` : ''}${f.quick ? '\n**Quick run** (`BENCH_QUICK=1`): the 100,000-ConfigMap memory step was skipped.\n' : ''}
- Date: ${f.startedAt.toISOString()} (the run took ${Math.round(f.durationS)} s)
- Machine: ${m.cpus} CPUs (nproc), ${m.cpuModel}, ${m.memoryGiB.toFixed(1)} GiB RAM, Linux ${m.kernel}
- Node.js: ${m.node}
- Command: \`${f.command}\`
- Load average (1 min) at start: ${m.loadAtStart.toFixed(2)}${m.loadAtStart > BUSY_LOAD ? ' — **the machine was busy with other work; figures are lower and noisier than on a quiet machine**' : ''}

## Setup

- **Client**: undici \`Pool\` in the benchmark process, HTTPS (HTTP/1.1) with keep-alive, ${s.concurrency} connections
  and ${s.concurrency} workers, each sending its next request when the previous answer's body is fully read:
  ${s.concurrency} requests in flight at all times. It trusts the server's self-signed CA. Latency is per request,
  from hand-over to undici to the last byte of the answer (\`process.hrtime\`); p50/p99 are nearest-rank.
- **svc**: the real \`apiserver\` binary in its own process, embedded store (SQLite) in a fresh \`--data-dir\`
  (\`${s.dataDir}\`), self-signed certificate from \`--cert-dir\`, all other flags default.
- **Bare Node** (the ceiling): \`bench/bare-server.ts\` in its own process, \`node:https\` with the apiserver's
  own certificate and key, answering a fixed 300-byte JSON to GET and to POST (after reading the body);
  run after the apiserver has stopped, with the same client and concurrency (after ${s.ceilingWarmupMs / 1000} s of
  warm-up each for GET and POST, measured for as long as the gets). For lists it answers a
  fixed body of the same size as the real list (and of the average chunk size, ${f.lists.chunks} times); for watches it
  holds ${s.watchers} open streams and writes one ~300-byte event line to each before answering a POST (the apiserver's order).
- **Share of bare Node**: rates are ours ÷ bare; times and memory (smaller is better) are bare ÷ ours,
  so 100% means as good as bare Node on this machine. The issue's reference ceiling for this machine was
  about 23,600 GETs/s and 20,300 POSTs/s; this run measured ${n0(c.get.perSecond)} and ${n0(c.post.perSecond)}.
  Rates vary by about ±15% from run to run on this VM (both servers alike), so compare shares within one run
  rather than absolute figures across runs.

Steps, in order: warm-up (${n0(s.warmupCreates)} creates and ${s.warmupGetMs / 1000} s of gets in another namespace); ${s.createRounds} rounds of ${n0(s.createCount)} creates of small
(~200-byte) ConfigMaps, each into an empty namespace (the median round is reported); gets by name of the first round's for ${s.getDurationMs / 1000} s (spread over all
of them); a list of the ${n0(s.listItems)} whole and in chunks of ${s.listChunk}, each the median of ${s.listRuns} runs after 2
warm-up runs, timed to the last byte of the body (the client does not decode the items); ${s.watchers} watches on a
third namespace from its current resourceVersion, then ${s.watchWrites} sequential creates ${s.watchGapMs} ms apart (after 10 warm-up
writes), latency per write = from its response arriving to the last of the ${s.watchers} watchers having parsed that
event (the watchers run in ${s.watchThreads} worker threads of the bench process, each with its own connections, so the
client's parsing is spread over the cores as a multi-threaded client's would be); ${f.rss ? `then creates at concurrency ${s.concurrency} up to ${n0(s.rssCount)} ConfigMaps stored in all, and VmRSS of the server process (/proc/<pid>/status)
after a ${s.rssSettleMs / 1000} s pause` : 'the 100,000-ConfigMap memory step was skipped (BENCH_QUICK=1)'}.

## Figures

${table}
${f.protobuf ? `\n${renderProtobufSection(f.protobuf)}` : ''}${f.runtime ? `\n${renderRuntimeSection(f.runtime, { command: f.command, date: f.startedAt, loadAtStart: m.loadAtStart })}` : ''}${f.storms ? `\n${renderStormsSection(f.storms, { command: f.command, date: f.startedAt, loadAtStart: m.loadAtStart }, STORMS_BEFORE)}` : ''}

Server RSS: ${mib(f.rssAtStartBytes)} after start, ${mib(f.rssAfterSmallStepsBytes)} after the steps before the memory step${f.rss ? `, ${mib(f.rss.rssBytes)} with ${n0(s.rssCount)} ConfigMaps stored (peak ${mib(f.rss.peakRssBytes)})` : ''}.
${f.applies ? `Server-side apply: for ${s.applyDurationMs / 1000} s, ${s.applyObjects} Deployments (two containers each) applied round robin, rounds alternating between manager \`alpha\` (the pod template, a new image tag each round) and \`beta\` (\`spec.replicas\`, with force), so every apply merges, updates ownership and writes.\n` : ''}Create rounds: ${f.createRounds.map((r) => `${n0(r.perSecond)}/s (p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)})`).join('; ')}.
Watch: ${f.watch.deliveredBeforeResponse} of ${f.watch.writes} events had reached all watchers before the write's own response (counted as 0 ms); max ${ms(f.watch.maxMs)}. Both svc and the bare server write an event to every watch socket before they answer the write (svc: once the write is committed).
List runs (ms): whole ${f.lists.wholeRunsMs.map((x) => x.toFixed(1)).join(', ')}; chunked ${f.lists.chunkedRunsMs.map((x) => x.toFixed(1)).join(', ')}.

## Targets

${targets.map(([name, ok, got]) => `- ${ok === undefined ? '—' : mark(ok)} ${name}: ${got}`).join('\n')}

Baseline (the established API server, v1.20 on etcd 3.4, on this same 2-core machine with the same kind of
client): about 2,100 creates/s (p99 40–56 ms), 4,200 gets/s (p99 25 ms), a 5,000-item list in 65–88 ms,
watch delivery to 100 watchers p50 1.8 ms / p99 5–7 ms, and about 890 MB RSS after some 20,000 ConfigMaps
and 12,000 pods.

## Running it

- \`npm run bench\`: the full run (builds first; about ${Math.max(1, Math.round(f.durationS / 60))} min on this machine), rewrites this file.
- \`BENCH_QUICK=1 npm run bench\` (or \`npm run bench -- --quick\`): skips the 100,000-ConfigMap memory step.
- \`BENCH_ONLY=runtime npm run bench\` (or \`npm run bench -- --only=runtime\`): only the actor-runtime section, which
  it replaces in this file (the rest is left as it was).
- \`BENCH_ONLY=storms npm run bench\` (or \`npm run bench -- --only=storms\`): only the memory-under-storms section
  (its own fresh apiserver), which it replaces in this file.
- \`BENCH_ONLY=nodes npm run bench\`: only the simulated-nodes section (pod startup latency, a scale run), which it
  replaces in this file.
- \`BENCH_ONLY=large-objects npm run bench\`: only the large-objects section (writes of one ConfigMap stored at 3.1 MB
  against its own fresh apiserver, with how long each held up \`/healthz\`), which it replaces in this file.
- \`BENCH_ONLY=backup npm run bench\`: only the controller-authoring section (the guide's backup controller under
  \`svc run\` against \`svc up\`, 2,000 sources, at the documented and the default client settings), which it replaces.
- \`BENCH_ONLY=services npm run bench\`: only the Services section (Service creates with cluster-IP allocation
  against headless Services, 21,000 allocated and released, the repair loop's leak check), which it replaces.
- \`BENCH_ONLY=durability npm run bench\`: only the durability section (write rate of the embedded store with and
  without \`--data-dir-fsync\`, over HTTPS against fresh apiservers and in process), which it replaces in this file.
- \`node dist/bench/measure-smp.js\` (after \`npm run build\`): the strategic-merge-patch figures above (not part of
  \`npm run bench\`; paste its table by hand).
- \`BENCH_PROFILE=1 npm run bench\` (or \`npm run bench -- --cpu-prof\`): starts the apiserver under
  \`node --cpu-prof --cpu-prof-dir=<dir>\`; the profile is written when the server exits at the end of the run.
  The run prints the directory, the top self-time functions and files, and writes its report to
  \`<dir>/benchmarks.md\` instead of this file (profiled figures are slower). Open the \`.cpuprofile\` in Chrome
  DevTools (Performance) or VS Code, or summarize it again with
  \`node dist/bench/profile-summary.js <file.cpuprofile> [top]\`.
- \`BENCH_WATCH_THREADS=<n>\`: worker threads the ${s.watchers} watchers are spread over (default 2).
- \`BENCH_DATA_DIR=<dir>\`: where the apiserver's data and cert folders go (default: the OS temp dir).
`;
}
