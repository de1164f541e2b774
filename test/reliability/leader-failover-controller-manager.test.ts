// Leader failover, controller manager: two `controller-manager` processes with leader election on
// and their default flags (every default controller; the bounded form shortens the lease through
// the --leader-elect-* flags) against a real `apiserver` over HTTPS, with Deployments and bare
// ReplicaSets scaled up all the time. The leader is killed with SIGKILL `kills` times and
// restarted each time, so there is always a pair. Every takeover (kill -> the new holder's
// acquireTime on the Lease) is within lease duration + retry period; no replica is created twice
// (a watch counts each workload's live pods, which never exceed the replicas the test asked for,
// and each Deployment has one ReplicaSet); the Lease changes hands only after a kill and no leader
// logs that it lost its lease. Full form (SOAK=1): 10 kills on the spec's 15 s / 10 s / 2 s with
// 1,000 Deployments created at once, as the issue measured.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { DEFAULT_CONTROLLER_MANAGER_LOCK } from '../../src/cli/controller-manager-options.js';
import { LEADER_ELECTION_DEFAULTS } from '../../src/runtime/leader-election/config.js';
import { freePort } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { BOUNDED_TIMING, DEFAULT_TIMING, failoverFixture, failoverRounds, persistently, figureStats, lateRenewals, leaseFlags, leaseVerdict, lostLeadership, watchLease, type LeaseTiming, type Replica } from '../helpers/failover.js';
import { replicaSet } from '../helpers/objects.js';
import { soak } from '../helpers/soak.js';
import { CONTROLLER_MANAGER_BIN, startExecutable } from '../helpers/svc-process.js';

const TIMING: LeaseTiming = soak(BOUNDED_TIMING, DEFAULT_TIMING);
const KILLS = soak(3, 10);
const DEPLOYMENTS = soak(20, 1_000);
const REPLICA_SETS = soak(10, 100);
/** Workloads start at 1 replica and are scaled up one at a time to this. */
const MAX_REPLICAS = soak(4, 3);
const SCALES_PER_S = soak(5, 20);
/** Creates in flight at once (the issue created 1,000 Deployments at 32). */
const CONCURRENCY = soak(8, 32);
const NS = 'failover';

const fx = failoverFixture(test, 'cm');
const { procs, dir } = fx;

