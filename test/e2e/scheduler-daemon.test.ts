// The `scheduler` executable as a process against the real apiserver: the configuration round trip
// through --write-config-to, a bad file refused at start naming the field, the legacy policy
// translated onto plugins, the secure and plain ports (/healthz, /metrics, /debug/scheduler), and
// two schedulers in leader election where kill -9 of the leader hands over without any pod being
// bound twice.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Subscription } from 'rxjs';
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import { resources, typed } from '../../src/client/index.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';
import { realClient } from '../helpers/real-client.js';
import { SCHEDULER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

let server: ApiServerProcess;
let api: ReturnType<typeof realClient>;
let svcconfig: string;
const dir = mkdtempSync(join(tmpdir(), 'svc-scheduler-'));
const procs: SvcProcess[] = [];

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
});

test.after(async () => {
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function scheduler(args: string[]): SvcProcess {
  const p = startExecutable(SCHEDULER_BIN, [`--svcconfig=${svcconfig}`, '--port=0', '--secure-port=0', ...args]);
  procs.push(p);
  return p;
}

const CONFIG = `apiVersion: scheduler.config.svc.io/v1beta1
kind: SchedulerConfiguration
percentageOfNodesToScore: 30
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
leaderElection:
  leaderElect: true
  resourceName: my-scheduler
profiles:
  - schedulerName: default-scheduler
  - schedulerName: packer
    plugins:
      score:
        disabled: [{ name: NodeResourcesLeastAllocated }]
        enabled: [{ name: NodeResourcesMostAllocated, weight: 5 }]
    pluginConfig:
      - name: InterPodAffinity
        args: { hardPodAffinityWeight: 7 }
`;

test('--write-config-to writes the effective configuration (file, then flags) and reads back the same', async () => {
  const cfgPath = join(dir, 'config.yaml');
  writeFileSync(cfgPath, CONFIG);
  const out1 = join(dir, 'effective.yaml');
  const p1 = scheduler([`--config=${cfgPath}`, `--write-config-to=${out1}`, '--leader-elect-lease-duration=20s', '--svc-api-qps=500']);
  assert.is(await p1.exited, 0, p1.output());
  const eff = parse(readFileSync(out1, 'utf8')) as Record<string, any>;
  assert.is(eff['percentageOfNodesToScore'], 30);
  assert.is(eff['podMaxBackoffSeconds'], 20);
  assert.is(eff['leaderElection']['resourceName'], 'my-scheduler');
  assert.is(eff['leaderElection']['leaseDuration'], '20s');
  assert.is(eff['clientConnection']['qps'], 500);
  assert.equal(eff['profiles'].map((p: { schedulerName: string }) => p.schedulerName), ['default-scheduler', 'packer']);
  assert.equal(eff['profiles'][1]['plugins']['score']['enabled'], [{ name: 'NodeResourcesMostAllocated', weight: 5 }]);
  const out2 = join(dir, 'again.yaml');
  const p2 = scheduler([`--config=${out1}`, `--write-config-to=${out2}`]);
  assert.is(await p2.exited, 0, p2.output());
  assert.is(readFileSync(out2, 'utf8'), readFileSync(out1, 'utf8'));
});

test('a bad configuration file stops the start with the field named', async () => {
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, CONFIG.replace('NodeResourcesMostAllocated', 'NoSuchPlugin'));
  const p = scheduler([`--config=${bad}`]);
  assert.is(await p.exited, 1);
  assert.match(p.output(), /scheduler: error: invalid configuration: .*bad\.yaml: profiles\[1\]\.plugins\.score\.enabled\[0\]\.name: unknown plugin "NoSuchPlugin"/);
  writeFileSync(bad, CONFIG.replace('podMaxBackoffSeconds: 20', 'podMaxBackofSeconds: 20'));
  const p2 = scheduler([`--config=${bad}`]);
  assert.is(await p2.exited, 1);
  assert.match(p2.output(), /podMaxBackofSeconds: unknown field/);
});

test('the legacy policy file is translated onto plugins, with a deprecation warning', async () => {
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({
    kind: 'Policy', apiVersion: 'v1',
    predicates: [{ name: 'PodFitsResources' }, { name: 'PodToleratesNodeTaints' }],
    priorities: [{ name: 'LeastRequestedPriority', weight: 2 }, { name: 'ImageLocalityPriority', weight: 1 }],
    hardPodAffinitySymmetricWeight: 10,
  }));
  const out = join(dir, 'from-policy.yaml');
  const p = scheduler([`--policy-config-file=${policy}`, `--write-config-to=${out}`]);
  assert.is(await p.exited, 0, p.output());
  assert.match(p.output(), /--policy-config-file is deprecated/);
  const eff = parse(readFileSync(out, 'utf8')) as { profiles: Array<{ plugins: Record<string, { enabled: unknown[] }> }> };
  const plugins = eff.profiles[0]!.plugins;
  assert.equal(plugins['filter']!.enabled, [{ name: 'NodeResourcesFit' }, { name: 'TaintToleration' }]);
  assert.equal(plugins['score']!.enabled, [{ name: 'NodeResourcesLeastAllocated', weight: 2 }, { name: 'ImageLocality', weight: 1 }]);
  const unknown = join(dir, 'unknown-policy.json');
  writeFileSync(unknown, JSON.stringify({ kind: 'Policy', predicates: [{ name: 'PodFitsNothing' }] }));
  const bad = scheduler([`--policy-config-file=${unknown}`]);
  assert.is(await bad.exited, 1);
  assert.match(bad.output(), /predicates\[0\]\.name: predicate "PodFitsNothing" is not supported/);
});

