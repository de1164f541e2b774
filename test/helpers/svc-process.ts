/**
 * Starts the real `svc` executable (dist/src/cli/svc.js) as a child process, keeps its pino log
 * lines (JSON on standard error) with the time each arrived, and waits for lines or for its exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { launcherEnv, ROOT } from './apiserver.js';

export const SVC_BIN = join(ROOT, 'dist', 'src', 'cli', 'svc.js');
/** The compiled fixture module with the `configmap-echo` controller. */
export const ECHO_MODULE = join(ROOT, 'dist', 'test', 'fixtures', 'echo-controller.js');

export interface LogLine {
  msg?: string;
  /** When the test process received the line (ms since epoch). */
  receivedAt: number;
  [key: string]: unknown;
}

export interface SvcProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly lines: LogLine[];
  /** Everything written to stdout and stderr (for failure messages). */
  output(): string;
  /** Resolves with the first line (already seen or coming) matching `pred`. */
  waitFor(pred: (l: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The compiled `scheduler` executable. */
export const SCHEDULER_BIN = join(ROOT, 'dist', 'src', 'cli', 'scheduler.js');
/** The compiled `controller-manager` executable. */
export const CONTROLLER_MANAGER_BIN = join(ROOT, 'dist', 'src', 'cli', 'controller-manager.js');
/** The `cloud-controller-manager` executable. */
export const CLOUD_CONTROLLER_MANAGER_BIN = join(ROOT, 'dist', 'src', 'cli', 'cloud-controller-manager.js');

export function startSvc(args: string[], env: Record<string, string> = {}): SvcProcess {
  return startExecutable(SVC_BIN, args, env);
}

/** Any of our executables (`SVC_BIN`, `SCHEDULER_BIN`) as a child process, its log lines kept. */
export function startExecutable(bin: string, args: string[], env: Record<string, string> = {}): SvcProcess {
  const proc = spawn(process.execPath, [bin, ...args], { cwd: ROOT, env: { ...launcherEnv(bin), ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let partial = '';
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    const text = d.toString();
    out += text;
    partial += text;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) {
      if (!p.startsWith('{')) continue;
      try {
        lines.push({ ...(JSON.parse(p) as Record<string, unknown>), receivedAt: Date.now() });
      } catch {
        // not a log line
      }
    }
    for (const w of waiters) w();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  // The last lines may still be in the pipes at 'exit': wait for 'close' too, but not for ever (a
  // child of the process that inherited them could hold them open).
  let ended = false;
  const exited = new Promise<number | null>((r) =>
    proc.once('exit', (code) => {
      const timer = setTimeout(() => r(code), 2_000);
      // 'close' always follows 'exit' (at once if the pipes had already ended).
      proc.once('close', () => {
        clearTimeout(timer);
        r(code);
      });
    }),
  );
  void exited.then(() => {
    ended = true;
    for (const w of waiters) w();
  });
  return {
    proc,
    pid: proc.pid!,
    lines,
    output: () => out,
    exited,
    waitFor(pred, timeoutMs = 10_000, what = 'a log line') {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(pred);
          if (hit) {
            done();
            resolve(hit);
          } else if (ended) {
            done();
            reject(new Error(`svc exited (${proc.exitCode ?? proc.signalCode}) before ${what}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${what} after ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
