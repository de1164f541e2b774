/**
 * Authentication and authorization cost (issue 24): creates and gets at the bench concurrency, and
 * watch delivery, against two apiservers started alike except for security:
 *
 * - open: `--authorization-mode=AlwaysAllow`, every request anonymous (the established default);
 * - secured: `--authorization-mode=Node,RBAC`, `--client-ca-file`, `--token-auth-file` and a
 *   service-account signing key; the load comes from a user with a client certificate, a user with
 *   a static token and a service account with a TokenRequest token (a JWT), each bound to the
 *   default `system:aggregate-to-edit` and `-view` ClusterRoles (the rules `edit` aggregates; no
 *   controller manager runs here to fill `edit` itself) in the bench namespace by RoleBindings,
 *   among a few hundred other bindings (so RBAC looks through an index, not an empty policy); and
 *   from a `system:masters` certificate on the same process (authenticated, not evaluated by RBAC),
 *   which separates what RBAC costs from what the second process costs.
 *
 * Fairness on a shared 2-core machine: one warm-up round per mode; then rounds in which every
 * mode runs once, the order rotated each round (each mode takes each position alike, so drift and
 * a noisy neighbour hit all modes alike); the objects a create round made are deleted after it, so
 * both stores stay the same size whatever the number of modes. The report's headline is the median
 * of the per-round ratios (mode / open of the same round: paired, so slow drift cancels), with the
 * ratio of medians and the apiserver's CPU per request (moves much less than wall-clock throughput
 * on a shared machine) beside it. Target: no more than 10% lost.
 *
 * BENCH_AUTH_PROFILE=<dir>: both servers run with --cpu-prof into <dir> (written at exit).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate } from '../src/cli/pki.js';
import { call, type LoadResult, median, runLoad } from './load.js';
import { createNamespace, objectName } from './measure-creates.js';
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

export type AuthMode = 'open' | 'masters' | 'certificate' | 'token' | 'serviceaccount';
export const AUTH_MODES: readonly AuthMode[] = ['open', 'masters', 'certificate', 'token', 'serviceaccount'];
/** The modes compared with open. */
export type SecuredMode = Exclude<AuthMode, 'open'>;
export const SECURED_MODES: readonly SecuredMode[] = ['masters', 'certificate', 'token', 'serviceaccount'];

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
const ISSUER = 'https://svc.bench.invalid';

interface Client {
  server: ServerProcess;
  pool: ReturnType<ServerProcess['pool']>;
  headers?: Record<string, string>;
}

/** A ConfigMap labelled with its create round, so the round's objects can be deleted after it. */
function roundConfigMap(name: string, round: string): Buffer {
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { app: 'bench', round } }, data: { key: 'value-'.padEnd(100, 'v') } }));
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
          next: (i) => ({ method: 'POST', path: base, body: roundConfigMap(objectName(prefix, i), prefix) }),
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

const RBAC = 'rbac.authorization.svc.io';