test('the secure port serves /healthz, /metrics and /debug/scheduler; the deprecated plain port too', async () => {
  const [secure, plain] = [await freePort(), await freePort()];
  const p = startExecutable(SCHEDULER_BIN, [
    `--svcconfig=${svcconfig}`, `--secure-port=${secure}`, '--bind-address=127.0.0.1', `--port=${plain}`, '--address=127.0.0.1',
    `--cert-dir=${join(dir, 'certs')}`, '--leader-elect=false',
    // No --authorization-svcconfig here: only the paths listed are served to anyone (test/e2e/component-auth covers the checks).
    '--authorization-always-allow-paths=/healthz,/metrics,/debug/scheduler/*',
  ]);
  procs.push(p);
  await p.waitFor((l) => l.msg === 'caches synced; scheduling', 20_000, 'scheduling');
  await typed<Pod>(api.client, resources.pods).create('default', { ...pod('lonely', { requests: { cpu: '64' } }), metadata: { name: 'lonely', namespace: 'default' } });
  const get = async (url: string) => {
    const { fetch, Agent } = await import('undici');
    const r = await fetch(url, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) });
    return { status: r.status, text: await r.text() };
  };
  assert.equal(await get(`https://127.0.0.1:${secure}/healthz`), { status: 200, text: 'ok' });
  assert.equal(await get(`http://127.0.0.1:${plain}/healthz`), { status: 200, text: 'ok' });
  let why = { status: 0, text: '' };
  await eventually(async () => (why = await get(`https://127.0.0.1:${secure}/debug/scheduler/pods/default/lonely`)).status === 200, 10_000, 'an explanation');
  assert.is(JSON.parse(why.text).message, '0/0 nodes are available: no nodes available to schedule pods.');
  const metrics = (await get(`https://127.0.0.1:${secure}/metrics`)).text;
  assert.match(metrics, /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/);
  assert.match(metrics, /scheduler_pending_pods\{queue="(backoff|unschedulable)"\} 1/, metrics.split("\n").filter((l) => l.includes("pending")).join("\n"));
  p.proc.kill('SIGTERM');
  assert.is(await p.exited, 0);
  await typed<Pod>(api.client, resources.pods).delete('default', 'lonely', { gracePeriodSeconds: 0 });
});

test('two schedulers in leader election: kill -9 of the leader hands over and no pod is bound twice', async () => {
  const nodes = typed<Node>(api.client, resources.nodes);
  for (let i = 0; i < 5; i++) await nodes.create('', { ...node(`le-${i}`), metadata: { name: `le-${i}` } });
  const pods = typed<Pod>(api.client, resources.pods);
  const bindings = new Map<string, string[]>();
  const sub: Subscription = pods.watch({ namespace: 'default' }).subscribe({
    error: () => {},
    next: (ev) => {
      const name = ev.object.metadata.name!;
      const nodeName = ev.object.spec?.nodeName;
      if (!nodeName) return;
      const seen = bindings.get(name) ?? [];
      if (seen[seen.length - 1] !== nodeName) seen.push(nodeName);
      bindings.set(name, seen);
    },
  });
  const le = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms', '--leader-elect-resource-name=le-test'];
  const a = scheduler(le);
  const b = scheduler(le);
  const led = (p: SvcProcess) => p.lines.some((l) => l.msg === 'caches synced; scheduling');
  await eventually(() => led(a) || led(b), 20_000, 'a leader scheduling');
  const [leader, follower] = led(a) ? [a, b] : [b, a];
  assert.not.ok(led(follower), 'only one scheduler schedules');
  const create = async (from: number, to: number) => {
    for (let i = from; i < to; i++) await pods.create('default', { ...pod(`le-pod-${i}`, { requests: { cpu: '10m' } }), metadata: { name: `le-pod-${i}`, namespace: 'default' } });
  };
  await create(0, 60);
  await eventually(() => bindings.size >= 20, 20_000, 'some pods bound by the first leader');
  leader.proc.kill('SIGKILL');
  await create(60, 120);
  await eventually(() => led(follower), 20_000, 'the follower takes over');
  await eventually(() => bindings.size === 120, 30_000, `all 120 pods bound (have ${bindings.size})`);
  sub.unsubscribe();
  for (const [name, seq] of bindings) assert.is(seq.length, 1, `${name} bound to ${seq.join(' then ')}`);
  const list = await pods.list({ namespace: 'default' });
  assert.is(list.items.filter((p) => p.metadata.name!.startsWith('le-pod-') && p.spec?.nodeName).length, 120);
  assert.not.match(follower.output(), /already assigned|AlreadyBound/);
});

test.run();
