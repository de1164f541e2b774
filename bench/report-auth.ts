/** The "Authentication and authorization" section of docs/benchmarks.md (bench/measure-auth.ts). */
import { cpus } from 'node:os';
import { type LoadResult, median } from './load.js';
import { AUTH_MODES, type AuthFigures, type AuthMode, authRatios, SECURED_MODES, type SecuredMode } from './measure-auth.js';

export const AUTH_HEADING = '## Authentication and authorization';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ok = (x: number) => (x >= 0.9 ? '✓' : '✗');
const WHO: Record<AuthMode, string> = {
  open: 'open server, anonymous, AlwaysAllow',
  masters: 'secured server, system:masters certificate (no RBAC evaluation)',
  certificate: 'secured server, client certificate, Node,RBAC',
  token: 'secured server, static token, Node,RBAC',
  serviceaccount: 'secured server, service-account token (JWT), Node,RBAC',
};
const CLIENT: Record<SecuredMode, string> = {
  masters: 'system:masters certificate (same process, no RBAC)',
  certificate: 'client certificate + RBAC',
  token: 'static token + RBAC',
  serviceaccount: 'service-account token + RBAC',
};

const row = (what: string, rs: LoadResult[], cpu: number[]) => {
  const mid = rs.map((r) => r.perSecond);
  return `| ${what} | ${n0(median(mid))}/s (${rs.map((r) => n0(r.perSecond)).join(', ')}) | ${median(rs.map((r) => r.p50Ms)).toFixed(2)} ms | ${median(rs.map((r) => r.p99Ms)).toFixed(2)} ms | ${median(cpu).toFixed(3)} ms |`;
};

/** A warning when the machine was busier than its cores at the start: the ratios are then mostly other processes' noise. */
function busy(load: number): string {
  const cores = cpus().length;
  return load > cores
    ? `\n\n**The machine was busy** (load average ${load.toFixed(2)} on ${cores} cores at the start): other processes took most of the CPU, so the\nrounds swing several-fold and the ratios below are noise, not a verdict; rerun on a quiet machine.`
    : '';
}

export function renderAuthSection(f: AuthFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const r = authRatios(f);
  const w = f.watch;
  return `${AUTH_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-auth.ts. Two apiservers on their embedded stores, started alike except for security: the open one authorizes
everything (\`--authorization-mode=AlwaysAllow\`, requests anonymous); the secured one runs \`--authorization-mode=Node,RBAC\`
with \`--client-ca-file\`, \`--token-auth-file\` and a service-account signing key, its default policy, and ${n0(s.otherBindings)} other
users' RoleBindings. The load comes from a user with a client certificate, a user with a static token and a service account
with a TokenRequest token, each allowed by RoleBindings to \`system:aggregate-to-edit\` and \`-view\` (the rules \`edit\`
aggregates) in the bench namespace, and from a \`system:masters\` certificate on the secured process (authenticated but not
evaluated by RBAC: it separates what RBAC costs from what a second process costs). ${s.concurrency} concurrent clients; one warm-up
round per mode, then ${s.rounds} rounds in which each mode runs ${n0(s.createsPerRound)} ConfigMap creates (deleted after the round, unmeasured, so
both stores stay alike) then ${(s.getMs / 1000).toFixed(0)} s of gets by name, the order of the modes rotated each round. Target (issue 24):
throughput lost to authentication and RBAC at most 10%, watch delivery p99 unchanged within noise.${busy(run.loadAtStart)}

| Load | Median (each round) | p50 | p99 | apiserver CPU per request |
|---|---:|---:|---:|---:|
${AUTH_MODES.map((m) => row(`creates: ${WHO[m]}`, f.creates[m], f.createCpuMs[m])).join('\n')}
${AUTH_MODES.map((m) => row(`gets: ${WHO[m]}`, f.gets[m], f.getCpuMs[m])).join('\n')}

Share of the open server's throughput kept: the median of the per-round ratios (mode / open in the same round, the
headline), the ratio of the medians, and capacity by CPU per request (open / secured):

| Client | Creates (paired) | Gets (paired) | Creates (medians) | Gets (medians) | Creates by CPU | Gets by CPU |
|---|---:|---:|---:|---:|---:|---:|
${SECURED_MODES.map((m) => `| ${CLIENT[m]} | ${pct(r[m].creates)} ${ok(r[m].creates)} | ${pct(r[m].gets)} ${ok(r[m].gets)} | ${pct(r[m].createsOfMedians)} | ${pct(r[m].getsOfMedians)} | ${pct(r[m].createCpu)} | ${pct(r[m].getCpu)} |`).join('\n')}

Watch delivery (${s.watchers} watchers of the bench namespace's labelled ConfigMaps, ${n0(s.watchWrites)} writes one after another; the secured
server's watchers are the token user): open p50 ${w.open.p50Ms.toFixed(2)} ms, p99 ${w.open.p99Ms.toFixed(2)} ms; secured p50 ${w.secured.p50Ms.toFixed(2)} ms, p99
${w.secured.p99Ms.toFixed(2)} ms (authorization is decided once per watch, when it opens; events are not re-authorized, as established).
`;
}
