/** The "Services" section of docs/benchmarks.md (bench/measure-services.ts). */
import type { LoadResult } from './load.js';
import type { ServicesFigures } from './measure-services.js';

export const SERVICES_HEADING = '## Services';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const row = (what: string, r: LoadResult) => `| ${what} | ${n0(r.perSecond)}/s | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms |`;

export function renderServicesSection(f: ServicesFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const rows: string[] = [];
  for (let r = 0; r < s.rounds; r++) {
    rows.push(row(`round ${r + 1}: headless (\`clusterIP: None\`)`, f.headless[r]!));
    rows.push(row(`round ${r + 1}: allocated ClusterIP`, f.allocated[r]!));
  }
  const ips = f.repair.find((x) => x.key.endsWith('/serviceips'))!;
  const leaked = f.repair.reduce((n, x) => n + x.leaked, 0);
  return `${SERVICES_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-services.ts. A fresh apiserver on its embedded store with \`--service-cluster-ip-range=${s.range}\`;
${s.concurrency} concurrent clients POST small Services (one port, a selector) in alternating rounds of ${n0(s.perRound)},
after ${n0(s.warmup)} of each as warm-up. The baseline is the same Service made headless (\`clusterIP: None\`: same kind,
path, validation and size, no allocation); the other takes an address from the range (a bitmap kept in the store, changed by
compare-and-swap, group-committed). Target (issue 22): allocation lowers create throughput by no more than 10%.

| Step | Creates | p50 | p99 |
|---|---:|---:|---:|
${rows.join('\n')}
| ${n0(f.deletes.requests)} allocated Services deleted (each releases its address) | ${n0(f.deletes.perSecond)}/s | ${f.deletes.p50Ms.toFixed(2)} ms | ${f.deletes.p99Ms.toFixed(2)} ms |

Median allocated / median headless: **${(f.ratio * 100).toFixed(1)}%** of the baseline's throughput (${f.ratio >= 0.9 ? '✓ within 10%' : '✗ more than 10% lower'}).

${n0(f.allocatedTotal)} Services allocated and released: afterwards the cluster-IP bitmap holds ${n0(f.ipsHeldAfter)} address
(the \`kubernetes\` Service's), and the repair loop's check over the stopped server's store finds ${n0(leaked)} leaked
address${leaked === 1 ? '' : 'es'} (${n0(ips.used)} in use, ${n0(ips.duplicates)} double, ${n0(ips.notAllocated)} unmarked) ${leaked === 0 && f.ipsHeldAfter === 1 ? '✓' : '✗'}.
`;
}
