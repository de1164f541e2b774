// docs/writing-controllers.md, step by step against the real apiserver: the page shows every example
// file verbatim and the chart generated from the machine; `svc run` hosts the mirror and the demo
// script sees it act; run-mirror.js runs as a process; the hand-written machine pauses and resumes;
// the page's test of the mirror on a test cluster passes.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import { Agent, request } from 'undici';
import * as assert from 'uvu/assert';
import { startMirrorMachine } from '../../docs/examples/mirror-machine.js';
import { ApiError, createInformerFactory, resources, type ApiClient } from '../../src/client/index.js';
import { freePort, ROOT, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { writeSvcconfig } from '../helpers/client.js';
import { realClient } from '../helpers/real-client.js';
import { capturedLogger } from '../helpers/sim.js';
import { startSvc, SVC_BIN } from '../helpers/svc-process.js';

const DOC = join(ROOT, 'docs', 'writing-controllers.md');
const EXAMPLES = ['mirror-controller.ts', 'run-mirror.ts', 'mirror-demo.sh', 'mirror-machine.ts', 'mirror-controller.test.ts', 'backup-demo.sh'];
const BACKUP_MODULE = join(ROOT, 'dist', 'docs', 'examples', 'backup-controller.js');
const MIRROR_TEST = join(ROOT, 'dist', 'docs', 'examples', 'mirror-controller.test.js');
const MIRROR_MODULE = join(ROOT, 'dist', 'docs', 'examples', 'mirror-controller.js');
const RUN_MIRROR = join(ROOT, 'dist', 'docs', 'examples', 'run-mirror.js');

let server: ApiServerProcess;
let api: { client: ApiClient; close(): Promise<void> };
let svcconfig: string;

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
});
test.after(async () => {
  await api.close();
  await server.stop();
  server.cleanup();
});

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function exists(ns: string, name: string): Promise<boolean> {
  try {
    await api.client.get(resources.configmaps, ns, name);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return false;
    throw e;
  }
}

const source = (ns: string, name: string) =>
  api.client.create(resources.configmaps, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { mirror: 'true' } }, data: { a: 'b' } });

test('the page shows every example file verbatim', () => {
  const doc = readFileSync(DOC, 'utf8');
  for (const f of EXAMPLES) {
    const src = readFileSync(join(ROOT, 'docs', 'examples', f), 'utf8').trimEnd();
    assert.ok(doc.includes(src), `${f} is out of date in docs/writing-controllers.md`);
  }
});

test("the page's test of the mirror (a whole cluster in its process) passes as a process of its own", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [MIRROR_TEST], { cwd: ROOT, timeout: 60_000 });
  assert.match(stdout, /Passed:\s+2/);
});

test("the page's charts are what svc charts prints for the backup and the mirror", async () => {
  const doc = readFileSync(DOC, 'utf8');
  const charts = [...doc.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]);
  assert.is(charts.length, 2, 'two mermaid blocks');
  const backup = await promisify(execFile)(process.execPath, [SVC_BIN, 'charts', join(ROOT, 'dist', 'docs', 'examples', 'backup-controller.js')], { cwd: ROOT });
  assert.is(charts[0], backup.stdout.trimEnd());
  assert.ok(backup.stdout.includes('watches ConfigMap (labels replicate=true)'));
  const { stdout } = await promisify(execFile)(process.execPath, [SVC_BIN, 'charts', '--machine', 'configmap-mirror', MIRROR_MODULE], { cwd: ROOT });
  assert.is(charts[1], stdout.trimEnd());
  // Drawn from the definition: the watched kind, both triggers, the outcomes.
  for (const line of ['watches ConfigMap', 'triggered by Namespace', 'queue --> reconcile', 'reconcile --> backoff']) assert.ok(stdout.includes(line), line);
});

/**
 * Hosts `module` with `svc run` (extra `flags`) against the test's API server, runs the guide's demo
 * `script` with kubectl once the controller runs (at most `scriptTimeoutMs`), hands its output and the debug port to `check`,
 * and stops the process (which must exit 0).
 */
