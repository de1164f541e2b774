/**
 * The "Scheduler" section of docs/benchmarks.md (bench/measure-scheduler.ts): the established
 * SchedulingBasic shape in process and over HTTPS, and the anti-affinity and topology-spread
 * variants, against the issue's targets.
 */
import type { SchedulerBenchResult } from './measure-scheduler.js';

export const SCHEDULER_HEADING = '## Scheduler';

export interface SchedulerRun {
  command: string;
  date: Date;
  loadAtStart: number;
  /** What the profile of the in-process run showed (written by hand after a `--cpu-prof` run). */
  notes: string;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

function target(r: SchedulerBenchResult): string {
  if (r.variant !== 'basic') return '';
  if (r.createIntervalMs) return '';
  const want = r.transport === 'in-process' ? 1000 : 900;
  return `${r.podsPerSecond >= want ? '✓' : '✗'} (target ≥ ${n0(want)})`;
}

export function renderSchedulerSection(results: readonly SchedulerBenchResult[], run: SchedulerRun): string {
  const rows = results.map((r) =>
    `| ${r.variant}${r.createIntervalMs ? `, one create every ${r.createIntervalMs} ms` : ''} | ${r.transport} | ${n0(r.nodes)} | ${n0(r.backgroundPods)} + ${n0(r.measuredPods)} | **${n0(r.podsPerSecond)}** ${target(r)} | ${r.p50Ms} ms | ${r.p99Ms} ms${r.createIntervalMs ? ` ${r.p99Ms < 50 ? '✓' : '✗'} (target < 50 ms)` : ''} | ${n0(r.schedulerRssMiB)} MiB | ${r.unscheduled} | ${r.failedAttempts} |`);
  return `${SCHEDULER_HEADING}

\`${run.command}\` (${run.date.toISOString().slice(0, 10)}, load average at start ${run.loadAtStart.toFixed(2)}).
The shape of the established "SchedulingBasic" workload: nodes (4 cpu, 32Gi, 110 pods, three
zones) created first, background pods scheduled, then the measured pods created by 64 concurrent
creates. pods/s: measured pods from the first create sent to the last binding seen on a watch.
Latency per pod: create sent -> binding seen on a watch; under the saturating load it is mostly
time waiting in the queue, so the row "one create every 10 ms" measures it below saturation
(no background pods, 1,000 measured pods, the same 5,000 nodes). RSS: growth of
the process running the scheduler during the case. In-process: API server (embedded store),
scheduler and load generator in one Node.js process (one core between them); HTTPS: the apiserver
process, the scheduler and the load generator in this process with their own clients (QPS limit
off), so the scheduler has a core of its own. Variants: every measured pod with a required pod
anti-affinity (hostname) against its group, or a DoNotSchedule zone spread (maxSkew 1).

| Variant | Transport | Nodes | Pods (background + measured) | pods/s | p50 | p99 | Scheduler RSS | Unscheduled | Failed attempts |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

${run.notes}
`;
}