async function startManager(svcconfig: string): Promise<Replica> {
  const flags = TIMING === DEFAULT_TIMING ? [] : leaseFlags(TIMING);
  const p = startExecutable(CONTROLLER_MANAGER_BIN, [`--svcconfig=${svcconfig}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, `--cert-dir=${join(dir, 'certs')}`, ...flags]);
  procs.push(p);
  const line = await p.waitFor((l) => l.msg === 'controller manager started', 60_000, 'controller manager started');
  return { process: p, identity: String((line['leaderElection'] as { identity?: string } | undefined)?.identity ?? '') };
}

function deployment(name: string, replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } } },
  };
}

test(`controller-manager pair: ${KILLS} kill -9 of the leader under load; takeover within lease + retry period, no replica created twice`, async () => {
  const { server, api } = fx;
  const svcconfig = writeSvcconfig(server);
  await api.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });

  // What the test asked for, per workload (its `app` label), raised before each scale is sent:
  // the controllers can never have been asked for more.
  const desired = new Map<string, number>();
  const livePods = new Map<string, Set<string>>();
  const violations: string[] = [];
  const podWatch: Subscription = api.client.watch<Pod>(resources.pods, { namespace: NS }).subscribe({
    error: (err: unknown) => violations.push(`the pod watch failed: ${String(err)}`),
    next: (ev) => {
      const app = ev.object.metadata.labels?.['app'] ?? '';
      const name = ev.object.metadata.name ?? '';
      const live = livePods.get(app) ?? new Set<string>();
      livePods.set(app, live);
      // A terminating pod no longer counts: its replacement may exist beside it.
      if (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp) live.delete(name);
      else live.add(name);
      if (live.size > (desired.get(app) ?? 0)) violations.push(`${app}: ${live.size} live pods, ${desired.get(app)} asked for (${[...live].join(', ')})`);
    },
  });
  // Each Deployment's ReplicaSets (its template never changes, so one is expected).
  const ownedSets = new Map<string, Set<string>>();
  const rsWatch: Subscription = api.client.watch<ReplicaSet>(resources.replicasets, { namespace: NS }).subscribe({
    error: (err: unknown) => violations.push(`the ReplicaSet watch failed: ${String(err)}`),
    next: (ev) => {
      const owner = ev.object.metadata.ownerReferences?.find((o) => o.kind === 'Deployment')?.name;
      if (!owner || ev.type === 'DELETED') return;
      const sets = ownedSets.get(owner) ?? new Set<string>();
      ownedSets.set(owner, sets.add(ev.object.metadata.name ?? ''));
      if (sets.size > 1) violations.push(`Deployment ${owner} has ReplicaSets ${[...sets].join(', ')}`);
    },
  });
  const lease = watchLease(api.client, LEADER_ELECTION_DEFAULTS.resourceNamespace, DEFAULT_CONTROLLER_MANAGER_LOCK);
  const replicas = await Promise.all([startManager(svcconfig), startManager(svcconfig)]);

  const workloads: Array<{ name: string; kind: 'deployment' | 'replicaset' }> = [
    ...Array.from({ length: DEPLOYMENTS }, (_, i) => ({ name: `d-${i}`, kind: 'deployment' as const })),
    ...Array.from({ length: REPLICA_SETS }, (_, i) => ({ name: `rs-${i}`, kind: 'replicaset' as const })),
  ];
  for (let i = 0; i < workloads.length; i += CONCURRENCY) {
    await Promise.all(
      workloads.slice(i, i + CONCURRENCY).map(({ name, kind }) => {
        desired.set(name, 1);
        return persistently(() =>
          kind === 'deployment'
            ? api.client.create(resources.deployments, NS, deployment(name, 1))
            : api.client.create(resources.replicasets, NS, replicaSet(name, 1, { namespace: NS })),
        );
      }),
    );
  }
  let loading = true;
  let scales = 0;
  const scaleErrors: string[] = [];
  const scaling = (async () => {
    while (loading) {
      const grow = workloads.filter((w) => (desired.get(w.name) ?? 0) < MAX_REPLICAS);
      if (grow.length === 0) break;
      const w = grow[Math.floor(Math.random() * grow.length)]!;
      const to = desired.get(w.name)! + 1;
      desired.set(w.name, to);
      scales++;
      await persistently(() => api.client.patch(w.kind === 'deployment' ? resources.deployments : resources.replicasets, NS, w.name, 'merge', { spec: { replicas: to } }))
        .catch((err: unknown) => scaleErrors.push(`${w.name} -> ${to}: ${String(err)}`));
      await new Promise((r) => setTimeout(r, 1000 / SCALES_PER_S));
    }
  })();
  try {
    const kills = await failoverRounds({
      replicas,
      start: () => startManager(svcconfig),
      lease,
      timing: TIMING,
      kills: KILLS,
      leadMs: soak(4_000, TIMING.leaseMs),
      between: (round) => assert.equal(violations, [], `round ${round}`),
    });
    loading = false;
    await scaling;
    assert.equal(scaleErrors, [], 'every scale answered');
    const converged = () => workloads.every((w) => (livePods.get(w.name)?.size ?? 0) === desired.get(w.name));
    await eventually(converged, soak(180_000, 900_000), 'every workload at the replicas asked for');
    // Settled: nothing more is created afterwards.
    await new Promise((r) => setTimeout(r, TIMING.retryMs * 2));

    const verdict = leaseVerdict(lease.history, kills);
    const late = lateRenewals(procs);
    const pods = [...livePods.values()].reduce((n, s) => n + s.size, 0);
    console.log(`[figure] controller-manager failover: ${KILLS} kills, lease ${TIMING.leaseMs} ms / renew deadline ${TIMING.renewDeadlineMs} ms / retry ${TIMING.retryMs} ms, ${DEPLOYMENTS} Deployments + ${REPLICA_SETS} ReplicaSets, ${scales} scale-ups, ${pods} pods`);
    console.log(`[figure] controller-manager takeover after kill -9: ${figureStats(kills.map((k) => k.takeoverMs))} (bound ${TIMING.leaseMs + TIMING.retryMs} ms)`);
    console.log(`[figure] controller-manager renewal: worst gap ${verdict.worstRenewalGapMs} ms between renewals (retry period ${TIMING.retryMs} ms) over ${verdict.renewals} renewals; late renewals logged: ${late.length}, worst event-loop delay reported ${Math.max(0, ...late.map((l) => l.lagMaxMs))} ms`);

    assert.equal(violations, [], 'no replica created twice, one ReplicaSet per Deployment');
    assert.ok(converged(), 'still converged: nothing created after the end');
    assert.is(lease.error, undefined, 'the Lease watch stayed up');
    assert.equal(verdict.unexplainedChanges, [], 'the Lease changed hands only after a kill');
    for (const p of procs) assert.equal(lostLeadership(p), [], `pid ${p.pid} never lost its lease while alive`);
    for (const k of kills) assert.ok(k.takeoverMs <= TIMING.leaseMs + TIMING.retryMs, `took over ${k.takeoverMs} ms after the kill: ${JSON.stringify(kills)}`);
    assert.ok(verdict.worstRenewalGapMs < TIMING.renewDeadlineMs, `a renewal came ${verdict.worstRenewalGapMs} ms after the previous one`);
  } finally {
    loading = false;
    await scaling;
    podWatch.unsubscribe();
    rsWatch.unsubscribe();
    lease.stop();
  }
});

test.run();
