// The control plane as operators run it (test/helpers/topology.ts): `apiserver`, two schedulers,
// two controller managers and `svc nodes` as separate processes over HTTPS with their default flags,
// all pointed at the admin client configuration the apiserver wrote. Run by
// operators-topology.test.ts (the embedded store) and operators-topology-etcd.test.ts (a real etcd):
// the garbage collector syncs with the default Protobuf client and watches each kind once; a
// Deployment rolls out; deleting Deployments (background with kubectl 1.35, foreground) and a
// namespace removes everything they hold; a Job completes; a CronJob (batch/v1) fires; kubectl 1.35
// creates a CronJob and Services (addresses in range), exposes, undoes a rollout (old ReplicaSet
// reused), reads logs (and -f) and scales to 0 (pods gone within 5 s); kill -9 of the leading
// controller manager and scheduler hands over and work goes on. Each check is a function of
// `topologyChecks` so operators-topology-secure.test.ts runs a subset against the secure topology.
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { Agent, fetch } from 'undici';
import { join } from 'node:path';
import type { CronJob, Deployment, Job, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ResourceRef } from '../../src/client/types.js';
import { eventually } from '../helpers/client.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { KUBECTL_V35, kubectl, kubectlStream } from '../helpers/kubectl.js';
import type { LogLine } from '../helpers/svc-process.js';
import { startTopology, type Replica, type Topology } from '../helpers/topology.js';

/**
 * How long a deleted Deployment's ReplicaSets and pods, and a deleted namespace, may take to go: the
 * issue's bound (a simulated container stops about a second after its pod is deleted).
 */
const GONE_WITHIN_MS = 10_000;
/** Leader election at its defaults: 15 s lease, retries every 2 s (jittered up to 2.4 s). */
const TAKEOVER_WITHIN_MS = 45_000;
const CM_LOCK = 'svc-controller-manager';
const SCHEDULER_LOCK = 'svc-scheduler';

function deployment(name: string, replicas: number, namespace: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  };
}

async function gone(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return false;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return true;
    throw e;
  }
}

const synced = (l: LogLine) => l.msg === 'all resource monitors have synced';
const startedLeading = (l: LogLine) => l.msg === 'started leading';

/** One workload check of the topology: a test's title and body, to be run by a suite in order. */
export interface TopologyCheck {
  title: string;
  run(): Promise<void>;
}

/** What the checks run against: `topo` is read when a check runs (a suite sets it in `before`). */
export interface CheckContext {
  topo: Topology;
}

/** The namespace the checks work in; `prepareChecks` makes it. */
export const CHECKS_NS = 'ops';

/** Makes the checks' namespace (once the topology is up). */
export async function prepareChecks(ctx: CheckContext): Promise<void> {
  await ctx.topo.api.client.create(resources.namespaces, '', { metadata: { name: CHECKS_NS } });
}

/**
 * The workload checks of the operators' topology, in the order the full suite runs them (a later
 * one may rely on an earlier: `cronJobFired` on `cronJobCreated`, `deleting` on
 * `deploymentsRollOut`). operators-topology-secure.test.ts runs a subset against the secure topology.
 */
