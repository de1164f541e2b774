// A scheduler whose API client is saturated still renews its lease on time: the lock has a client
// of its own (own connection, no --svc-api-qps limit), so renewals never queue behind bindings.
// The scheduler runs with --svc-api-qps=2 and 120 pods to bind (a minute of throttled work);
// through a 12 s window the Lease is renewed every retry period (no gap near the renew deadline),
// leadership is never lost, bindings are still pending at the end (the client really was
// saturated), and /metrics and /debug/machines show the event-loop delay and the renewal timing.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources, typed } from '../../src/client/index.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';
import { realClient } from '../helpers/real-client.js';
import { SCHEDULER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

const LEASES = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const RENEW_MS = 2000;
const RETRY_MS = 500;
const PODS = 120;

let server: ApiServerProcess;
let api: ReturnType<typeof realClient>;
let proc: SvcProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'svc-lease-load-'));

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
});

test.after(async () => {
  if (proc && proc.proc.exitCode === null && proc.proc.signalCode === null) proc.proc.kill('SIGKILL');
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('with its API client saturated (--svc-api-qps=2, 120 pods to bind) the scheduler renews its lease every retry period', async () => {
  const nodes = typed<Node>(api.client, resources.nodes);
  for (let i = 0; i < 3; i++) await nodes.create('', { ...node(`load-${i}`), metadata: { name: `load-${i}` } });
  const renewals: number[] = [];
  const sub: Subscription = api.client.watch(LEASES, { namespace: 'svc-system', fieldSelector: 'metadata.name=lease-load' }).subscribe({
    error: () => {},
    next: (ev) => {
      const spec = ((ev.object as SvcObject)['spec'] ?? {}) as Record<string, unknown>;
      renewals.push(Date.parse(String(spec['renewTime'])));
    },
  });
  const port = await freePort();
  proc = startExecutable(SCHEDULER_BIN, [
    `--svcconfig=${writeSvcconfig(server)}`, '--port=0', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'certs')}`,
    // No --authorization-svcconfig here: only the paths listed are served to anyone.
    '--authorization-always-allow-paths=/healthz,/metrics,/debug/machines',
    // Burst 30 lets the informers' first lists through; the bindings (and their Events) then get 2/s.
    '--svc-api-qps=2', '--svc-api-burst=30',
    '--leader-elect-resource-lock=leases', '--leader-elect-resource-name=lease-load',
    '--leader-elect-lease-duration=3s', `--leader-elect-renew-deadline=${RENEW_MS / 1000}s`, `--leader-elect-retry-period=${RETRY_MS}ms`,
  ]);
  try {
    await proc.waitFor((l) => l.msg === 'caches synced; scheduling', 30_000, 'scheduling');
    const pods = typed<Pod>(api.client, resources.pods);
    await Promise.all(
      Array.from({ length: PODS }, (_, i) => pods.create('default', { ...pod(`load-${i}`, { requests: { cpu: '1m' } }), metadata: { name: `load-${i}`, namespace: 'default' } })),
    );
    const bound = async () => (await pods.list({ namespace: 'default' })).items.filter((p) => p.metadata.name!.startsWith('load-') && p.spec?.nodeName).length;
    await eventually(async () => (await bound()) > 0, 20_000, 'the first binding');
    const from = Date.now();
    renewals.length = 0;
    await new Promise((r) => setTimeout(r, 12_000));
    const window = renewals.filter((t) => t >= from - RETRY_MS);
    const stillPending = PODS - (await bound());
    assert.ok(stillPending > 20, `the client was saturated: ${stillPending} pods still unbound after the window`);
    assert.ok(window.length >= 8, `renewed ${window.length} times in 12 s (every ${RETRY_MS} ms expected)`);
    const gaps = window.slice(1).map((t, i) => t - window[i]!);
    const worst = Math.max(Date.now() - window.at(-1)!, ...gaps);
    // Renewals come every retry period; on a loaded 2-core machine allow lag, but never near the renew deadline.
    assert.ok(worst < RENEW_MS, `the longest time without a renewal was ${worst} ms (renew deadline ${RENEW_MS} ms): ${JSON.stringify(gaps)}`);
    assert.not.match(proc.output(), /leader election lost|stopped leading|stepping down/);

    const { fetch, Agent } = await import('undici');
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    const metrics = await (await fetch(`https://127.0.0.1:${port}/metrics`, { dispatcher })).text();
    assert.match(metrics, /^nodejs_eventloop_lag_p99_seconds \d/m, 'event-loop delay in /metrics');
    const machines = (await (await fetch(`https://127.0.0.1:${port}/debug/machines`, { dispatcher })).json()) as unknown;
    const text = JSON.stringify(machines);
    assert.match(text, /"eventLoopLagMaxMs":[\d.]+/, 'the election reports the event-loop delay in its live facts');
    assert.match(text, /"lastRenewalAt":"\d{4}-/, 'and when it last renewed');
    await dispatcher.close();
  } finally {
    sub.unsubscribe();
    proc.proc.kill('SIGKILL');
  }
});

test('a scheduler that loses its lease without being killed steps down, stays alive and schedules again', async () => {
  const p = startExecutable(SCHEDULER_BIN, [
    `--svcconfig=${writeSvcconfig(server)}`, '--port=0', '--secure-port=0',
    '--leader-elect-resource-lock=leases', '--leader-elect-resource-name=lease-rejoin',
    '--leader-elect-lease-duration=3s', `--leader-elect-renew-deadline=${RENEW_MS / 1000}s`, `--leader-elect-retry-period=${RETRY_MS}ms`,
  ]);
  const scheduling = (l: { msg?: unknown }) => l.msg === 'caches synced; scheduling';
  try {
    await p.waitFor(scheduling, 30_000, 'scheduling');
    // The API server stops answering: the renewals fail until the renew deadline passes.
    server.proc.kill('SIGSTOP');
    try {
      await p.waitFor((l) => l.msg === 'leader election: failed to renew within the renew deadline; stepping down', RENEW_MS + 10_000, 'stepping down');
    } finally {
      server.proc.kill('SIGCONT');
    }
    await p.waitFor((l) => l.msg === 'leader election: stepped down; rejoining the election', 20_000, 'rejoining');
    await eventually(() => p.lines.filter(scheduling).length >= 2, 30_000, 'scheduling again after rejoining');
    assert.is(p.proc.exitCode, null, 'the scheduler did not exit');
    // The new term's scheduler binds new pods.
    const pods = typed<Pod>(api.client, resources.pods);
    await pods.create('default', { ...pod('after-rejoin', { requests: { cpu: '1m' } }), metadata: { name: 'after-rejoin', namespace: 'default' } });
    await eventually(async () => Boolean((await pods.get('default', 'after-rejoin')).spec?.nodeName), 30_000, 'the pod bound after rejoining');
  } finally {
    p.proc.kill('SIGKILL');
  }
});

test.run();
