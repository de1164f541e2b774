/**
 * The controller-authoring benchmark (BENCH_ONLY=backup): the guide's ConfigMap backup controller
 * (docs/examples/backup-controller.ts) hosted by `svc run` as its own process against `svc up`,
 * as a user runs it. 2,000 labelled ConfigMaps exist first; the time is from starting `svc run`
 * to the 2,000th backup seen, with the client settings the guide documents and with the defaults.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, resources } from '../src/client/index.js';
import { freePort, ROOT } from './server-process.js';

const SVC = join(ROOT, 'dist', 'src', 'cli', 'svc.js');
const EXAMPLE = join(ROOT, 'dist', 'docs', 'examples', 'backup-controller.js');

export interface BackupRun {
  label: string;
  flags: string[];
  seconds: number;
  backups: number;
}

export interface BackupFigures {
  sources: number;
  runs: BackupRun[];
}

function started(child: ChildProcess, line: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${line} within ${timeoutMs} ms:\n${out.slice(-2000)}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (line.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function measureBackup(sources: number, settings: { label: string; flags: string[] }[], log: (m: string) => void): Promise<BackupFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-backup-'));
  const port = await freePort();
  const up = spawn(process.execPath, [SVC, 'up', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, `--cert-dir=${join(dir, 'data', 'certs')}`, '--nodes=0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const svcconfig = join(dir, 'data', 'admin.svcconfig');
  const runs: BackupRun[] = [];
  try {
    await started(up, /^ready$/m, 60_000);
    const api = connect({ svcconfig, qps: 0, contentType: 'application/json' });
    try {
      await api.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'backups' } });
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < sources) {
            const i = next++;
            await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `src-${i}`, labels: { replicate: 'true' } }, data: { index: String(i), payload: 'x'.repeat(64) } });
          }
        }),
      );
      log(`backup: ${sources} sources created`);
      for (const s of settings) {
        await api.client.deleteCollection(resources.configmaps, 'backups');
        while ((await api.client.list(resources.configmaps, { namespace: 'backups' })).items.length > 0) await new Promise((r) => setTimeout(r, 200));
        const t0 = performance.now();
        const runner = spawn(process.execPath, [SVC, 'run', `--svcconfig=${svcconfig}`, '--secure-port=0', '--bind-address=127.0.0.1', ...s.flags, EXAMPLE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let backups = 0;
        try {
          for (const deadline = t0 + 600_000; performance.now() < deadline; ) {
            backups = (await api.client.list(resources.configmaps, { namespace: 'backups' })).items.length;
            if (backups >= sources) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        } finally {
          await stop(runner);
        }
        const seconds = Math.round((performance.now() - t0) / 100) / 10;
        runs.push({ label: s.label, flags: s.flags, seconds, backups });
        log(`backup: ${s.label} (${s.flags.join(' ') || 'defaults'}): ${backups} backups in ${seconds} s`);
      }
    } finally {
      await api.close();
    }
  } finally {
    await stop(up);
    rmSync(dir, { recursive: true, force: true });
  }
  return { sources, runs };
}
