// `svc run` as a real process against the real apiserver: the secure port (/healthz with its
// leaderElection check, /metrics with the work-queue and leader-election metrics, /debug/pprof/),
// /debug/machines, the default lock named after the hosted controllers, --leader-elect=false, a
// graceful SIGTERM that drains an in-flight reconcile before releasing the lock, and flag errors.
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { Agent, request } from 'undici';
import { resources } from '../../src/client/index.js';
import type { ApiClient } from '../../src/client/types.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { writeSvcconfig } from '../helpers/client.js';
import { realClient } from '../helpers/real-client.js';
import { ECHO_MODULE, startSvc } from '../helpers/svc-process.js';

const LEASES = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };

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

async function echoOf(name: string): Promise<Record<string, string>> {
  for (const deadline = Date.now() + 10_000; ; ) {
    try {
      return (await api.client.get(resources.configmaps, 'default', `${name}-echo`))['data'] as Record<string, string>;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} was never echoed`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test('the secure port serves /healthz, /metrics, /debug/pprof/ and /debug/machines; the lock is named after the controllers', async () => {
  const port = await freePort();
  const certDir = mkdtempSync(join(tmpdir(), 'svc-run-certs-'));
  const p = startSvc(['run', `--svcconfig=${svcconfig}`, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ECHO_MODULE]);
  let agent: Agent | undefined;
  try {
    await p.waitFor((l) => l.msg === 'serving securely', 30_000, 'serving');
    await p.waitFor((l) => l.msg === 'started leading', 30_000, 'leading');
    // Leading comes first, then the caches sync: the controller machine is 'running' only after both.
    await p.waitFor((l) => l.msg === 'caches synced; running', 30_000, 'running');
    agent = new Agent({ connect: { ca: readFileSync(join(certDir, 'svc-run.crt'), 'utf8'), servername: 'localhost' } });
    const get = async (path: string) => {
      const r = await request(`https://127.0.0.1:${port}${path}`, { dispatcher: agent });
      return { status: r.statusCode, text: await r.body.text() };
    };
    assert.equal(await get('/healthz'), { status: 200, text: 'ok' });
    assert.equal(await get('/healthz/leaderElection'), { status: 200, text: 'ok' });
    assert.is((await get('/no/such/path')).status, 404);
    assert.is((await get('/debug/pprof/')).status, 200);
    const machines = JSON.parse((await get('/debug/machines')).text) as { actors: Array<{ machineId?: string; activePaths: string[] }> };
    assert.ok(machines.actors.find((a) => a.machineId === 'leaderElection')?.activePaths.includes('leader'), JSON.stringify(machines).slice(0, 2000));
    assert.ok(machines.actors.find((a) => a.machineId === 'controller')?.activePaths.includes('running'), JSON.stringify(machines).slice(0, 2000));

    await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm1', namespace: 'default', labels: { echo: 'yes' } }, data: {} });
    assert.is((await echoOf('m1'))['reconciledBy'], String(p.pid));
    const metrics = (await get('/metrics')).text;
    assert.match(metrics, /workqueue_adds_total\{name="configmap-echo"\} [1-9]/);
    assert.match(metrics, /workqueue_work_duration_seconds_count\{name="configmap-echo"\} [1-9]/);
    assert.match(metrics, /leader_election_master_status\{name="configmap-echo"\} 1/);
    assert.match(metrics, /process_cpu_seconds_total/);

    // Default lock: endpointsleases named after the hosted controller.
    const lease = await api.client.get(LEASES, 'svc-system', 'configmap-echo');
    const ids = p.lines.find((l) => l.msg === 'hosting controllers')!.leaderElection as { identity: string; lock: string };
    assert.is(ids.lock, 'endpointsleases/svc-system/configmap-echo');
    assert.is((lease['spec'] as { holderIdentity: string }).holderIdentity, ids.identity);
    assert.match(ids.identity, /^[^_]+_[0-9a-f-]{36}$/, 'identity is hostname_uuid');
    assert.is(await p.stop('SIGTERM'), 0, p.output());
  } finally {
    await p.stop('SIGKILL');
    await agent?.close();
    rmSync(certDir, { recursive: true, force: true });
  }
});

