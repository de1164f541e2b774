import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const binary = fileURLToPath(new URL('../../src/cli/apiserver.js', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [binary, ...args], { encoding: 'utf8', timeout: 30_000 });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('--version prints svc v<version> and exits 0', () => {
  const r = run(['--version']);
  assert.is(r.status, 0);
  assert.is(r.stdout, 'svc v0.1.0\n');
});

test('an unknown flag exits 1 with a message naming it', () => {
  const r = run(['--bogus-flag']);
  assert.is(r.status, 1);
  assert.match(r.stderr, /unknown option '--bogus-flag'/);
  assert.is(r.stdout, '');
});

test('--help prints the API server flags and exits 0', () => {
  const r = run(['--help']);
  assert.is(r.status, 0);
  for (const f of ['--secure-port', '--data-dir', '--kvstore-servers', '--audit-webhook-batch-max-wait', '--watch-cache-sizes']) {
    assert.ok(r.stdout.includes(f), `help lists ${f}`);
  }
});

test('an invalid flag combination prints one line and exits 1', () => {
  const r = run(['--secure-port=0']);
  assert.is(r.status, 1);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.is(lines.length, 1);
  assert.match(lines[0] as string, /^apiserver: error: .*--secure-port/);
});

test('a security flag that is not built yet is refused at start, never ignored (it would fail open)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  const r = run(['--encryption-provider-config=/etc/enc.yaml', '--bind-address=127.0.0.1', `--data-dir=${dir}/data`, `--cert-dir=${dir}/certs`]);
  assert.is(r.status, 1);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.is(lines.length, 1);
  assert.match(lines[0] as string, /^apiserver: error: --encryption-provider-config is not built yet, so it would have no effect; remove it/);
});

test('a port in use prints one error line and exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [binary, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dir}/data`, `--cert-dir=${dir}/certs`, '--logtostderr=false', `--log-dir=${dir}/logs`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stderr }));
    });
    assert.is(r.status, 1);
    assert.match(r.stderr, /^apiserver: error: .*(EADDRINUSE|in use)/m);
    assert.is(r.stderr.split('\n').filter((l) => l.startsWith('apiserver: error')).length, 1);
  } finally {
    blocker.close();
  }
});

test('the server starts, answers /version and /debug/pprof/, and SIGTERM shuts it down with exit 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  const port = await freePort();
  const child = spawn(process.execPath, [binary, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dir}/data`, `--cert-dir=${dir}/certs`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let done = false;
  const exited = new Promise<number | null>((r) => child.on('close', (code) => ((done = true), r(code))));
  try {
    const deadline = Date.now() + 20_000;
    let version: { gitVersion?: string } | undefined;
    const { Agent } = await import('undici');
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    while (!version && !done && Date.now() < deadline) {
      try {
        const { request } = await import('undici');
        const r = await request(`https://127.0.0.1:${port}/version`, { dispatcher });
        version = (await r.body.json()) as { gitVersion?: string };
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.ok(version, `server answered /version; stderr: ${stderr}`);
    assert.is(version!.gitVersion, 'v0.1.0');
    const { request } = await import('undici');
    const index = await request(`https://127.0.0.1:${port}/debug/pprof/`, { dispatcher });
    assert.is(index.statusCode, 200);
    assert.match(await index.body.text(), /cpuprofile|profile/);
    await dispatcher.close();
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, `exit code after SIGTERM; stderr: ${stderr}`);
  assert.match(stderr, /shutting down/);
});

test.run();
