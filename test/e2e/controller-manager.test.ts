// The controller-manager daemon as a process against a real apiserver over HTTPS: /healthz with a
// check per controller and /debug/machines; flag errors exit 1 before anything starts. Two managers
// in leader election under kill -9 are test/reliability/leader-failover-controller-manager.test.ts.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_CONTROLLERS } from '../../controllers/registry.js';
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

test('an unknown controller, or a cloud one named without a cloud provider, exits 1 with the reason', async () => {
  const unknown = manager(['--controllers=replicaset,nope', '--secure-port=0']);
  assert.is(await unknown.exited, 1);
  assert.match(unknown.output(), '"nope" is not a known controller');
  // Every controller is built; a cloud one named without --cloud-provider is refused with its reason.
  const c = BUILTIN_CONTROLLERS.find((b) => b.needsCloudProvider)!;
  const cloudless = manager([`--controllers=${c.name}`, '--secure-port=0']);
  assert.is(await cloudless.exited, 1);
  assert.match(cloudless.output(), `controller "${c.name}" needs a cloud provider (--cloud-provider=cloudy with --cloud-config)`);
});

test('the secure port: /healthz with a check per controller, /debug/machines with their machines', async () => {
  const port = await freePort();
  // No --authorization-svcconfig here: only the paths listed are served to anyone (test/e2e/component-auth covers the checks).
  const p = manager([`--secure-port=${port}`, '--leader-elect=false', '--controllers=replicaset,serviceaccount', '--authorization-always-allow-paths=/healthz,/debug/machines']);
  await p.waitFor((l) => l.msg === 'controller manager started', 30_000, 'start');
  let health = { status: 0, text: '' };
  await eventually(async () => (health = await get(`https://127.0.0.1:${port}/healthz?verbose`)).status === 200, 10_000, 'healthz');
  assert.match(health.text, '[+]replicaset ok');
  assert.match(health.text, '[+]serviceaccount ok');
  const machines = await get(`https://127.0.0.1:${port}/debug/machines`);
  assert.is(machines.status, 200);
  assert.match(machines.text, 'replicaset');
  assert.is(await p.stop('SIGTERM'), 0);
});

test.run();
