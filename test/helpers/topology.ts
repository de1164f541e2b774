/**
 * The control plane as an operator runs it, for end-to-end tests: `apiserver`, two `scheduler`s,
 * two `controller-manager`s and `svc nodes`, each its own process over HTTPS with its default
 * flags. Only addresses, ports, folders and the client configuration are given: every daemon reads
 * the admin client configuration the `apiserver` wrote beside its certificate (the scheduler through
 * its configuration file's `clientConnection.svcconfig`, the current spelling; the others through
 * `--svcconfig`). The defaults therefore hold: Protobuf client, leader election on with the spec's
 * 15 s / 10 s / 2 s, every default controller, 3 simulated nodes. The schedulers' deprecated plain
 * port is turned off (`--port=0`): two schedulers on one host cannot both have 10251.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '../../src/api/generated/kinds.js';
import { connect, type Connection } from '../../src/client/connect.js';
import { resources } from '../../src/client/typed.js';
import { freePort, startApiServer, type ApiServerProcess } from './apiserver.js';
import type { RunningEtcd } from './etcd.js';
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
  /** The admin client configuration the apiserver wrote. */
  adminConfig: string;
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
export async function adminConfigOf(server: ApiServerProcess, timeoutMs = 10_000): Promise<string> {
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

/** Starts the whole topology; with `etcd`, the apiserver stores in it (`--kvstore-servers`). */
export async function startTopology(opts: { etcd?: RunningEtcd } = {}): Promise<Topology> {
  const started: SvcProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'svc-topology-'));
  const server = await startApiServer({ args: opts.etcd ? [`--kvstore-servers=${opts.etcd.endpoint}`] : [] });
  try {
    const adminConfig = await adminConfigOf(server);
    const schedulerConfig = join(dir, 'scheduler.yaml');
    writeFileSync(
      schedulerConfig,
      ['apiVersion: scheduler.config.svc.io/v1beta1', 'kind: SchedulerConfiguration', 'clientConnection:', `  svcconfig: ${adminConfig}`, ''].join('\n'),
    );
    const replica = async (bin: string, args: (port: number) => string[], started$: string): Promise<Replica> => {
      const port = await freePort();
      const p = startExecutable(bin, args(port));
      started.push(p);
      const line = await p.waitFor((l) => l.msg === started$, 60_000, started$);
      return { process: p, identity: String((line['leaderElection'] as { identity?: string } | undefined)?.identity ?? ''), port };
    };
    const scheduler = () =>
      replica(SCHEDULER_BIN, (port) => [`--config=${schedulerConfig}`, '--bind-address=127.0.0.1', `--secure-port=${port}`, '--port=0'], 'scheduler started');
    const manager = () =>
      replica(CONTROLLER_MANAGER_BIN, (port) => [`--svcconfig=${adminConfig}`, '--bind-address=127.0.0.1', `--secure-port=${port}`], 'controller manager started');
    const nodes = startSvc(['nodes', `--svcconfig=${adminConfig}`]);
    started.push(nodes);
    const [s1, s2, m1, m2] = await Promise.all([scheduler(), scheduler(), manager(), manager()]);
    const api = connect({ svcconfig: adminConfig });
    const schedulers = [s1!, s2!];
    const managers = [m1!, m2!];
    const exited = (r: Replica) => r.process.proc.exitCode !== null || r.process.proc.signalCode !== null;
    return {
      server,
      adminConfig,
      api,
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
        const lease = await api.client.get<Lease>(resources.leases, 'svc-system', lock).catch(() => undefined);
        const holder = lease?.spec?.holderIdentity;
        return holder ? replicas.find((r) => r.identity === holder) : undefined;
      },
      async stop() {
        await Promise.all(started.map((p) => p.stop('SIGKILL')));
        await api.close();
        await server.stop();
        server.cleanup();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(started.map((p) => p.stop('SIGKILL')));
    await server.stop('SIGKILL');
    server.cleanup();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
