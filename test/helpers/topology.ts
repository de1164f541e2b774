/**
 * The control plane as an operator runs it, for end-to-end tests: `apiserver`, two `scheduler`s,
 * two `controller-manager`s and `svc nodes`, each its own process over HTTPS with its default
 * flags. Only addresses, ports, folders and the client configuration are given: every daemon reads
 * the admin client configuration the `apiserver` wrote beside its certificate (the scheduler through
 * its configuration file's `clientConnection.svcconfig`, the current spelling; the others through
 * `--svcconfig`). The defaults therefore hold: Protobuf client, leader election on with the spec's
 * 15 s / 10 s / 2 s, every default controller, 3 simulated nodes. The schedulers' deprecated plain
 * port is turned off (`--port=0`): two schedulers on one host cannot both have 10251.
 *
 * `secure: true` is the same topology as a secure cluster runs it: the apiserver with
 * `--authorization-mode=Node,RBAC --anonymous-auth=false`, client certificates of a CA made here,
 * service-account signing and NodeRestriction; every daemon with its OWN client certificate (the
 * established users, so the default policy's roles apply): the schedulers as
 * `system:svc-scheduler`, the controller managers as `system:svc-controller-manager` with
 * `--use-service-account-credentials`, `svc nodes` as `system:svc-nodes` (in `system:nodes`) with
 * `--node-identity=impersonate`. The test's own client and kubectl use a `system:masters`
 * certificate. The one grant the default policy does not hold, the fleet's impersonation of
 * `system:node:*` / `system:nodes`, is made with that admin certificate before `svc nodes` starts,
 * as an operator does (NODE_IMPERSONATOR_ROLE; docs/security.md says why it is not a default).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '../../src/api/generated/kinds.js';
import { connect, type Connection } from '../../src/client/connect.js';
import { resources } from '../../src/client/typed.js';
import { freePort, startApiServer, type ApiServerProcess } from './apiserver.js';
import { writeSvcconfig } from './client.js';
import type { RunningEtcd } from './etcd.js';
import { createCA, type CertificateAuthority } from './pki.js';
import { CONTROLLER_MANAGER_BIN, SCHEDULER_BIN, startExecutable, startSvc, type SvcProcess } from './svc-process.js';

/** One replicated daemon: its process and the leader-election identity it logged. */
export interface Replica {
  process: SvcProcess;
  identity: string;
  /** Its secure port (/healthz, /metrics). */
  port: number;
}

export interface Topology {
  server: ApiServerProcess;
  /** The admin client configuration: the one the apiserver wrote, or (secure) a `system:masters` certificate's. */
  adminConfig: string;
  /** Secure: each daemon's own client configuration, and the CA that issued them (to issue more). */
  identities?: { ca: CertificateAuthority; scheduler: string; controllerManager: string; nodes: string };
  /** The project's client over that configuration, with its defaults (Protobuf). */
  api: Connection;
  schedulers: Replica[];
  managers: Replica[];
  nodes: SvcProcess;
  /** Every daemon process started (for failure messages and clean-up). */
  processes(): SvcProcess[];
  /**
   * Starts again, in place in `schedulers`/`managers`, every replica that exited, as the supervisor
   * an operator runs them under would: a leader that cannot renew its lease in time exits 1, as
   * established, and on a loaded machine that happens. Resolves to what was restarted.
   */
  restartExited(): Promise<string[]>;
  /** The replica whose identity holds the Lease `svc-system/<lock>` now, if one does. */
  leaderOf(replicas: readonly Replica[], lock: string): Promise<Replica | undefined>;
  stop(): Promise<void>;
}

/** The stdout line by which the apiserver names its admin client configuration. */
const ADMIN_CONFIG_LINE = /admin client configuration: (\S+)/;

/** The path of the admin client configuration `server` wrote (it prints it once it is written). */
export async function adminConfigOf(server: ApiServerProcess, timeoutMs = 60_000): Promise<string> {
  return (await waitForOutput(server, ADMIN_CONFIG_LINE, timeoutMs))[1]!;
}