async function withSvcRun(module: string, flags: string[], script: string, scriptTimeoutMs: number, check: (stdout: string, port: number, certDir: string) => Promise<void>): Promise<void> {
  const certDir = mkdtempSync(join(tmpdir(), 'svc-run-certs-'));
  const port = await freePort();
  const svc = startSvc(['run', `--svcconfig=${svcconfig}`, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ...flags, module]);
  try {
    await svc.waitFor((l) => l.msg === 'started leading', 20_000, 'leading');
    await svc.waitFor((l) => l.msg === 'caches synced; running', 20_000, 'running');
    const { stdout } = await promisify(execFile)('sh', [join(ROOT, 'docs', 'examples', script)], {
      cwd: ROOT,
      env: { ...process.env, SVCCONFIG: svcconfig, KUBECTL: join(ROOT, '.tools', 'kubectl-v31', 'kubectl') },
      timeout: scriptTimeoutMs,
    });
    await check(stdout, port, certDir);
  } catch (e) {
    console.error(svc.output().slice(-3000));
    throw e;
  } finally {
    assert.is(await svc.stop('SIGTERM'), 0);
    rmSync(certDir, { recursive: true, force: true });
  }
}

test('svc run hosts the mirror and mirror-demo.sh sees every step', async () => {
  await withSvcRun(MIRROR_MODULE, [], 'mirror-demo.sh', 120_000, async (stdout, port, certDir) => {
    for (const line of ['ok: copy in team-b', 'ok: the copy follows the change', 'ok: a new namespace gets a copy', 'ok: unlabelled: copies removed']) {
      assert.ok(stdout.includes(line), `${line}\n--- output:\n${stdout}`);
    }
    assert.match(stdout, /team-b\s+greeting/, 'the copies are listed');
    assert.match(stdout, /Normal\s+Mirrored/);
    assert.match(stdout, /Normal\s+Unmirrored/);

    // The live view the page points to.
    const agent = new Agent({ connect: { ca: readFileSync(join(certDir, 'svc-run.crt'), 'utf8'), servername: 'localhost' } });
    try {
      const res = await request(`https://127.0.0.1:${port}/debug/machines`, { dispatcher: agent });
      const text = await res.body.text();
      assert.is(res.statusCode, 200);
      assert.ok(text.includes('configmap-mirror'), text.slice(0, 500));
    } finally {
      await agent.close();
    }
  });
});

test('svc run hosts the backup controller at the documented settings and backup-demo.sh sees its backup', async () => {
  await withSvcRun(BACKUP_MODULE, ['--svc-api-qps=200', '--svc-api-burst=400'], 'backup-demo.sh', 60_000, async (stdout) => {
    assert.match(stdout, /name: default\.settings/);
    assert.match(stdout, /color: blue/);
    assert.match(stdout, /backup\.svc\.io\/source-namespace: default/);
  });
});

test('run-mirror.js mirrors until SIGTERM, then exits 0; without a file it says how to call it', async () => {
  const bad = await promisify(execFile)(process.execPath, [RUN_MIRROR]).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  );
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'usage: node dist/docs/examples/run-mirror.js <svcconfig file>');

  const child = spawn(process.execPath, [RUN_MIRROR, svcconfig], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await source('default', 'beacon');
    await eventually('a copy of beacon in team-b', () => exists('team-b', 'beacon'));
    // The copy can land before the log line that reports it reaches the pipe.
    await eventually("the 'mirrored' log line", async () => out.includes('"msg":"mirrored"'));
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, out);
});

test('the hand-written machine mirrors, pauses (changes wait), resumes and stops', async () => {
  const informers = createInformerFactory(api.client);
  const actor = startMirrorMachine({ client: api.client, informers, logger: capturedLogger().logger });
  try {
    await eventually('running', async () => actor.getSnapshot().value === 'running');
    await source('team-a', 'before-pause');
    await eventually('a copy made while running', () => exists('team-b', 'before-pause'));
    actor.send({ type: 'PAUSE' });
    assert.is(actor.getSnapshot().value, 'paused');
    await source('team-a', 'while-paused');
    await new Promise((r) => setTimeout(r, 1000));
    assert.is(await exists('team-b', 'while-paused'), false, 'no copy while paused');
    actor.send({ type: 'RESUME' });
    await eventually('the queued change done after resuming', () => exists('team-b', 'while-paused'));
    actor.send({ type: 'STOP' });
    await eventually('stopped', async () => actor.getSnapshot().value === 'stopped');
  } finally {
    actor.stop();
    informers.stop();
  }
});

test.run();
