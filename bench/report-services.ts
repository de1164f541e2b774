/** The "Services" section of docs/benchmarks.md (bench/measure-services.ts). */
import { type LoadResult, median } from './load.js';
import type { ServicesFigures } from './measure-services.js';

export const SERVICES_HEADING = '## Services';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const row = (what: string, r: LoadResult, cpuMs?: number) => `| ${what} | ${n0(r.perSecond)}/s | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms | ${cpuMs === undefined ? '' : `${cpuMs.toFixed(3)} ms`} |`;

const loadNote = (load: number) => (load > 2 ? ` (a machine at load ${load.toFixed(0)} swings more than the difference measured)` : '');

export function renderServicesSection(f: ServicesFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const rows: string[] = [];
  for (let r = 0; r < s.rounds; r++) {
    rows.push(row(`round ${r + 1}: headless (\`clusterIP: None\`)`, f.headless[r]!, f.headlessCpuMs[r]));
    rows.push(row(`round ${r + 1}: allocated ClusterIP`, f.allocated[r]!, f.allocatedCpuMs[r]));
  }
  const ips = f.repair.find((x) => x.key.endsWith('/serviceips'))!;
  const leaked = f.repair.reduce((n, x) => n + x.leaked, 0);
  return `${SERVICES_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-services.ts. A fresh apiserver on its embedded store with \`--service-cluster-ip-range=${s.range}\`;
${s.concurrency} concurrent clients POST small Services (one port, a selector) in alternating rounds of ${n0(s.perRound)},
after ${n0(s.warmup)} of each as warm-up. The baseline is the same Service made headless (\`clusterIP: None\`: same kind,
path, validation and size, no allocation); the other takes an address from the range (a bitmap kept in the store, changed by
compare-and-swap, group-committed; each server keeps a few addresses reserved ahead of its creates, so a create
takes one from memory while the reservation is topped up in the background: docs/running.md). Target (issue 22): allocation lowers create throughput by no more than 10%.

| Step | Creates | p50 | p99 | apiserver CPU per create |
|---|---:|---:|---:|---:|
${rows.join('\n')}
| ${n0(f.deletes.requests)} allocated Services deleted (each releases its address) | ${n0(f.deletes.perSecond)}/s | ${f.deletes.p50Ms.toFixed(2)} ms | ${f.deletes.p99Ms.toFixed(2)} ms | |

The apiserver is CPU-bound in these rounds, so its CPU time per create is what bounds its create throughput; it moves
much less than requests per second when other processes load the machine (though not nothing: see the rounds). Median CPU per create: headless
${median(f.headlessCpuMs).toFixed(3)} ms, allocated ${median(f.allocatedCpuMs).toFixed(3)} ms: allocation leaves **${(f.cpuRatio * 100).toFixed(1)}%** of the
baseline's create capacity (${f.cpuRatio >= 0.9 ? '✓ within 10%' : '✗ more than 10% lower'}). Wall-clock throughput, median allocated / median headless:
${(f.ratio * 100).toFixed(1)}% (${f.ratio >= 0.9 ? '✓ within 10%' : '✗ more than 10% lower: the target is not met'}); round by round (the two back to back): ${f.pairRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}${loadNote(run.loadAtStart)}.

${f.rangeWrites ? `The cluster-IP bitmap (${s.range}: ${n0(Math.ceil((2 ** (32 - Number(s.range.split('/')[1])) - 2) / 8))} bytes, rewritten whole by each write, as the established RangeAllocation is) took ${n0(f.rangeWrites.writes)} store writes: ${n0(f.rangeWrites.fromReservation)} creates took their address from the server's reservation with no write of their own, and ${n0(f.rangeWrites.operations)} allocations, releases and reservation refills went through writes (${(f.rangeWrites.operations / f.rangeWrites.writes).toFixed(1)} per write: concurrent requests share a write, and under a stream of them a batch waits 2 ms for more).

` : ''}${n0(f.allocatedTotal)} Services allocated and released: afterwards the cluster-IP bitmap holds ${n0(f.ipsHeldAfter)} address
(the \`kubernetes\` Service's), and the repair loop's check over the stopped server's store finds ${n0(leaked)} leaked
address${leaked === 1 ? '' : 'es'} (${n0(ips.used)} in use, ${n0(ips.duplicates)} double, ${n0(ips.notAllocated)} unmarked) ${leaked === 0 && f.ipsHeldAfter === 1 ? '✓' : '✗'}.
`;
}
