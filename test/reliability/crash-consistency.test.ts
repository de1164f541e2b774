/**
 * Crash consistency (issue 23), embedded store: rounds of kill -9 of `apiserver` (with a controller
 * manager, a scheduler and simulated nodes as their own processes) and of `svc up` (all in one
 * process, controllers included) during 32-way ConfigMap creates, updates and deletes while
 * Deployments are scaled and rolled. After each restart: every acknowledged write stored with its
 * value, nothing half-written, resourceVersions above those acknowledged before the kill, a watch
 * resumed from its last resourceVersion exactly once (equal to a fresh list, every acknowledged
 * write seen, no duplicate), and the Deployments converged with no duplicate ReplicaSets or extra
 * pods. Bounded in `npm test` (1 round each); `SOAK=1`: 20 rounds each. The etcd variant is
 * crash-consistency-etcd.test.ts. The machinery is in test/helpers/crash-*.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ApiHttp } from '../helpers/api-http.js';
import { CRASH_WORKLOAD, crashRounds, FAST_NODE_FLAGS, printFigures, runCrashRounds, startApiServerCluster, type CrashSubject } from '../helpers/crash-rounds.js';
import { CrashWorkload } from '../helpers/crash-workload.js';
import { startSvcUp } from '../helpers/svc-up.js';

const test = suite('crash consistency: kill -9 of apiserver and of svc up (embedded store)');

test('kill -9 of apiserver: acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  const cluster = await startApiServerCluster('apiserver (embedded store)');
  try {
    const f = await runCrashRounds(cluster.subject, cluster.http, new CrashWorkload(cluster.http, CRASH_WORKLOAD), crashRounds('apiserver'));
    printFigures(f);
    assert.equal(f.violations, []);
    assert.equal(cluster.daemons.exited(), [], 'the controller manager, scheduler and nodes waited out every restart');
  } finally {
    await cluster.stop();
  }
});

test('kill -9 of svc up: acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  const up = await startSvcUp('svc-crash-up', ['--nodes=3', '--leader-elect=false', ...FAST_NODE_FLAGS]);
  // As svc up's admin (its client certificate, system:masters): svc up authorizes with Node,RBAC.
  const certs = join(up.dir, 'data', 'certs');
  const endpoint = { url: `https://127.0.0.1:${up.port}`, caFile: join(certs, 'apiserver.crt'), certFile: join(certs, 'admin.crt'), keyFile: join(certs, 'admin.key') };
  const http = new ApiHttp(endpoint);
  const subject: CrashSubject = {
    label: 'svc up (embedded store)',
    endpoint: () => endpoint,
    kill: () => up.svc.stop('SIGKILL').then(() => undefined),
    restart: () => up.restart(),
  };
  try {
    const f = await runCrashRounds(subject, http, new CrashWorkload(http, CRASH_WORKLOAD), crashRounds('svc up'));
    printFigures(f);
    assert.equal(f.violations, []);
  } finally {
    await http.close();
    await up.svc.stop('SIGKILL');
    await up.stop();
  }
});

test.run();
