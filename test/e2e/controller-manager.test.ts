// The controller-manager daemon as a process against a real apiserver over HTTPS: /healthz with a
// check per controller and /debug/machines; two managers in leader election, kill -9 of the leader,
// the other takes over, and a watcher counts that no pod is ever created twice; flag errors exit 1
// before anything starts.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { BUILTIN_CONTROLLERS } from '../../controllers/registry.js';
import { resources } from '../../src/client/index.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { realClient } from '../helpers/real-client.js';
import { CONTROLLER_MANAGER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

let server: ApiServerProcess;
let api: ReturnType<typeof realClient>;
let svcconfig: string;
let dir: string;
const procs: SvcProcess[] = [];

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
  dir = mkdtempSync(join(tmpdir(), 'svc-cm-'));
});

test.after(async () => {
  for (const p of procs) await p.stop('SIGKILL');
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function manager(args: string[]): SvcProcess {
  const p = startExecutable(CONTROLLER_MANAGER_BIN, [`--svcconfig=${svcconfig}`, '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'certs')}`, ...args]);
  procs.push(p);
  return p;
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const { fetch, Agent } = await import('undici');
  const r = await fetch(url, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) });
  return { status: r.status, text: await r.text() };
}

function replicaSet(name: string, replicas: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  };
}

test('an unknown controller, or one not built yet named explicitly, exits 1 with the reason', async () => {
  const unknown = manager(['--controllers=replicaset,nope', '--secure-port=0']);
  assert.is(await unknown.exited, 1);
  assert.match(unknown.output(), '"nope" is not a known controller');
  const name = BUILTIN_CONTROLLERS.find((c) => !c.build)!.name;
  const unbuilt = manager([`--controllers=${name}`, '--secure-port=0']);
  assert.is(await unbuilt.exited, 1);
  assert.match(unbuilt.output(), `controller "${name}" is not built yet`);
});

test('the secure port: /healthz with a check per controller, /debug/machines with their machines', async () => {
  const port = await freePort();
  const p = manager([`--secure-port=${port}`, '--leader-elect=false', '--controllers=replicaset,serviceaccount']);
  await p.waitFor((l) => l.msg === 'controller manager started', 15_000, 'start');
  let health = { status: 0, text: '' };
  await eventually(async () => (health = await get(`https://127.0.0.1:${port}/healthz?verbose`)).status === 200, 10_000, 'healthz');
  assert.match(health.text, '[+]replicaset ok');
  assert.match(health.text, '[+]serviceaccount ok');
  const machines = await get(`https://127.0.0.1:${port}/debug/machines`);
  assert.is(machines.status, 200);
  assert.match(machines.text, 'replicaset');
  assert.is(await p.stop('SIGTERM'), 0);
});

test('two managers in leader election: kill -9 of the leader hands over, and no pod is ever created twice', async () => {
  // Short enough for a quick handover, long enough that a leader on a loaded 2-core machine still
  // renews in time (at 3 s / 2 s a renewal missed its deadline under load and b led early).
  const lease = ['--leader-elect-lease-duration=6s', '--leader-elect-renew-deadline=4s', '--leader-elect-retry-period=500ms', '--controllers=replicaset', '--secure-port=0'];
  const a = manager(lease);
  await a.waitFor((l) => l.msg === 'started leading', 15_000, 'a leads');
  const b = manager(lease);
  await b.waitFor((l) => l.msg === 'controller manager started', 15_000, 'b up');

  const added = new Map<string, number>();
  const sub: Subscription = api.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=ha' }).subscribe({
    error: () => {},
    next: (ev) => {
      if (ev.type === 'ADDED') added.set(ev.object.metadata.name ?? '', (added.get(ev.object.metadata.name ?? '') ?? 0) + 1);
    },
  });
  try {
    await api.client.create(resources.replicasets, 'default', replicaSet('ha', 5));
    const live = async () => (await api.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=ha' })).items.filter((p) => !p.metadata.deletionTimestamp);
    await eventually(async () => (await live()).length === 5, 15_000, '5 pods');
    assert.not.ok(b.lines.some((l) => l.msg === 'started leading'), 'b follows while a leads');

    a.proc.kill('SIGKILL');
    await b.waitFor((l) => l.msg === 'started leading', 20_000, 'b takes over');
    await api.client.patch(resources.replicasets, 'default', 'ha', 'merge', { spec: { replicas: 8 } });
    await eventually(async () => (await live()).length === 8, 15_000, '8 pods under b');
    await new Promise((r) => setTimeout(r, 1_000));
    assert.is((await live()).length, 8, 'still 8: nothing was created twice');
    assert.is(added.size, 8);
    assert.ok([...added.values()].every((n) => n === 1));
    assert.is(await b.stop('SIGTERM'), 0);
  } finally {
    sub.unsubscribe();
  }
});

test.run();