export function topologyChecks(ctx: CheckContext) {
  const NS = CHECKS_NS;
  const available = async (name: string, replicas: number, namespace = NS, timeoutMs = 60_000) =>
    eventually(
      async () => ((await ctx.topo.api.client.get<Deployment>(resources.deployments, namespace, name)).status?.availableReplicas ?? 0) === replicas,
      timeoutMs,
      `deployment ${namespace}/${name} available (${replicas})`,
    );
  const owned = async <T extends Pod | ReplicaSet>(ref: ResourceRef<T>, name: string, namespace = NS) =>
    (await ctx.topo.api.client.list<T>(ref, { namespace, labelSelector: `app=${name}` })).items;
  /** Fails with every daemon's output, so a failure on a loaded machine says what each was doing. */
  const explain = (what: string) => `${what}\n${ctx.topo.processes().map((p) => `--- pid ${p.pid}\n${p.output().slice(-4000)}`).join('\n')}`;
  const leader = async (replicas: readonly Replica[], lock: string): Promise<Replica> => {
    let found: Replica | undefined;
    await eventually(async () => (found = await ctx.topo.leaderOf(replicas, lock)) !== undefined, 60_000, `a leader of ${lock}`);
    return found!;
  };

  return {
    daemonsRun: {
      title: 'every daemon runs: kubectl 1.35 lists 3 Ready nodes; one of each pair leads',
      async run() {
        const nodes = await kubectl(ctx.topo.adminConfig, ['get', 'nodes', '-o', 'name'], 30_000, { bin: KUBECTL_V35 });
        assert.is(nodes.code, 0, nodes.stderr);
        await eventually(async () => {
          const list = await ctx.topo.api.client.list(resources.nodes);
          return list.items.length === 3 && list.items.every((n) => (n['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
        }, 60_000, '3 simulated nodes Ready');
        // One of each pair leads; the other follows.
        const cm = await leader(ctx.topo.managers, CM_LOCK);
        await cm.process.waitFor(startedLeading, 30_000, 'the leading controller manager');
        assert.not.ok(ctx.topo.managers.find((m) => m !== cm)!.process.lines.some(startedLeading), 'one controller manager leads');
        await leader(ctx.topo.schedulers, SCHEDULER_LOCK);
      },
    },
    cronJobCreated: {
      title: 'a CronJob (batch/v1) is created; it fires while the rest runs',
      async run() {
        const cron: CronJob = {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'tick', namespace: NS },
          spec: {
            schedule: '@every 5s',
            jobTemplate: {
              metadata: { labels: { cron: 'tick' } },
              spec: { template: { metadata: { annotations: { 'sim.svc.io/run-seconds': '0.2' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'tick', image: 'busybox' }] } } },
            },
          },
        };
        await ctx.topo.api.client.create(resources.cronjobs, NS, cron);
      },
    },
    garbageCollectorSyncs: {
      title: 'the garbage collector syncs with the default Protobuf client, watching each kind once',
      async run() {
        const cm = await leader(ctx.topo.managers, CM_LOCK);
        const line = await cm.process.waitFor(synced, 60_000, 'the garbage collector synced');
        const watched = line['resources'] as string[];
        assert.equal(watched.filter((r, i) => watched.indexOf(r) !== i), [], 'no kind twice');
        assert.equal(watched.filter((r) => r.endsWith('.k8s.io')), [], 'aliased groups in our spelling only');
        for (const r of ['pods', 'replicasets.apps', 'deployments.apps', 'jobs.batch', 'leases.coordination.svc.io', 'certificatesigningrequests.certificates.svc.io', 'roles.rbac.authorization.svc.io']) {
          assert.ok(watched.includes(r), `the collector watches ${r}`);
        }
        for (const p of ctx.topo.processes()) assert.not.match(p.output(), 'cannot decode', explain(`pid ${p.pid} could not decode a response`));
        const insecure = new Agent({ connect: { rejectUnauthorized: false } });
        for (const m of ctx.topo.managers) {
          const r = await fetch(`https://127.0.0.1:${m.port}/healthz`, { dispatcher: insecure });
          assert.is(r.status, 200, await r.text());
        }
        await insecure.close();
      },
    },
    deploymentsRollOut: {
      title: 'Deployments roll out, and a namespace fills',
      async run() {
        await ctx.topo.api.client.create(resources.namespaces, '', { metadata: { name: 'doomed' } });
        await ctx.topo.api.client.create(resources.deployments, NS, deployment('bg', 3, NS));
        await ctx.topo.api.client.create(resources.deployments, NS, deployment('fg', 2, NS));
        await ctx.topo.api.client.create(resources.deployments, 'doomed', deployment('inner', 2, 'doomed'));
        await ctx.topo.api.client.create(resources.configmaps, 'doomed', { metadata: { name: 'settings' }, data: { a: '1' } });
        try {
          await Promise.all([available('bg', 3), available('fg', 2), available('inner', 2, 'doomed')]);
        } catch (e) {
          throw new Error(explain((e as Error).message));
        }
        assert.is((await owned(resources.replicasets, 'bg')).length, 1);
        assert.is((await owned(resources.pods, 'bg')).length, 3);
      },
    },
    deleting: {
      title: 'deleting: a Deployment in the background (kubectl 1.35), one in the foreground, a namespace; each takes what it holds',
      async run() {
        const startedAt = Date.now();
        const times: Record<string, number> = {};
        const timed = (what: string, check: () => Promise<boolean>) =>
          eventually(check, GONE_WITHIN_MS, what).then(() => void (times[what] = Date.now() - startedAt));
        const del = await kubectl(ctx.topo.adminConfig, ['-n', NS, 'delete', 'deployment', 'bg'], 30_000, { bin: KUBECTL_V35 });
        assert.is(del.code, 0, del.stderr);
        await ctx.topo.api.client.delete(resources.deployments, NS, 'fg', { propagationPolicy: 'Foreground' });
        const ns = await kubectl(ctx.topo.adminConfig, ['delete', 'namespace', 'doomed', '--wait=false'], 30_000, { bin: KUBECTL_V35 });
        assert.is(ns.code, 0, ns.stderr);
        // Foreground: the Deployment stays (with its finalizer) while what it owns goes.
        const fg = await ctx.topo.api.client.get<Deployment>(resources.deployments, NS, 'fg').catch(() => undefined);
        if (fg) assert.ok(fg.metadata.finalizers?.includes('foregroundDeletion'), 'a foreground deletion holds the foregroundDeletion finalizer');
        try {
          await Promise.all([
            timed('bg: ReplicaSets and pods gone', async () => (await owned(resources.replicasets, 'bg')).length === 0 && (await owned(resources.pods, 'bg')).length === 0),
            timed('fg: ReplicaSets, pods and then the Deployment gone', async () =>
              (await owned(resources.replicasets, 'fg')).length === 0 && (await owned(resources.pods, 'fg')).length === 0 && gone(() => ctx.topo.api.client.get(resources.deployments, NS, 'fg'))),
            timed('namespace doomed gone', () => gone(() => ctx.topo.api.client.get(resources.namespaces, '', 'doomed'))),
          ]);
        } catch (e) {
          throw new Error(explain(`${(e as Error).message} (so far: ${JSON.stringify(times)})`));
        }
        console.log(`  deletion times (ms): ${JSON.stringify(times)}`);
      },
    },
    jobCompletes: {
      title: 'a Job completes',
      async run() {
        const job: Job = {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'two', namespace: NS },
          spec: {
            completions: 2,
            parallelism: 2,
            template: { metadata: { annotations: { 'sim.svc.io/run-seconds': '0.5' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } },
          },
        };
        await ctx.topo.api.client.create(resources.jobs, NS, job);
        await eventually(async () => {
          const j = await ctx.topo.api.client.get<Job>(resources.jobs, NS, 'two');
          return (j.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True') && j.status?.succeeded === 2;
        }, 60_000, 'job two Complete');
      },
    },
    kubectl: {
      title: 'kubectl 1.35 against the separate daemons: create cronjob and service, expose, rollout undo, logs (-f), scale to 0, today\'s kinds',
      async run() {
        const KC = 'kc';
        const k = async (args: string[], timeoutMs = 60_000): Promise<string> => {
          const r = await kubectl(ctx.topo.adminConfig, ['-n', KC, ...args], timeoutMs, { bin: KUBECTL_V35 });
          assert.is(r.code, 0, explain(`kubectl ${args.join(' ')}: ${r.stderr}`));
          return r.stdout;
        };
        const inRange = (ip: string) => /^10\.0\.0\.\d{1,3}$/.test(ip);
        await ctx.topo.api.client.create(resources.namespaces, '', { metadata: { name: KC } });

        // batch/v1 CronJob, as manifests written today and kubectl create use.
        await k(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *']);
        assert.is(await k(['get', 'cronjob', 'nightly', '-o', 'jsonpath={.apiVersion}']), 'batch/v1');

        // Services get addresses from --service-cluster-ip-range (default 10.0.0.0/24).
        await k(['create', 'service', 'clusterip', 's', '--tcp=80:80']);
        const sIP = await k(['get', 'service', 's', '-o', 'jsonpath={.spec.clusterIP}']);
        assert.ok(inRange(sIP), `service s has an address in 10.0.0.0/24: ${sIP}`);

        // A Deployment, a new revision, and undo back to the first: its ReplicaSet is reused.
        await k(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
        await k(['rollout', 'status', 'deployment/web', '--timeout=90s'], 120_000);
        await k(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']);
        const webIP = await k(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}']);
        assert.ok(inRange(webIP) && webIP !== sIP, `service web has its own address: ${webIP}`);
        const replicaSets = async () => (await ctx.topo.api.client.list<ReplicaSet>(resources.replicasets, { namespace: KC, labelSelector: 'app=web' })).items.map((r) => r.metadata.name!).sort();
        const [first] = await replicaSets();
        await k(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
        await k(['rollout', 'status', 'deployment/web', '--timeout=90s'], 120_000);
        assert.is((await replicaSets()).length, 2);
        await k(['rollout', 'undo', 'deployment/web']);
        await k(['rollout', 'status', 'deployment/web', '--timeout=90s'], 120_000);
        const after = await replicaSets();
        assert.is(after.length, 2, `undo reuses the first revision's ReplicaSet: ${after.join(', ')}`);
        assert.ok(after.includes(first!), `the first ReplicaSet ${first} is still there`);
        const firstRs = await ctx.topo.api.client.get<ReplicaSet>(resources.replicasets, KC, first!);
        assert.is(firstRs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? firstRs.metadata.annotations?.['deployment.svc.io/revision'], '3');
        const history = await k(['rollout', 'history', 'deployment/web']);
        assert.match(history, /^2\s/m);
        assert.match(history, /^3\s/m);
        assert.not.match(history, /^1\s/m);

        // Logs through the apiserver from the svc nodes process's node-agent endpoint.
        await k(['run', 'talker', '--image=busybox', '--restart=Never', '--annotations=sim.svc.io/log=hello from talker', '--annotations=sim.svc.io/log-every-seconds=0.3']);
        await k(['wait', '--for=condition=Ready', 'pod/talker', '--timeout=60s'], 90_000);
        assert.match(await k(['logs', 'talker']), /^hello from talker$/m);
        const follow = kubectlStream(ctx.topo.adminConfig, ['-n', KC, 'logs', '-f', 'talker'], KUBECTL_V35);
        try {
          const ticks = () => (follow.output().match(/tick \d+/g) ?? []).length;
          const seen = ticks();
          await eventually(() => ticks() >= seen + 3, 20_000, `kubectl logs -f growing: ${follow.output()}`);
          assert.is(follow.child.exitCode, null, 'still following');
        } finally {
          follow.child.kill('SIGTERM');
        }

        // Scale to 0: the pods are gone within 5 s.
        const scaledAt = Date.now();
        await k(['scale', 'deployment/web', '--replicas=0']);
        await eventually(async () => (await owned(resources.pods, 'web', KC)).length === 0, 5_000, 'web\'s pods gone within 5 s of scale --replicas=0');
        console.log(`  scale --replicas=0: pods gone in ${Date.now() - scaledAt} ms`);

        // Today's kinds are served.
        const kinds = await kubectl(ctx.topo.adminConfig, ['-n', KC, 'get', 'ingress,networkpolicy,storageclass'], 30_000, { bin: KUBECTL_V35 });
        assert.is(kinds.code, 0, kinds.stderr);
        await k(['delete', 'namespace', KC, '--wait=false']);
      },
    },
    cronJobFired: {
      title: 'the CronJob fired: a Job it made completed',
      async run() {
        await eventually(async () => {
          const jobs = (await ctx.topo.api.client.list<Job>(resources.jobs, { namespace: NS, labelSelector: 'cron=tick' })).items;
          return jobs.some((j) => j.metadata.ownerReferences?.some((o) => o.kind === 'CronJob' && o.name === 'tick') && j.status?.conditions?.some((c) => c.type === 'Complete'));
        }, 60_000, 'a completed Job of CronJob tick');
        const cron = await ctx.topo.api.client.get<CronJob>(resources.cronjobs, NS, 'tick');
        assert.ok(cron.status?.lastScheduleTime, 'the CronJob records when it last fired');
        await ctx.topo.api.client.patch(resources.cronjobs, NS, 'tick', 'merge', { spec: { suspend: true } });
      },
    },
    leaderKilled: {
      title: 'kill -9 of the leading controller manager and scheduler: the other replicas take over, and a new Deployment becomes available',
      async run() {
        // Two replicas of each must be running to hand over: one that lost its lease under load (and
        // so exited 1) is started again first, as a supervisor would.
        const restarted = await ctx.topo.restartExited();
        if (restarted.length) console.log(`  restarted before the kill (a lease lost under load): ${restarted.join(', ')}`);
        const cm = await leader(ctx.topo.managers, CM_LOCK);
        const sched = await leader(ctx.topo.schedulers, SCHEDULER_LOCK);
        const cmNext = ctx.topo.managers.find((m) => m !== cm)!;
        const schedNext = ctx.topo.schedulers.find((s) => s !== sched)!;
        const killedAt = Date.now();
        cm.process.proc.kill('SIGKILL');
        sched.process.proc.kill('SIGKILL');
        await Promise.all([cm.process.exited, sched.process.exited]);
        await ctx.topo.api.client.create(resources.deployments, NS, deployment('after', 2, NS));
        try {
          await eventually(async () => (await ctx.topo.leaderOf(ctx.topo.managers, CM_LOCK)) === cmNext, TAKEOVER_WITHIN_MS, 'the other controller manager leading');
          await cmNext.process.waitFor(startedLeading, 10_000, 'the other controller manager\'s controllers started');
          await eventually(async () => (await ctx.topo.leaderOf(ctx.topo.schedulers, SCHEDULER_LOCK)) === schedNext, TAKEOVER_WITHIN_MS, 'the other scheduler leading');
          await available('after', 2);
          // The new leader's garbage collector syncs too, and deletes what the old leader's made.
          await cmNext.process.waitFor(synced, 60_000, 'the new leader\'s garbage collector synced');
        } catch (e) {
          throw new Error(explain((e as Error).message));
        }
        console.log(`  takeover and a new Deployment available ${Date.now() - killedAt} ms after kill -9`);
        await ctx.topo.api.client.delete(resources.deployments, NS, 'after');
        await eventually(async () => (await owned(resources.replicasets, 'after')).length === 0, 30_000, 'the new leader collects the ReplicaSet of a deleted Deployment');
      },
    },
  } satisfies Record<string, TopologyCheck>;
}

/** Runs the suite against the embedded store or a real etcd started for it. */
export function runOperatorsTopology(store: 'embedded' | 'etcd'): void {
  const test = suite(`operators' topology (${store})`);
  let etcd: RunningEtcd | undefined;
  const ctx = {} as CheckContext;
  const checks = topologyChecks(ctx);

  test.before(async () => {
    if (store === 'etcd') etcd = await startEtcd();
    ctx.topo = await startTopology(etcd ? { etcd } : {});
    await prepareChecks(ctx);
  });

  test.after(async () => {
    await ctx.topo?.stop();
    await etcd?.stop();
  });

  test('the apiserver writes an admin client configuration beside its certificate; every daemon runs from it with its defaults', async () => {
    assert.is(ctx.topo.adminConfig, join(ctx.topo.server.certDir, 'admin.svcconfig'));
    assert.match(ctx.topo.server.output(), '"msg":"admin client configuration written"');
    await checks.daemonsRun.run();
  });
  for (const check of [checks.cronJobCreated, checks.garbageCollectorSyncs, checks.deploymentsRollOut, checks.deleting, checks.jobCompletes, checks.kubectl, checks.cronJobFired, checks.leaderKilled]) {
    test(check.title, () => check.run());
  }

  test.run();
}
