/**
 * Starts a real, single-member etcd (the Debian `etcd-server` binary) for tests: free loopback
 * ports, a temporary data directory, ready when /health says so. Tests that need etcd FAIL when the
 * binary is missing; they never skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningEtcd {
  /** Client URL, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  dataDir: string;
  /** The process id (tests that simulate an outage stop and restart it). */
  pid: number;
  /** Kill the process (SIGKILL) without deleting the data; `restart()` brings it back on the same ports. */
  kill(): Promise<void>;
  restart(): Promise<void>;
  /** Kill etcd and delete its data directory. */
  stop(): Promise<void>;
}

const CANDIDATES = [process.env.ETCD_BIN, '/usr/bin/etcd', '/usr/local/bin/etcd'].filter((p): p is string => !!p);

export function etcdBinary(): string {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error('etcd not found: apt-get install etcd-server');
  return found;
}

/** `3.4.23` etc.; flags below work on 3.4 and 3.5. */
export function etcdVersion(bin = etcdBinary()): string {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8', env: etcdEnv() });
  return /etcd Version:\s*(\S+)/.exec(out.stdout ?? '')?.[1] ?? 'unknown';
}

function etcdEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // etcd refuses to start on architectures other than amd64/ppc64le/s390x unless told to.
  if (process.arch === 'arm64') env.ETCD_UNSUPPORTED_ARCH = 'arm64';
  return env;
}

import { freePort } from './free-port.js';

export { freePort };

async function waitHealthy(endpoint: string, child: ChildProcess, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`etcd exited (${child.exitCode ?? child.signalCode}) before becoming healthy:\n${output().slice(-3000)}`);
    }
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (res.ok && body.health === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`etcd at ${endpoint} not healthy after ${timeoutMs} ms:\n${output().slice(-3000)}`);
}

export interface StartEtcdOptions {
  /** Passed as --experimental-watch-progress-notify-interval (default: etcd's own, 10m). */
  progressNotifyInterval?: string;
  extraArgs?: string[];
}

export async function startEtcd(opts: StartEtcdOptions = {}): Promise<RunningEtcd> {
  const bin = etcdBinary();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-etcd-'));
  const clientPort = await freePort();
  let peerPort = await freePort();
  while (peerPort === clientPort) peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const name = `svc-test-${clientPort}`;
  const args = [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${name}=${peer}`,
    `--initial-cluster-state=new`,
    '--logger=zap',
    '--log-level=warn',
    ...(opts.progressNotifyInterval ? [`--experimental-watch-progress-notify-interval=${opts.progressNotifyInterval}`] : []),
    ...(opts.extraArgs ?? []),
  ];

  let child!: ChildProcess;
  let output = '';
  const launch = async (): Promise<void> => {
    output = '';
    child = spawn(bin, args, { env: etcdEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // Never keep the test process alive: a suite without an explicit stop() still exits, and the
    // 'exit' hook below kills etcd and removes its data.
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    try {
      await waitHealthy(endpoint, child, () => output);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  };
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.ref(); // keep the loop alive until the exit is seen
    child.kill('SIGKILL');
    await exited;
  };

  try {
    await launch();
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const killOnExit = (): void => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.on('exit', killOnExit);

  return {
    endpoint,
    dataDir,
    get pid() {
      return child.pid ?? -1;
    },
    kill,
    restart: launch,
    async stop() {
      await kill();
      process.off('exit', killOnExit);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
