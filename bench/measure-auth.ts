/**
 * Authentication and authorization cost (issue 24): creates and gets at the bench concurrency, and
 * watch delivery, against two apiservers started alike except for security:
 *
 * - open: `--authorization-mode=AlwaysAllow`, every request anonymous (the established default);
 * - secured: `--authorization-mode=Node,RBAC`, `--client-ca-file`, `--token-auth-file`; the load
 *   comes from a user with a client certificate and from a user with a static token, each bound
 *   to the default `system:aggregate-to-edit` and `-view` ClusterRoles (the rules `edit` aggregates;
 *   no controller manager runs here to fill `edit` itself) in the bench namespace by RoleBindings, among a few hundred
 *   other bindings (so RBAC looks through an index, not an empty policy).
 *
 * Rounds alternate open / certificate / token, so a noisy neighbour hits all three alike; the
 * report gives each one's median and its ratio to open, plus the apiserver's CPU per request
 * (moves much less than wall-clock throughput on a shared machine). Target: no more than 10% lost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate } from '../src/cli/pki.js';
import { call, type LoadResult, median, runLoad } from './load.js';
import { configMapBody, createNamespace, objectName } from './measure-creates.js';
import { measureWatchFanout, type WatchResult } from './measure-watch.js';
import { type ClientCertificate, procCpuSeconds, type ServerProcess, startApiServer } from './server-process.js';

export interface AuthBenchSettings {
  concurrency: number;
  rounds: number;
  createsPerRound: number;
  getMs: number;
  /** Other users' RoleBindings in other namespaces, so the policy is not trivially small. */
  otherBindings: number;
  watchers: number;
  watchWrites: number;
}

export type AuthMode = 'open' | 'certificate' | 'token';
export const AUTH_MODES: readonly AuthMode[] = ['open', 'certificate', 'token'];

export interface AuthFigures {
  settings: AuthBenchSettings;
  creates: Record<AuthMode, LoadResult[]>;
  gets: Record<AuthMode, LoadResult[]>;
  /** apiserver CPU ms per request, each round. */
  createCpuMs: Record<AuthMode, number[]>;
  getCpuMs: Record<AuthMode, number[]>;
  watch: { open: WatchResult; secured: WatchResult };
}

const NS = 'bench-auth';
const TOKEN = 'bench-token-0123456789abcdef';

interface Client {
  server: ServerProcess;
  pool: ReturnType<ServerProcess['pool']>;
  headers?: Record<string, string>;
}

async function loadRound(c: Client, kind: 'creates' | 'gets', s: AuthBenchSettings, prefix: string, existing: number): Promise<{ result: LoadResult; cpuMs: number }> {
  const cpu0 = procCpuSeconds(c.server.pid);
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  const result =
    kind === 'creates'
      ? await runLoad({
          pool: c.pool,
          concurrency: s.concurrency,
          total: s.createsPerRound,
          expectStatus: 201,
          ...(c.headers ? { headers: c.headers } : {}),
          next: (i) => ({ method: 'POST', path: base, body: configMapBody(NS, objectName(prefix, i)) }),
        })
      : await runLoad({
          pool: c.pool,
          concurrency: s.concurrency,
          durationMs: s.getMs,
          expectStatus: 200,
          ...(c.headers ? { headers: c.headers } : {}),
          next: (i) => ({ method: 'GET', path: `${base}/${objectName('seed', (i * 7_919) % existing)}` }),
        });
  return { result, cpuMs: ((procCpuSeconds(c.server.pid) - cpu0) * 1000) / result.requests };
}

