/**
 * Crash consistency (issue 23) with etcd as the store: an `apiserver --kvstore-servers` on a real
 * etcd (/usr/bin/etcd, started here), with a controller manager, a scheduler and simulated nodes
 * as their own processes; rounds of kill -9 of the apiserver, then rounds of kill -9 of etcd itself
 * (restarted on the same data directory while the apiserver stays up), during 32-way ConfigMap
 * writes and Deployment churn, with the checks of crash-consistency.test.ts after each restart.
 * Bounded in `npm test` (1 round each); `SOAK=1`: 20 rounds each.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../helpers/client.js';
import { CRASH_WORKLOAD, crashRounds, printFigures, runCrashRounds, startApiServerCluster, type ApiServerCluster, type CrashSubject } from '../helpers/crash-rounds.js';
import { CrashWorkload } from '../helpers/crash-workload.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';

const test = suite('crash consistency: kill -9 of apiserver and of etcd (etcd store)');

// One etcd and one apiserver (with its daemons) for both: the second test writes in a namespace of its own.
let etcd: RunningEtcd;
let cluster: ApiServerCluster;
test.before(async () => {
  etcd = await startEtcd();
  cluster = await startApiServerCluster('apiserver (etcd store)', [`--kvstore-servers=${etcd.endpoint}`]);
});
test.after(async () => {
  await cluster?.stop();
  await etcd?.stop();
});

test('kill -9 of apiserver on etcd: acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  const f = await runCrashRounds(cluster.subject, cluster.http, new CrashWorkload(cluster.http, CRASH_WORKLOAD, 'crash-apiserver'), crashRounds('apiserver on etcd'));
  printFigures(f);
  assert.equal(f.violations, []);
  assert.equal(cluster.daemons.exited(), [], 'the controller manager, scheduler and nodes waited out every restart');
});

test('kill -9 of etcd (apiserver up): acknowledged writes kept, a resumed watch exactly once, workloads converge', async () => {
  const subject: CrashSubject = {
    label: 'etcd',
    endpoint: () => cluster.subject.endpoint(),
    kill: () => etcd.kill(),
    async restart() {
      await etcd.restart();
      // Serving again: the apiserver's storage check passes once it reaches etcd.
      await eventually(async () => (await cluster.http.call('GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 60_000, 'the apiserver ready again');
    },
  };
  const f = await runCrashRounds(subject, cluster.http, new CrashWorkload(cluster.http, CRASH_WORKLOAD, 'crash-etcd'), crashRounds('etcd'));
  printFigures(f);
  assert.equal(f.violations, []);
  assert.equal(cluster.daemons.exited(), [], 'the controller manager, scheduler and nodes waited out every etcd restart');
});

test.run();