test('--leader-elect=false runs the controllers at once, without a lock', async () => {
  const p = startSvc(['run', `--svcconfig=${svcconfig}`, '--secure-port=0', '--leader-elect=false', '--leader-elect-resource-name=never-made', ECHO_MODULE]);
  try {
    await p.waitFor((l) => l.msg === 'caches synced; running', 30_000, 'running');
    await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm2', namespace: 'default', labels: { echo: 'yes' } }, data: {} });
    assert.is((await echoOf('m2'))['reconciledBy'], String(p.pid));
    assert.not.ok(p.lines.some((l) => l.msg === 'started leading'));
    let missing = false;
    try {
      await api.client.get(LEASES, 'svc-system', 'never-made');
    } catch {
      missing = true;
    }
    assert.ok(missing, 'no lock object is written');
    assert.is(await p.stop('SIGTERM'), 0, p.output());
  } finally {
    await p.stop('SIGKILL');
  }
});

test('SIGTERM lets an in-flight reconcile finish, then releases the lock, then exits 0', async () => {
  const p = startSvc(['run', `--svcconfig=${svcconfig}`, '--secure-port=0', '--leader-elect-resource-lock=leases', '--leader-elect-resource-name=drain-test', ECHO_MODULE]);
  try {
    await p.waitFor((l) => l.msg === 'caches synced; running', 30_000, 'running');
    await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow', namespace: 'default', labels: { echo: 'yes' } }, data: { delayMs: '1500' } });
    await p.waitFor((l) => l.msg === 'slow reconcile started', 10_000, 'the slow reconcile');
    p.proc.kill('SIGTERM');
    assert.is(await p.exited, 0, p.output());
    const draining = p.lines.find((l) => l.msg === 'stopping; draining in-flight reconciles');
    assert.is(draining?.['inFlight'], 1, 'one reconcile was in flight at SIGTERM');
    const order = p.lines.map((l) => l.msg);
    assert.ok(order.lastIndexOf('echoed') > order.indexOf('stopping; draining in-flight reconciles'), 'the reconcile finished during shutdown');
    assert.ok(order.indexOf('stopped leading') > order.lastIndexOf('echoed'), 'the lock is released only after the reconcile finished');
    assert.is((await echoOf('slow'))['delayMs'], '1500');
    const lease = await api.client.get(LEASES, 'svc-system', 'drain-test');
    assert.is((lease['spec'] as { holderIdentity: string }).holderIdentity, '', 'released');
  } finally {
    await p.stop('SIGKILL');
  }
});

test('svc run: flag and module errors name the culprit and exit 1', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['run', ECHO_MODULE, '--bogus'], /unknown option '--bogus'/],
    [['run'], /missing required argument 'module'/],
    [['run', '--master=https://127.0.0.1:1', '--leader-elect-lease-duration=1s', ECHO_MODULE], /--leader-elect-renew-deadline \(10s\) must be less than or equal to --leader-elect-lease-duration \(1s\)/],
    [['run', '--master=https://127.0.0.1:1', '--svc-api-content-type=text/plain', ECHO_MODULE], /--svc-api-content-type: expected one of/],
    [['run', ECHO_MODULE], /no API server given: pass --svcconfig/],
    [['run', '--master=https://127.0.0.1:1', `--secure-port=${server.port}`, '--bind-address=127.0.0.1', ECHO_MODULE], /cannot serve on 127\.0\.0\.1:\d+ \(--secure-port, --bind-address\): EADDRINUSE/],
    [['run', '--master=https://127.0.0.1:1', join(server.certDir, 'apiserver.crt')], /controller module .*apiserver\.crt: failed to load/],
  ];
  await Promise.all(
    cases.map(async ([args, message]) => {
      const p = startSvc(args);
      assert.is(await p.exited, 1, `${args.join(' ')}: ${p.output()}`);
      assert.match(p.output(), message);
    }),
  );
});

test.run();