export async function measureAuth(parent: string, s: AuthBenchSettings, log: (m: string) => void): Promise<AuthFigures> {
  const work = mkdtempSync(join(parent, 'svc-bench-auth-'));
  const ca = await createCertificateAuthority('svc-bench-ca');
  const caFile = join(work, 'client-ca.crt');
  writeFileSync(caFile, ca.certPem);
  const tokenFile = join(work, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},bench-token-user,1001,"bench"\n`);
  const admin: ClientCertificate = await issueClientCertificate(ca, { user: 'bench-admin', groups: ['system:masters'] });
  const certUser: ClientCertificate = await issueClientCertificate(ca, { user: 'bench-cert-user', groups: ['bench'] });

  const open = await startApiServer({ dataDir: join(work, 'open-data'), certDir: join(work, 'open-certs') });
  const secured = await startApiServer({
    dataDir: join(work, 'secured-data'),
    certDir: join(work, 'secured-certs'),
    args: ['--authorization-mode=Node,RBAC', `--client-ca-file=${caFile}`, `--token-auth-file=${tokenFile}`],
  });
  try {
    const openPool = open.pool(s.concurrency);
    const adminPool = secured.pool(4, admin);
    for (const [pool, label] of [[openPool, 'open'], [adminPool, 'secured']] as const) {
      log(`auth: setting up the ${label} server`);
      await createNamespace(pool, NS);
      for (let i = 0; i < s.otherBindings; i++) {
        const ns = `other-${i % 20}`;
        if (i < 20) await createNamespace(pool, ns);
        await call(pool, 'POST', `/apis/rbac.authorization.svc.io/v1/namespaces/${ns}/rolebindings`, {
          apiVersion: 'rbac.authorization.svc.io/v1', kind: 'RoleBinding', metadata: { name: `other-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'User', name: `someone-${i}`, apiGroup: 'rbac.authorization.svc.io' }],
        });
      }
      // What `edit` aggregates: writes from system:aggregate-to-edit, reads from system:aggregate-to-view.
      for (const role of ['system:aggregate-to-edit', 'system:aggregate-to-view']) {
        await call(pool, 'POST', `/apis/rbac.authorization.svc.io/v1/namespaces/${NS}/rolebindings`, {
          apiVersion: 'rbac.authorization.svc.io/v1', kind: 'RoleBinding', metadata: { name: `bench-${role.replace(/:/g, '-')}` },
          roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: role },
          subjects: [
            { kind: 'User', name: 'bench-cert-user', apiGroup: 'rbac.authorization.svc.io' },
            { kind: 'User', name: 'bench-token-user', apiGroup: 'rbac.authorization.svc.io' },
          ],
        });
      }
      // The objects the gets read.
      await runLoad({ pool, concurrency: 4, total: 2_000, expectStatus: 201, next: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: configMapBody(NS, objectName('seed', i)) }) });
    }
    const clients: Record<AuthMode, Client> = {
      open: { server: open, pool: openPool },
      certificate: { server: secured, pool: secured.pool(s.concurrency, certUser) },
      token: { server: secured, pool: secured.pool(s.concurrency), headers: { authorization: `Bearer ${TOKEN}` } },
    };
    const empty = <T>(): Record<AuthMode, T[]> => ({ open: [], certificate: [], token: [] });
    const f: AuthFigures = { settings: s, creates: empty(), gets: empty(), createCpuMs: empty(), getCpuMs: empty(), watch: undefined as unknown as AuthFigures['watch'] };
    log('auth: warm-up');
    for (const m of AUTH_MODES) {
      await loadRound(clients[m], 'creates', { ...s, createsPerRound: 1_000 }, `warm-${m}`, 2_000);
      await loadRound(clients[m], 'gets', { ...s, getMs: 2_000 }, '', 2_000);
    }
    for (let r = 0; r < s.rounds; r++) {
      for (const m of AUTH_MODES) {
        const c = await loadRound(clients[m], 'creates', s, `r${r}-${m}`, 2_000);
        f.creates[m].push(c.result);
        f.createCpuMs[m].push(c.cpuMs);
        const g = await loadRound(clients[m], 'gets', s, '', 2_000);
        f.gets[m].push(g.result);
        f.getCpuMs[m].push(g.cpuMs);
      }
      log(`auth: round ${r + 1}: creates/s ${AUTH_MODES.map((m) => `${m} ${Math.round(f.creates[m][r]!.perSecond)}`).join(', ')}; gets/s ${AUTH_MODES.map((m) => `${m} ${Math.round(f.gets[m][r]!.perSecond)}`).join(', ')}`);
    }
    log('auth: watch delivery');
    const watch = async (server: ServerProcess, pool: Client['pool'], headers: Record<string, string> | undefined) =>
      measureWatchFanout({
        writePool: pool,
        url: server.url,
        ca: server.ca,
        threads: 2,
        ...(headers ? { watchHeaders: headers } : {}),
        watchPath: `/api/v1/namespaces/${NS}/configmaps?watch=1&labelSelector=bench%3Dwatch`,
        writePath: `/api/v1/namespaces/${NS}/configmaps`,
        writeBody: (name) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { bench: 'watch' } }, data: { k: 'v' } })),
        watchers: s.watchers,
        warmupWrites: 10,
        writes: s.watchWrites,
        gapMs: 5,
        attachWaitMs: 5_000,
        timeoutMs: 10_000,
      });
    // The secured server's watchers are the token user (RBAC decides each watch); its writer is the
    // admin certificate (the write path is the same for both servers).
    f.watch = {
      open: await watch(open, openPool, undefined),
      secured: await watch(secured, adminPool, clients.token.headers),
    };
    return f;
  } finally {
    await open.stop();
    await secured.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Median of mode `m` over median of open, for throughput (higher is better) and CPU (open / m). */
export function authRatios(f: AuthFigures): Record<'certificate' | 'token', { creates: number; gets: number; createCpu: number; getCpu: number }> {
  const per = (m: 'certificate' | 'token') => ({
    creates: median(f.creates[m].map((r) => r.perSecond)) / median(f.creates.open.map((r) => r.perSecond)),
    gets: median(f.gets[m].map((r) => r.perSecond)) / median(f.gets.open.map((r) => r.perSecond)),
    createCpu: median(f.createCpuMs.open) / median(f.createCpuMs[m]),
    getCpu: median(f.getCpuMs.open) / median(f.getCpuMs[m]),
  });
  return { certificate: per('certificate'), token: per('token') };
}
