/**
 * Starts the real `apiserver` binary (dist/src/cli/apiserver.js) as a child process on a free
 * loopback port with a fresh data and cert folder, waits for /readyz, and gives an HTTPS client
 * that trusts the server's self-signed certificate.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { type Answer as HttpResult, sendRequest } from './api-http.js';

export const ROOT = new URL('../../../', import.meta.url).pathname;
export const APISERVER_BIN = join(ROOT, 'dist', 'src', 'cli', 'apiserver.js');

/**
 * The environment a daemon's launcher sets (the `NAME=value` words of its `#!/usr/bin/env -S` line,
 * e.g. glibc's MALLOC_MMAP_THRESHOLD_): tests start `node <bin>` directly, so they apply it
 * themselves and run the daemon as the installed command would.
 */
export function launcherEnv(bin: string): Record<string, string> {
  let first = '';
  try {
    first = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  } catch {
    return {}; // not built (the spawn reports it)
  }
  const env: Record<string, string> = {};
  if (!first.startsWith('#!/usr/bin/env -S ')) return env;
  for (const word of first.slice('#!/usr/bin/env -S '.length).split(/\s+/)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
    if (!m) break;
    env[m[1]!] = m[2]!;
  }
  return env;
}

import { freePort } from './free-port.js';

export { freePort };

/** How long `stop()` waits for the process to exit before it kills it and fails. */
const STOP_WITHIN_MS = 120_000;

export type { Answer as HttpResult } from './api-http.js';

export interface ApiServerProcess {
  url: string;
  port: number;
  dataDir: string;
  certDir: string;
  caFile: string;
  proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  /** SIGTERM and wait for exit; resolves to the exit code (fails, after SIGKILL, if it is not gone within 120 s). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Remove the temporary folders (after stop). */
  cleanup(): void;
  agent: Agent;
}

export interface StartOptions {
  args?: string[];
  dataDir?: string;
  certDir?: string;
  env?: Record<string, string>;
  /** The port to listen on (default: a free one); a restart on the same data gives the old one so clients and daemons find it again. */
  port?: number;
  /** How long to wait for /readyz (default 60 s: a loaded 2-core machine can take long to start one). */
  readyTimeoutMs?: number;
  /**
   * The /readyz answer (asked without credentials) that means the server is up: default 200 "ok";
   * a server that refuses anonymous requests (--anonymous-auth=false, AlwaysDeny) answers 401 or 403.
   */
  readyStatus?: number;
  /**
   * Keep the TaintNodesByCondition admission plugin (default false): new nodes are created with the
   * not-ready NoSchedule taint that only the nodelifecycle controller lifts, so a test without that
   * controller would never see a pod scheduled. Off unless asked for (or the args choose the
   * plugins themselves with --disable-admission-plugins, or enable this one by name).
   */
  taintNodesByCondition?: boolean;
}

/** The admission flag that gives a cluster without the nodelifecycle controller schedulable nodes. */
/**
 * The test servers run without two admission plugins unless the test names them in
 * --enable/--disable-admission-plugins, as the established integration-test servers do:
 * - ServiceAccount: no serviceaccount controller runs beside them to make the `default` account a
 *   pod needs;
 * - TaintNodesByCondition (unless `taintNodesByCondition`): new nodes would keep the not-ready
 *   NoSchedule taint that only the nodelifecycle controller lifts, so nothing would be scheduled.
 * A test's own --disable-admission-plugins gets them added to it (one flag, not two).
 */
export function withTestAdmission(args: readonly string[], opts: { taintNodesByCondition?: boolean } = {}): string[] {
  const named = (plugin: string) => args.some((a) => /^--(enable|disable)-admission-plugins/.test(a) && a.includes(plugin));
  const off = [...(named('ServiceAccount') ? [] : ['ServiceAccount']), ...(opts.taintNodesByCondition || named('TaintNodesByCondition') ? [] : ['TaintNodesByCondition'])];
  if (off.length === 0) return [...args];
  const own = args.findIndex((a) => a.startsWith('--disable-admission-plugins='));
  if (own < 0) return [`--disable-admission-plugins=${off.join(',')}`, ...args];
  return args.map((a, i) => (i === own ? `${a},${off.join(',')}` : a));
}

export async function startApiServer(opts: StartOptions = {}): Promise<ApiServerProcess> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-data-'));
  const certDir = opts.certDir ?? mkdtempSync(join(tmpdir(), 'svc-certs-'));
  const args = [
    APISERVER_BIN,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    `--cert-dir=${certDir}`,
    ...withTestAdmission(opts.args ?? [], { taintNodesByCondition: opts.taintNodesByCondition === true }),
  ];
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...launcherEnv(APISERVER_BIN), ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `https://127.0.0.1:${port}`;
  const caFile = join(certDir, 'apiserver.crt');
  let agent: Agent | undefined;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`apiserver exited early (${proc.exitCode}):\n${out}`);
    try {
      agent ??= new Agent({ connect: { ca: readFileSync(caFile, 'utf8'), servername: 'localhost' }, keepAliveTimeout: 4000 });
      const r = await request(`${url}/readyz`, { dispatcher: agent });
      const t = await r.body.text();
      if (opts.readyStatus !== undefined ? r.statusCode === opts.readyStatus : r.statusCode === 200 && t === 'ok') break;
    } catch {
      // Not listening yet, or no certificate yet, or a certificate read half-written: read it
      // again next time rather than keep an agent that can never verify the server.
      void agent?.close().catch(() => undefined);
      agent = undefined;
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`apiserver not ready after ${opts.readyTimeoutMs ?? 60_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const a = agent!;
  return {
    url,
    port,
    dataDir,
    certDir,
    caFile,
    proc,
    agent: a,
    output: () => out,
    request: (method, path, body, headers = {}) => sendRequest(a, url, method, path, body, headers),
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      // Its graceful shutdown is bounded by the request timeout (60 s by default): a server still up
      // well after that fails the test instead of leaving the test process waiting for ever.
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), STOP_WITHIN_MS)));
      const code = await Promise.race([exited, hung]);
      clearTimeout(timer);
      if (code === 'hung') proc.kill('SIGKILL');
      await exited;
      await a.close().catch(() => {});
      if (code === 'hung') throw new Error(`apiserver still running ${STOP_WITHIN_MS / 1000} s after ${signal} (killed); its last output:\n${out.slice(-4000)}`);
      return code;
    },
    cleanup() {
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (!opts.certDir) rmSync(certDir, { recursive: true, force: true });
    },
  };
}
