/**
 * Crash consistency (issue 23), embedded store: rounds of kill -9 of `apiserver` (with a controller
 * manager, a scheduler and simulated nodes as their own processes) and of `svc up` (all in one
 * process, controllers included) during 32-way ConfigMap creates, updates and deletes while
 * Deployments are scaled and rolled. After each restart: every acknowledged write stored with its
 * value, nothing half-written, resourceVersions above those acknowledged before the kill, a watch
 * resumed from its last resourceVersion exactly once (equal to a fresh list, every acknowledged
 * write seen, no duplicate), and the Deployments converged with no duplicate ReplicaSets or extra
 * pods. Bounded in `npm test` (2 rounds each); `SOAK=1`: 20 rounds each. The etcd variant is
 * crash-consistency-etcd.test.ts. The machinery is in test/helpers/crash-*.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiHttp } from '../helpers/api-http.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { FAST_NODE_FLAGS, printFigures, runCrashRounds, startDaemons, type CrashSubject, type RoundOptions } from '../helpers/crash-rounds.js';
import { CrashWorkload, type WorkloadOptions } from '../helpers/crash-workload.js';
import { soak } from '../helpers/soak.js';
import { startSvcUp } from '../helpers/svc-up.js';
import { adminConfigOf } from '../helpers/topology.js';

const test = suite('crash consistency: kill -9 of apiserver and of svc up (embedded store)');

const workloadOptions: WorkloadOptions = { writers: 32, namesPerWriter: 4, deployments: 3, maxReplicas: 3, deployStepMs: 300 };
const rounds = (log: string): RoundOptions => ({
  rounds: soak(2, 20),
  acksBeforeKill: 300,
  acksAfterRestart: 300,
  convergeTimeoutMs: 90_000,
  log: (l) => console.log(`[${log}] ${l}`),
});

test('kill -9 of apiserver: acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  let server: ApiServerProcess | undefined = await startApiServer();
  const { dataDir, certDir, port } = server;
  const daemons = await startDaemons(await adminConfigOf(server));
  const http = new ApiHttp({ url: server.url, caFile: server.caFile });
  const subject: CrashSubject = {
    label: 'apiserver (embedded store)',
    endpoint: () => ({ url: server!.url, caFile: server!.caFile }),
    async kill() {
      const s = server!;
      server = undefined;
      await s.stop('SIGKILL');
    },
    async restart() {
      server = await startApiServer({ port, dataDir, certDir });
    },
  };
  try {
    const f = await runCrashRounds(subject, http, new CrashWorkload(http, workloadOptions), rounds('apiserver'));
    printFigures(f);
    assert.equal(f.violations, []);
    assert.equal(daemons.exited(), [], 'the controller manager, scheduler and nodes waited out every restart');
  } finally {
    await http.close();
    await daemons.stop();
    await server?.stop('SIGKILL');
    for (const d of [dataDir, certDir]) rmSync(d, { recursive: true, force: true });
  }
});

test('kill -9 of svc up: acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  const up = await startSvcUp('svc-crash-up', ['--nodes=3', '--leader-elect=false', ...FAST_NODE_FLAGS]);
  const endpoint = { url: `https://127.0.0.1:${up.port}`, caFile: join(up.dir, 'data', 'certs', 'apiserver.crt') };
  const http = new ApiHttp(endpoint);
  const subject: CrashSubject = {
    label: 'svc up (embedded store)',
    endpoint: () => endpoint,
    kill: () => up.svc.stop('SIGKILL').then(() => undefined),
    restart: () => up.restart(),
  };
  try {
    const f = await runCrashRounds(subject, http, new CrashWorkload(http, workloadOptions), rounds('svc up'));
    printFigures(f);
    assert.equal(f.violations, []);
  } finally {
    await http.close();
    await up.svc.stop('SIGKILL');
    await up.stop();
  }
});

test.run();
