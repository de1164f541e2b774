/**
 * Admission and audit cost (issue 26 "Proof": "the default admission chain plus Metadata-level
 * audit to a file against the chain off and no audit, creates/s and p99 in one run: <= 15%
 * throughput lost"), and the section of docs/benchmarks.md it writes.
 *
 * Two apiservers on their embedded stores, started alike except for:
 * - bare: every default admission plugin disabled (--disable-admission-plugins=<the default list>),
 *   no audit;
 * - audited: the default admission chain (ServiceAccount aside, as every bench server: no
 *   controller makes the `default` account, and it concerns pods only) and a policy auditing every
 *   request at Metadata to a file (--audit-log-path, the default blocking mode: each event is
 *   written before the answer).
 * One warm-up round each, then rounds of ConfigMap creates at the bench concurrency, the order
 * alternating each round (paired: each round's ratio audited / bare is the figure; the median of
 * those ratios is the headline), the round's objects deleted after it (unmeasured).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_ADMISSION_PLUGINS } from '../src/apiserver/admission/plugins.js';
import { call, type LoadResult, median, runLoad } from './load.js';
import { createNamespace, objectName } from './measure-creates.js';
import { procCpuSeconds, type ServerProcess, startApiServer } from './server-process.js';

export const AUDIT_HEADING = '## Admission and audit';

export interface AuditBenchSettings {
  concurrency: number;
  rounds: number;
  createsPerRound: number;
}

export type AuditBenchMode = 'bare' | 'audited';
const MODES: readonly AuditBenchMode[] = ['bare', 'audited'];

export interface AuditFigures {
  settings: AuditBenchSettings;
  creates: Record<AuditBenchMode, LoadResult[]>;
  cpuMs: Record<AuditBenchMode, number[]>;
  /** Bytes the audit log grew by during the measured rounds, per create. */
  logBytesPerCreate: number;
}

const NS = 'bench-audit';

function roundConfigMap(name: string, round: string): Buffer {
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { app: 'bench', round } }, data: { key: 'value-'.padEnd(100, 'v') } }));
}

export async function measureAudit(parent: string, s: AuditBenchSettings, log: (m: string) => void): Promise<AuditFigures> {
  const work = mkdtempSync(join(parent, 'svc-bench-audit-'));
  const policy = join(work, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.svc.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
  const auditLog = join(work, 'audit', 'audit.log');
  const servers: Record<AuditBenchMode, ServerProcess> = {
    bare: await startApiServer({ dataDir: join(work, 'bare-data'), certDir: join(work, 'bare-certs'), args: [`--disable-admission-plugins=${DEFAULT_ADMISSION_PLUGINS.join(',')}`] }),
    audited: await startApiServer({ dataDir: join(work, 'audited-data'), certDir: join(work, 'audited-certs'), args: [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`] }),
  };
  try {
    const pools = { bare: servers.bare.pool(s.concurrency), audited: servers.audited.pool(s.concurrency) };
    for (const m of MODES) await createNamespace(pools[m], NS);
    const round = async (m: AuditBenchMode, prefix: string, total: number) => {
      const cpu0 = procCpuSeconds(servers[m].pid);
      const result = await runLoad({
        pool: pools[m],
        concurrency: s.concurrency,
        total,
        expectStatus: 201,
        next: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: roundConfigMap(objectName(prefix, i), prefix) }),
      });
      const cpuMs = ((procCpuSeconds(servers[m].pid) - cpu0) * 1000) / result.requests;
      await call(pools[m], 'DELETE', `/api/v1/namespaces/${NS}/configmaps?labelSelector=round%3D${encodeURIComponent(prefix)}`);
      return { result, cpuMs };
    };
    log('audit: warm-up');
    for (const m of MODES) await round(m, `warm-${m}`, Math.min(1_000, s.createsPerRound));
    const f: AuditFigures = { settings: s, creates: { bare: [], audited: [] }, cpuMs: { bare: [], audited: [] }, logBytesPerCreate: 0 };
    let logBytes = 0;
    for (let r = 0; r < s.rounds; r++) {
      const order = r % 2 === 0 ? MODES : [...MODES].reverse();
      for (const m of order) {
        const before = m === 'audited' ? statSync(auditLog).size : 0;
        const { result, cpuMs } = await round(m, `r${r}-${m}`, s.createsPerRound);
        if (m === 'audited') logBytes += Math.max(0, statSync(auditLog).size - before);
        f.creates[m].push(result);
        f.cpuMs[m].push(cpuMs);
      }
      log(`audit: round ${r + 1}: creates/s bare ${Math.round(f.creates.bare[r]!.perSecond)} (p99 ${f.creates.bare[r]!.p99Ms.toFixed(1)} ms), audited ${Math.round(f.creates.audited[r]!.perSecond)} (p99 ${f.creates.audited[r]!.p99Ms.toFixed(1)} ms)`);
    }
    // The log also holds the DELETE's events; the figure is per create round, deletes included.
    f.logBytesPerCreate = logBytes / (s.rounds * s.createsPerRound);
    return f;
  } finally {
    await servers.bare.stop();
    await servers.audited.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Median over rounds of audited / bare creates per second (paired). */
export function auditKept(f: AuditFigures): number {
  return median(f.creates.audited.map((r, i) => r.perSecond / f.creates.bare[i]!.perSecond));
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

export function renderAuditSection(f: AuditFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const kept = auditKept(f);
  const row = (what: string, m: AuditBenchMode) => {
    const rs = f.creates[m];
    return `| ${what} | ${n0(median(rs.map((r) => r.perSecond)))}/s (${rs.map((r) => n0(r.perSecond)).join(', ')}) | ${median(rs.map((r) => r.p50Ms)).toFixed(2)} ms | ${median(rs.map((r) => r.p99Ms)).toFixed(2)} ms | ${median(f.cpuMs[m]).toFixed(3)} ms |`;
  };
  const cpuKept = median(f.cpuMs.bare) / median(f.cpuMs.audited);
  return `${AUDIT_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-audit.ts. Two apiservers on their embedded stores, started alike except for admission and audit: **bare** runs
with every default admission plugin disabled and no audit; **audited** runs the default admission chain (ServiceAccount aside,
as on every bench server) and a policy that audits every request at \`Metadata\` to a file (\`--audit-log-path\`, the default
\`blocking\` mode: each request's RequestReceived and ResponseComplete lines are written before it is answered, about
${n0(f.logBytesPerCreate)} bytes of log per create). ${s.concurrency} concurrent clients; one warm-up round each, then ${s.rounds} rounds of ${n0(s.createsPerRound)} ConfigMap
creates per server, the order alternating each round, each round's objects deleted after it (unmeasured). Target (issue 26):
at most 15% of the creates lost.

| Load | Median (each round) | p50 | p99 | apiserver CPU per request |
|---|---:|---:|---:|---:|
${row('creates, bare (no admission, no audit)', 'bare')}
${row('creates, default admission + Metadata audit to a file', 'audited')}

Creates kept with admission and audit: **${(kept * 100).toFixed(1)}%** ${kept >= 0.85 ? '✓' : '✗'} (median of the per-round ratios audited / bare);
by CPU per request ${(cpuKept * 100).toFixed(1)}%.
`;
}
