/**
 * `svc up` as a test fixture: the whole control plane as a real process in a fresh folder, its
 * client configuration, and a client of ours on it (for checks the client under test does not make).
 */
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Connection } from '../../src/client/index.js';
import { freePort } from './apiserver.js';
import { kubectl, type ToolOptions } from './kubectl.js';
import { startSvc, type SvcProcess } from './svc-process.js';

export interface SvcUp {
  dir: string;
  port: number;
  svc: SvcProcess;
  /** The client configuration `svc up` writes (a kubeconfig with the admin's client certificate). */
  kubeconfig: string;
  api: Connection;
  /** Writes `text` to `<dir>/<name>` and returns its path (a manifest for `kubectl -f`). */
  manifest(name: string, text: string): string;
  /** Runs kubectl (1.31 unless `opts.bin`) against this cluster; fails the test unless it exits 0; its stdout. */
  kubectlOk(args: string[], opts?: ToolOptions): Promise<string>;
  /** Starts `svc up` again on the same port, folder and flags (once the process has exited, e.g. killed by the test); resolves when it is ready. */
  restart(): Promise<void>;
  /** Closes the client, stops the process, removes the folder. */
  stop(): Promise<void>;
}

/** Starts `svc up` on a free port (`--nodes=3` and short simulated delays unless `args` say otherwise). */
export async function startSvcUp(prefix: string, args: string[] = ['--nodes=3', '--image-pull-delay=20ms', '--container-start-delay=10ms']): Promise<SvcUp> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const port = await freePort();
  const launch = async (): Promise<SvcProcess> => {
    // svc up's own defaults: loopback only, certificates in <data-dir>/certs, an admin client certificate.
    const p = startSvc(['up', `--secure-port=${port}`, `--data-dir=${join(dir, 'data')}`, ...args]);
    // 60 s, as for a lone apiserver (helpers/apiserver.ts): a loaded 2-core machine took longer than 30 s, and svc up starts more.
    await p.waitFor((l) => l.msg === 'ready', 60_000, 'ready');
    return p;
  };
  const svc = await launch();
  const kubeconfig = join(dir, 'data', 'admin.svcconfig');
  const api = connect({ svcconfig: kubeconfig, qps: 0, contentType: 'application/json' });
  const up: SvcUp = {
    dir,
    port,
    svc,
    kubeconfig,
    api,
    manifest(name, text) {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    },
    async kubectlOk(args, opts = {}) {
      const r = await kubectl(kubeconfig, args, 90_000, opts);
      assert.is(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    async restart() {
      if (up.svc.proc.exitCode === null && up.svc.proc.signalCode === null) throw new Error('svc up is still running: stop or kill it before restart()');
      up.svc = await launch();
    },
    async stop() {
      await api.close();
      await up.svc.stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return up;
}
