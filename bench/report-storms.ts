/**
 * The "Memory under storms" section of docs/benchmarks.md (bench/measure-storms.ts): RSS at
 * baseline, peak and after each storm, the watches' open times, and the figures from before the
 * fix (kept here because a run only measures the code it runs).
 */
import type { StormFigures } from './measure-storms.js';

export const STORMS_HEADING = '## Memory under storms';
/** The issue's bound: RSS back within this of its baseline `settleMs` after a storm. */
export const STORM_RSS_SLACK_BYTES = 300 * 2 ** 20;

export interface StormRun {
  command: string;
  date: Date;
  loadAtStart: number;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const mib = (b: number) => `${n0(b / 2 ** 20)} MiB`;
const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'not all opened');

export function renderStormsSection(f: StormFigures, run: StormRun, before?: string): string {
  const s = f.settings;
  const w = f.watches;
  const o = f.overload;
  const row = (name: string, p: { peakBytes: number; afterBytes: number }) => {
    const over = p.afterBytes - f.baselineBytes;
    return `| ${name} | ${mib(f.baselineBytes)} | ${mib(p.peakBytes)} | ${mib(p.afterBytes)} | ${over >= 0 ? '+' : ''}${mib(over)} | ${over <= STORM_RSS_SLACK_BYTES ? '✓' : '✗'} |`;
  };
  const fast = s.http1Watches + s.http2Watches;
  const slow = s.slowHttp1Watches + s.slowHttp2Watches;
  return `${STORMS_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-storms.ts and bench/storm-load.ts. A fresh apiserver with \`--max-requests-inflight=${s.maxRequestsInflight}\`
\`--max-mutating-requests-inflight=${s.maxMutatingRequestsInflight}\`, seeded with ${n0(s.objects)} ConfigMaps of about ${n0(s.objectBytes)} bytes in one
namespace; VmRSS of the server (/proc/<pid>/status) after seeding (baseline), sampled every 100 ms during each phase (peak),
and ${s.settleMs / 1000} s after the phase ended. Target: back within ${mib(STORM_RSS_SLACK_BYTES)} of the baseline.

1. **Watch storm**: ${n0(fast + slow)} concurrent watches of that namespace without a resourceVersion (so each first gets
   every object as ADDED): ${n0(s.http1Watches)} over HTTP/1.1 (one connection each), ${n0(s.http2Watches)} over HTTP/2 (${s.streamsPerSession} streams per
   connection), and ${n0(slow)} slow readers that send the request and never read (${s.slowHttp1Watches} raw HTTP/1.1 TLS sockets,
   ${s.slowHttp2Watches} paused HTTP/2 streams). A fast watch is open when it has received its ${n0(s.objects)} ADDED events; all
   watches are closed once every fast one is open.
2. **Overload**: for ${s.overloadMs / 1000} s, ${n0(2 * s.maxRequestsInflight)} concurrent LISTs of the whole namespace and ${n0(2 * s.maxMutatingRequestsInflight)} concurrent creates
   (twice each in-flight limit; closed loops, a 429 is read and retried after 5 ms).

| Phase | RSS baseline | Peak | ${s.settleMs / 1000} s after | After − baseline | Within ${mib(STORM_RSS_SLACK_BYTES)} |
|---|---:|---:|---:|---:|:-:|
${row(`Watch storm (${n0(fast + slow)} watches with initial state)`, w)}
${row(`Overload (2× in-flight limits, ${s.overloadMs / 1000} s)`, o)}

Watches: ${n0(w.opened)} of ${n0(w.fast)} fast watches got their whole initial state${w.notAdded ? ` (${n0(w.notAdded)} initial lines were not ADDED)` : ''}; open time from the
start of the storm p50 ${secs(w.p50OpenMs)}, p99 ${secs(w.p99OpenMs)}, all open after ${secs(w.allOpenMs)}.${w.errors.length ? ` Errors: ${w.errors.slice(0, 3).join('; ')}.` : ''}
Overload answers: ${Object.entries(o.byStatus).map(([code, n]) => `${n0(n)} × ${code}`).join(', ')}${o.errors ? `, ${n0(o.errors)} without an answer` : ''} (${mib(o.bytes)} received).
${before ? `\n${before}\n` : ''}`;
}

/** The same run before the fix (issue 8), for comparison; measured with the command above. */
export const STORMS_BEFORE = `Before the fix (commit d26b06d, same command and settings, 2026-11-24, load average 0.01): watch storm
baseline 154 MiB, peak **2,821 MiB**, 10 s after 226 MiB; fast watches open p50 11.2 s, all after 14.4 s (every watch
had the whole list written into its socket at once, whether its client read or not). Overload: peak 2,892 MiB,
10 s after **2,503 MiB** (+2,349 MiB, ✗): dead list bodies stayed resident on the idle server, no GC ran to free them.`;
