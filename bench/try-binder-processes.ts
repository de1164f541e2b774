/**
 * The persistentvolume-binder as deployed, for comparison with the volumes benchmark (which runs
 * the binder in the API server's process): `apiserver` and `controller-manager
 * --controllers=persistentvolume-binder` each in its own process, the controller manager with its
 * default client (Protobuf over HTTPS) and no client rate limit, the load client in this one.
 * N Available static volumes, then N claims created 32 at a time; prints the time from the first
 * create to the last claim Bound (seen by a watch).
 *   N=1000 node dist/bench/try-binder-processes.js        (FSYNC=1: the store fsyncs, its default)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, resources } from '../src/client/index.js';
import { allBound, claim, inBatches, staticVolume } from './measure-volumes.js';
import { ROOT, startApiServer } from './server-process.js';

const N = Number(process.env['N'] ?? 1000);
const work = mkdtempSync(join(tmpdir(), 'svc-try-binder-'));
const api = await startApiServer({ dataDir: join(work, 'data'), certDir: join(work, 'certs'), args: process.env['FSYNC'] === '1' ? [] : ['--data-dir-fsync=false'] });
// The apiserver names the admin client configuration it wrote once it has written it.
let admin: string | undefined;
for (let i = 0; i < 200 && !admin; i++) {
  admin = /admin client configuration: (\S+)/.exec(api.output())?.[1];
  if (!admin) await new Promise((r) => setTimeout(r, 50));
}
if (!admin) throw new Error(`the apiserver named no admin client configuration:\n${api.output()}`);
const cm = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'controller-manager.js'), `--svcconfig=${admin}`, '--controllers=persistentvolume-binder', '--leader-elect=false', '--svc-api-qps=100000', '--svc-api-burst=100000', '--secure-port=0'], { stdio: ['ignore', 'ignore', 'inherit'] });
const { client, close } = connect({ svcconfig: admin, qps: 0 });
try {
  await client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'static' } });
  await inBatches(N, (i) => client.create(resources.persistentvolumes, '', staticVolume(i)));
  // The controller manager's informers have the volumes before the claims come.
  await new Promise((r) => setTimeout(r, 5_000));
  const bound = allBound(client, 'static', N, 300_000);
  const t0 = performance.now();
  await inBatches(N, (i) => client.create(resources.persistentvolumeclaims, 'static', claim(`c-${i}`, `${1 + (i % 10)}Gi`, 'manual')));
  const createdS = (performance.now() - t0) / 1000;
  await bound;
  const s = (performance.now() - t0) / 1000;
  console.log(`${N} claims created in ${createdS.toFixed(2)} s, all bound in ${s.toFixed(2)} s: ${(N / s).toFixed(0)} claims/s (store fsync ${process.env['FSYNC'] === '1' ? 'on' : 'off'})`);
} finally {
  cm.kill('SIGTERM');
  await close();
  await api.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
