/**
 * Child processes the benchmark measures: the real `apiserver` binary and the bare Node.js HTTPS
 * server that gives the ceiling. Servers always run in their own process so the load client (in the
 * bench process) and the server do not share an event loop, as with any real client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Pool, request } from 'undici';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const APISERVER_BIN = join(ROOT, 'dist', 'src', 'cli', 'apiserver.js');
export const BARE_SERVER_BIN = join(ROOT, 'dist', 'bench', 'bare-server.js');

/** The certificate names the generated serving certificate carries; we connect by IP, verify by name. */
const SERVERNAME = 'localhost';

/** PEM of a client certificate and its key, shown in the TLS handshake. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

export interface ServerProcess {
  /** `https://127.0.0.1:<port>` */
  url: string;
  pid: number;
  proc: ChildProcess;
  /** PEM of the CA (the self-signed chain) that the server's certificate verifies against. */
  ca: string;
  /** Everything the process wrote to stdout and stderr so far (capped at the last 64 KiB). */
  output(): string;
  /** A keep-alive pool of `connections` HTTP/1.1 connections that trusts `ca` (and shows `client`'s certificate when given). */
  pool(connections: number, client?: ClientCertificate): Pool;
  /** Resident set size (VmRSS) of the server process, in bytes. */
  rssBytes(): number;
  /** Peak resident set size (VmHWM) of the server process, in bytes. */
  peakRssBytes(): number;
  /** SIGTERM (a graceful exit, which is when `--cpu-prof` writes its file) and wait for exit. */
  stop(): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Reads one `Vm*:   123 kB` line of /proc/<pid>/status, in bytes. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/**
 * CPU time (user + system) the process has used, in seconds, from /proc/<pid>/stat (clock ticks of
 * 1/100 s on Linux). Unlike throughput, it hardly moves when other processes load the machine.
 */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state (field 3); utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface ApiServerStartOptions {
  dataDir: string;
  certDir: string;
  /** When set, node runs with `--cpu-prof --cpu-prof-dir=<profileDir>`. */
  profileDir?: string;
  /** More apiserver flags. */
  args?: string[];
  /** More node flags (before the script), e.g. `--trace-gc`. */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}

export async function startApiServer(opts: ApiServerStartOptions): Promise<ServerProcess> {
  const port = await freePort();
  // The young generation the `apiserver` launcher gives Node (src/cli/apiserver.ts's first line).
  const nodeArgs = ['--max-semi-space-size=64', ...(opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : []), ...(opts.nodeArgs ?? [])];
  const args = [
    ...nodeArgs,
    APISERVER_BIN,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    `--data-dir=${opts.dataDir}`,
    `--cert-dir=${opts.certDir}`,
    // No serviceaccount controller runs beside the measured server to make the `default` account
    // the ServiceAccount admission plugin requires of every pod (unless a measurement names it).
    ...((opts.args ?? []).some((a) => a.includes('admission-plugins') && a.includes('ServiceAccount')) ? [] : ['--disable-admission-plugins=ServiceAccount']),
    ...(opts.args ?? []),
  ];
  const caFile = join(opts.certDir, 'apiserver.crt');
  return spawnAndWait(args, `https://127.0.0.1:${port}`, '/readyz', () => readFileSync(caFile, 'utf8'), opts.readyTimeoutMs ?? 60_000);
}

/** Writes a client configuration for `api` (its CA from `certDir`) to `<dir>/svcconfig.yaml`; returns its path. */
export function writeSvcconfigFor(api: ServerProcess, certDir: string, dir: string): string {
  const file = join(dir, 'svcconfig.yaml');
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config', 'current-context: bench',
    `clusters: [{ name: bench, cluster: { server: "${api.url}", certificate-authority: "${join(certDir, 'apiserver.crt')}" } }]`,
    'users: [{ name: bench, user: {} }]', 'contexts: [{ name: bench, context: { cluster: bench, user: bench } }]', '',
  ].join('\n'));
  return file;
}

/** The bare server, serving with the apiserver's own certificate and key so TLS costs the same. */
export async function startBareServer(certFile: string, keyFile: string): Promise<ServerProcess> {
  const port = await freePort();
  const ca = readFileSync(certFile, 'utf8');
  return spawnAndWait([BARE_SERVER_BIN, String(port), certFile, keyFile], `https://127.0.0.1:${port}`, '/ready', () => ca, 15_000);
}

/** A temporary folder under the OS temp dir. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

async function spawnAndWait(
  args: string[],
  url: string,
  readyPath: string,
  readCa: () => string,
  readyTimeoutMs: number,
): Promise<ServerProcess> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 65_536) out = out.slice(-65_536);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const pools: Pool[] = [];
  let ca: string | undefined;
  let probe: Agent | undefined;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${args.join(' ')} exited early (${proc.exitCode}):\n${out}`);
    try {
      ca ??= readCa();
      probe ??= new Agent({ connect: { ca, servername: SERVERNAME } });
      const r = await request(`${url}${readyPath}`, { dispatcher: probe });
      const text = await r.body.text();
      if (r.statusCode === 200 && text.trim() === 'ok') break;
    } catch {
      // not listening yet, or no certificate written yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      await probe?.destroy();
      throw new Error(`${args.join(' ')} not ready after ${readyTimeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await probe?.close();
  const trusted = ca!;
  const pid = proc.pid!;
  return {
    url,
    pid,
    proc,
    ca: trusted,
    output: () => out,
    pool(connections, client) {
      const p = new Pool(url, {
        connections,
        pipelining: 1,
        keepAliveTimeout: 60_000,
        keepAliveMaxTimeout: 600_000,
        // Watches and big lists can take long; never cut them off from the client side.
        headersTimeout: 0,
        bodyTimeout: 0,
        // A loaded machine can take long over 32 TLS handshakes at once; the default 10 s fails the run.
        connect: { ca: trusted, servername: SERVERNAME, timeout: 60_000, ...(client ? { cert: client.cert, key: client.key } : {}) },
      });
      pools.push(p);
      return p;
    },
    rssBytes: () => procStatusBytes(pid, 'VmRSS'),
    peakRssBytes: () => procStatusBytes(pid, 'VmHWM'),
    async stop() {
      await Promise.all(pools.map((p) => p.destroy().catch(() => {})));
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