export async function measureAuth(parent: string, s: AuthBenchSettings, log: (m: string) => void): Promise<AuthFigures> {
  const work = mkdtempSync(join(parent, 'svc-bench-auth-'));
  const ca = await createCertificateAuthority('svc-bench-ca');
  const caFile = join(work, 'client-ca.crt');
  writeFileSync(caFile, ca.certPem);
  const tokenFile = join(work, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},bench-token-user,1001,"bench"\n`);
  const saKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const saPrivate = join(work, 'sa.key');
  const saPublic = join(work, 'sa.pub');
  writeFileSync(saPrivate, saKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  writeFileSync(saPublic, saKey.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const admin: ClientCertificate = await issueClientCertificate(ca, { user: 'bench-admin', groups: ['system:masters'] });
  const certUser: ClientCertificate = await issueClientCertificate(ca, { user: 'bench-cert-user', groups: ['bench'] });
  const profileDir = process.env['BENCH_AUTH_PROFILE'];
  const profile = profileDir ? { profileDir } : {};

  const open = await startApiServer({ dataDir: join(work, 'open-data'), certDir: join(work, 'open-certs'), ...profile });
  const secured = await startApiServer({
    dataDir: join(work, 'secured-data'),
    certDir: join(work, 'secured-certs'),
    ...profile,
    args: [
      '--authorization-mode=Node,RBAC',
      `--client-ca-file=${caFile}`,
      `--token-auth-file=${tokenFile}`,
      `--service-account-key-file=${saPublic}`,
      `--service-account-signing-key-file=${saPrivate}`,
      `--service-account-issuer=${ISSUER}`,
    ],
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
        await call(pool, 'POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, {
          apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `other-${i}` },
          roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'User', name: `someone-${i}`, apiGroup: RBAC }],
        });
      }
      await call(pool, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench-sa' } });
      // What `edit` aggregates: writes from system:aggregate-to-edit, reads from system:aggregate-to-view.
      for (const role of ['system:aggregate-to-edit', 'system:aggregate-to-view']) {
        await call(pool, 'POST', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`, {
          apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `bench-${role.replace(/:/g, '-')}` },
          roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
          subjects: [
            { kind: 'User', name: 'bench-cert-user', apiGroup: RBAC },
            { kind: 'User', name: 'bench-token-user', apiGroup: RBAC },
            { kind: 'ServiceAccount', name: 'bench-sa', namespace: NS },
          ],
        });
      }
      // The objects the gets read.
      await runLoad({ pool, concurrency: 4, total: 2_000, expectStatus: 201, next: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: roundConfigMap(objectName('seed', i), 'seed') }) });
    }
    const tokenRequest = await call(adminPool, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts/bench-sa/token`, {
      apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { audiences: [ISSUER], expirationSeconds: 3600 },
    });
    const saToken = (JSON.parse(tokenRequest.text) as { status: { token: string } }).status.token;
    const clients: Record<AuthMode, Client> = {
      open: { server: open, pool: openPool },
      masters: { server: secured, pool: secured.pool(s.concurrency, admin) },
      certificate: { server: secured, pool: secured.pool(s.concurrency, certUser) },
      token: { server: secured, pool: secured.pool(s.concurrency), headers: { authorization: `Bearer ${TOKEN}` } },
      serviceaccount: { server: secured, pool: secured.pool(s.concurrency), headers: { authorization: `Bearer ${saToken}` } },
    };
    // Each create round's objects go after it (unmeasured), so the stores stay alike in size.
    const cleanUp = async (c: Client, prefix: string) => {
      const pool = c.server === open ? openPool : adminPool;
      await call(pool, 'DELETE', `/api/v1/namespaces/${NS}/configmaps?labelSelector=round%3D${encodeURIComponent(prefix)}`);
    };
    const empty = <T>(): Record<AuthMode, T[]> => ({ open: [], masters: [], certificate: [], token: [], serviceaccount: [] });
    const f: AuthFigures = { settings: s, creates: empty(), gets: empty(), createCpuMs: empty(), getCpuMs: empty(), watch: undefined as unknown as AuthFigures['watch'] };
    log('auth: warm-up');
    for (const m of AUTH_MODES) {
      await loadRound(clients[m], 'creates', { ...s, createsPerRound: Math.min(1_000, s.createsPerRound) }, `warm-${m}`, 2_000);
      await cleanUp(clients[m], `warm-${m}`);
      await loadRound(clients[m], 'gets', { ...s, getMs: 2_000 }, '', 2_000);
    }
    for (let r = 0; r < s.rounds; r++) {
      // Rotated: round r starts with mode r, so each mode runs in each position alike.
      const order = AUTH_MODES.map((_, i) => AUTH_MODES[(i + r) % AUTH_MODES.length]!);
      for (const m of order) {
        const c = await loadRound(clients[m], 'creates', s, `r${r}-${m}`, 2_000);
        f.creates[m].push(c.result);
        f.createCpuMs[m].push(c.cpuMs);
        await cleanUp(clients[m], `r${r}-${m}`);
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

export interface AuthRatio {
  /** Median over rounds of (mode / open of the same round): the headline. */
  creates: number;
  gets: number;
  /** Median of the mode's rounds / median of open's. */
  createsOfMedians: number;
  getsOfMedians: number;
  /** Capacity by CPU per request: median open / median mode. */
  createCpu: number;
  getCpu: number;
}

/** Each secured mode against open: paired per-round ratios (the headline), ratios of medians, and CPU. */
export function authRatios(f: AuthFigures): Record<SecuredMode, AuthRatio> {
  const paired = (m: SecuredMode, k: 'creates' | 'gets') => median(f[k][m].map((r, i) => r.perSecond / f[k].open[i]!.perSecond));
  const per = (m: SecuredMode): AuthRatio => ({
    creates: paired(m, 'creates'),
    gets: paired(m, 'gets'),
    createsOfMedians: median(f.creates[m].map((r) => r.perSecond)) / median(f.creates.open.map((r) => r.perSecond)),
    getsOfMedians: median(f.gets[m].map((r) => r.perSecond)) / median(f.gets.open.map((r) => r.perSecond)),
    createCpu: median(f.createCpuMs.open) / median(f.createCpuMs[m]),
    getCpu: median(f.getCpuMs.open) / median(f.getCpuMs[m]),
  });
  return { masters: per('masters'), certificate: per('certificate'), token: per('token'), serviceaccount: per('serviceaccount') };
}