async function waitForOutput(server: ApiServerProcess, re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(server.output());
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`the apiserver never printed ${re}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The users the secure topology's daemons are, as established (the default policy binds them). */
export const SECURE_USERS: Record<'admin' | 'scheduler' | 'controllerManager' | 'nodes', { cn: string; orgs?: string[] }> = {
  admin: { cn: 'svc-admin', orgs: ['system:masters'] },
  scheduler: { cn: 'system:svc-scheduler' },
  controllerManager: { cn: 'system:svc-controller-manager' },
  nodes: { cn: 'system:svc-nodes', orgs: ['system:nodes'] },
};

/**
 * What the operator grants `svc nodes`' own credential for `--node-identity=impersonate`: to
 * impersonate the node users and their group. RBAC cannot name "every `system:node:*`", so the rule
 * names no user: this is a grant to impersonate anyone but `system:masters` members' groups, which
 * is why it is the operator's decision and not in the default policy (docs/security.md).
 */
export const NODE_IMPERSONATOR_ROLE = 'svc-nodes:impersonate-nodes';

/** The apiserver flags of the secure topology (Node,RBAC, no anonymous, the CA, token signing, NodeRestriction). */
function secureApiServerArgs(dir: string, ca: CertificateAuthority): string[] {
  const key = join(dir, 'sa.key');
  writeFileSync(key, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return [
    '--authorization-mode=Node,RBAC',
    '--anonymous-auth=false',
    `--client-ca-file=${ca.certFile}`,
    '--service-account-issuer=https://svc.topology.test',
    `--service-account-signing-key-file=${key}`,
    `--service-account-key-file=${key}`,
    '--enable-admission-plugins=NodeRestriction',
  ];
}

/**
 * Starts the whole topology; with `etcd`, the apiserver stores in it (`--kvstore-servers`); with
 * `secure`, under Node,RBAC with an identity per daemon (see the top of this file).
 */
export async function startTopology(opts: { etcd?: RunningEtcd; secure?: boolean } = {}): Promise<Topology> {
  const started: SvcProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'svc-topology-'));
  const ca = opts.secure ? await createCA('topology-ca', dir) : undefined;
  const server = await startApiServer({
    args: [...(opts.etcd ? [`--kvstore-servers=${opts.etcd.endpoint}`] : []), ...(ca ? secureApiServerArgs(dir, ca) : [])],
    ...(ca ? { readyStatus: 401 } : {}),
  });
  let api: Connection | undefined;
  try {
    const written = await adminConfigOf(server);
    const issue = async (name: keyof typeof SECURE_USERS) =>
      writeSvcconfig(server, { name: `${name}.svcconfig`, user: await ca!.issue(SECURE_USERS[name], name) });
    const identities = ca
      ? { ca, scheduler: await issue('scheduler'), controllerManager: await issue('controllerManager'), nodes: await issue('nodes') }
      : undefined;
    const adminConfig = ca ? await issue('admin') : written;
    const admin = connect({ svcconfig: adminConfig });
    api = admin;
    if (identities) await grantNodeImpersonation(admin);
    const schedulerConfig = join(dir, 'scheduler.yaml');
    writeFileSync(
      schedulerConfig,
      ['apiVersion: scheduler.config.svc.io/v1beta1', 'kind: SchedulerConfiguration', 'clientConnection:', `  svcconfig: ${identities?.scheduler ?? adminConfig}`, ''].join('\n'),
    );
    const replica = async (bin: string, args: (port: number) => string[], started$: string): Promise<Replica> => {
      const port = await freePort();
      const p = startExecutable(bin, args(port));
      started.push(p);
      const line = await p.waitFor((l) => l.msg === started$, 60_000, started$);
      return { process: p, identity: String((line['leaderElection'] as { identity?: string } | undefined)?.identity ?? ''), port };
    };
    // Secure: the daemon's own port checks its callers as docs/security.md shows, with the daemon's
    // own credential for the TokenReviews and SubjectAccessReviews (its default role allows them).
    const delegated = (svcconfig: string | undefined) =>
      svcconfig ? [`--authentication-svcconfig=${svcconfig}`, `--authorization-svcconfig=${svcconfig}`, `--client-ca-file=${ca!.certFile}`] : [];
    const scheduler = () =>
      replica(
        SCHEDULER_BIN,
        (port) => [`--config=${schedulerConfig}`, '--bind-address=127.0.0.1', `--secure-port=${port}`, '--port=0', ...delegated(identities?.scheduler)],
        'scheduler started',
      );
    const manager = () =>
      replica(
        CONTROLLER_MANAGER_BIN,
        (port) => [
          `--svcconfig=${identities?.controllerManager ?? adminConfig}`,
          '--bind-address=127.0.0.1',
          `--secure-port=${port}`,
          ...(identities ? ['--use-service-account-credentials'] : []),
          ...delegated(identities?.controllerManager),
        ],
        'controller manager started',
      );
    const nodes = startSvc(['nodes', ...(identities ? [`--svcconfig=${identities.nodes}`, '--node-identity=impersonate'] : [`--svcconfig=${adminConfig}`])]);
    started.push(nodes);
    const [s1, s2, m1, m2] = await Promise.all([scheduler(), scheduler(), manager(), manager()]);
    const schedulers = [s1!, s2!];
    const managers = [m1!, m2!];
    const exited = (r: Replica) => r.process.proc.exitCode !== null || r.process.proc.signalCode !== null;
    return {
      server,
      adminConfig,
      ...(identities ? { identities } : {}),
      api: admin,
      schedulers,
      managers,
      nodes,
      processes: () => [...started],
      async restartExited() {
        const out: string[] = [];
        for (const [list, start, what] of [[schedulers, scheduler, 'scheduler'], [managers, manager, 'controller-manager']] as const) {
          for (let i = 0; i < list.length; i++) {
            if (!exited(list[i]!)) continue;
            out.push(`${what} pid ${list[i]!.process.pid} (exit ${list[i]!.process.proc.exitCode ?? list[i]!.process.proc.signalCode})`);
            list[i] = await start();
          }
        }
        return out;
      },
      async leaderOf(replicas, lock) {
        const lease = await admin.client.get<Lease>(resources.leases, 'svc-system', lock).catch(() => undefined);
        const holder = lease?.spec?.holderIdentity;
        return holder ? replicas.find((r) => r.identity === holder) : undefined;
      },
      async stop() {
        await Promise.all(started.map((p) => p.stop('SIGKILL')));
        await admin.close();
        await server.stop();
        server.cleanup();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(started.map((p) => p.stop('SIGKILL')));
    await api?.close().catch(() => undefined);
    await server.stop('SIGKILL');
    server.cleanup();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The operator's grant for `svc nodes --node-identity=impersonate` (NODE_IMPERSONATOR_ROLE), bound to the fleet's user. */
export async function grantNodeImpersonation(api: Connection): Promise<void> {
  await api.client.create(resources.clusterroles, '', {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRole',
    metadata: { name: NODE_IMPERSONATOR_ROLE },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['system:nodes'] },
    ],
  });
  await api.client.create(resources.clusterrolebindings, '', {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: NODE_IMPERSONATOR_ROLE },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: NODE_IMPERSONATOR_ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.svc.io', kind: 'User', name: SECURE_USERS.nodes.cn }],
  });
}
