// The README's quick start as written: `npm start` (its script from package.json, run in a fresh
// folder laid out like the repository) prints the ready block with the export line, and the
// README's kubectl block then works with the real kubectl, pods running on the simulated nodes.
// `npm start -- --reset` starts empty, and data otherwise survives a restart.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/apiserver.js';
// The newest kubectl: the one a new user most likely has (1.31 runs the command tests too).
import { KUBECTL_V35 as KUBECTL } from '../helpers/kubectl.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

interface Started {
  stdout(): string;
  stop(): Promise<number | null>;
}

/** `npm start [-- extra]` as npm runs it: the script through a shell, in `cwd`. */
function npmStart(cwd: string, extra = ''): Started {
  const child = spawn('/bin/sh', ['-c', `exec ${START} ${extra}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    stdout: () => out + err,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function ready(s: Started, timeoutMs = 30_000): Promise<string> {
  for (const deadline = Date.now() + timeoutMs; !/^ready$/m.test(s.stdout()); ) {
    if (Date.now() > deadline) throw new Error(`npm start printed no ready line:\n${s.stdout().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return s.stdout();
}

/** The README's kubectl block, run line by line by a shell in `cwd` with the real kubectl first on PATH. */
function runKubectlBlock(cwd: string): string {
  const block = /```sh\n(export KUBECONFIG[\s\S]*?)```/.exec(README)?.[1];
  assert.ok(block, 'the README has the kubectl block');
  const env = { ...process.env, PATH: `${dirname(KUBECTL)}:${process.env['PATH'] ?? ''}`, HOME: cwd, KUBECACHEDIR: join(cwd, '.kube-cache') };
  return execFileSync('/bin/bash', ['-euc', block!], { cwd, env, encoding: 'utf8', timeout: 60_000 });
}

test('npm start, then the README kubectl block, as written', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'svc-readme-'));
  for (const f of ['dist', 'node_modules', 'package.json']) symlinkSync(join(ROOT, f), join(cwd, f));
  let s = npmStart(cwd);
  try {
    const printed = await ready(s);
    assert.match(printed, /svc is up: the API server, the scheduler, \d+ built-in controllers, 3 simulated nodes/);
    assert.match(printed, /^ {2}API {8}https:\/\/127\.0\.0\.1:6443$/m);
    assert.match(printed, new RegExp(`^  kubectl    export KUBECONFIG=${join(cwd, 'data', 'admin.svcconfig').replace(/[.]/g, '\\.')}$`, 'm'));
    assert.match(printed, /^ {2}machines {3}https:\/\/127\.0\.0\.1:6443\/debug\/machines\/ui$/m);
    const out = runKubectlBlock(cwd);
    assert.match(out, /sim-node-0/);
    assert.match(out, /pod\/web created/);
    assert.match(out, /pod\/web condition met/);
    assert.match(out, /configmap\/demo2 created/);
    assert.is(await s.stop(), 0, s.stdout().slice(-2000));

    // Data survives a restart; --reset starts empty.
    s = npmStart(cwd);
    await ready(s);
    const env = { ...process.env, KUBECONFIG: join(cwd, 'data', 'admin.svcconfig'), HOME: cwd };
    assert.match(execFileSync(KUBECTL, ['get', 'configmap', 'demo2', '-o', 'name'], { env, encoding: 'utf8' }), /configmap\/demo2/);
    assert.is(await s.stop(), 0);
    s = npmStart(cwd, '--reset');
    await ready(s);
    const after = spawnSyncStatus(KUBECTL, ['get', 'configmap', 'demo2'], env);
    assert.match(after, /NotFound|not found/);
  } finally {
    await s.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
});

function spawnSyncStatus(bin: string, args: string[], env: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(bin, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
}

test.run();
