/**
 * The node-failure benchmark (BENCH_ONLY=nodelifecycle): a whole cluster in one process, as
 * `svc up` runs it (the API server on its embedded store with TaintNodesByCondition and
 * DefaultTolerationSeconds, the nodelifecycle and replicaset controllers, the scheduler and
 * `nodes` simulated nodes), `pods` pods in ReplicaSets of 100 whose pods tolerate
 * `node.svc.io/unreachable` for `tolerationSeconds`. Then one node's heartbeats stop (the
 * `sim.svc.io/faults` annotation) and the bench times, from that node's last heartbeat (the later
 * of its Lease's renewTime and its Ready heartbeat), until its Ready is Unknown, until it carries
 * the unreachable NoExecute taint, until its pods are all deleted, and until every ReplicaSet that
 * had a pod there runs its full count elsewhere. Goal: grace period + toleration + ≤ 5 s.
 *
 * Scale by environment: BENCH_NODELIFECYCLE_NODES (default 1,000), BENCH_NODELIFECYCLE_PODS
 * (default 30,000), BENCH_NODELIFECYCLE_GRACE_S (--node-monitor-grace-period, default 40 as established),
 * BENCH_NODELIFECYCLE_TOLERATION_S (default 10). BENCH_NODELIFECYCLE_PROFILE=<file>: a CPU profile of this
 * process from the NoExecute taint to the last replacement running (the eviction and re-creation window).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Lease, Node, Pod, ReplicaSet } from '../src/api/generated/kinds.js';
import { resources } from '../src/client/index.js';
import { startTestCluster } from '../src/testing/index.js';

export interface NodeLifecycleBenchSettings {
  nodes: number;
  pods: number;
  gracePeriodS: number;
  monitorPeriodS: number;
  leaseRenewS: number;
  tolerationS: number;
}

export interface NodeLifecycleBenchFigures {
  settings: NodeLifecycleBenchSettings;
  /** Time to get every pod running at the start (s). */
  setupS: number;
  /** Pods on the failed node. */
  victimPods: number;
  /** From its last heartbeat (s). */
  toUnknownS: number;
  toNoExecuteTaintS: number;
  toPodsDeletedS: number;
  /** The ReplicaSets' first and last replacement pod created, the last one bound to a node. */
  firstReplacementCreatedS: number;
  lastReplacementCreatedS: number;
  lastReplacementScheduledS: number;
  toReplacedS: number;
  /** toReplacedS - grace - toleration: the part the goal bounds by 5 s. */
  overheadS: number;
  rssMiB: number;
}

const RS_SIZE = 100;

export function nodeLifecycleSettingsFromEnv(): NodeLifecycleBenchSettings {
  const num = (name: string, d: number) => {
    const v = Number(process.env[name]);
    return Number.isFinite(v) && v > 0 ? v : d;
  };
  return { nodes: num('BENCH_NODELIFECYCLE_NODES', 1_000), pods: num('BENCH_NODELIFECYCLE_PODS', 30_000), gracePeriodS: num('BENCH_NODELIFECYCLE_GRACE_S', 40), monitorPeriodS: 1, leaseRenewS: 10, tolerationS: num('BENCH_NODELIFECYCLE_TOLERATION_S', 10) };
}

function replicaSet(name: string, replicas: number, tolerationS: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 0,
          tolerations: [{ key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: tolerationS }],
          containers: [{ name: 'c', image: 'app:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
        },
      },
    },
  };
}

export async function measureNodeLifecycle(s: NodeLifecycleBenchSettings, log: (m: string) => void): Promise<NodeLifecycleBenchFigures> {
  const cluster = await startTestCluster({
    controllers: ['nodelifecycle', 'replicaset'],
    nodes: s.nodes,
    nodeShape: { cpu: '64', memory: '256Gi', pods: '110' },
    nodeTimings: { imagePullMs: 0, containerStartMs: 0, leaseRenewMs: s.leaseRenewS * 1000, statusReportMs: 60_000 },
    controllerConfig: { nodeMonitorPeriodMs: s.monitorPeriodS * 1000, nodeMonitorGracePeriodMs: s.gracePeriodS * 1000, nodeStartupGracePeriodMs: 5 * 60_000, nodeEvictionRate: 0.1 },
  });
  const { client } = cluster;
  const poll = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
    for (const end = performance.now() + timeoutMs; !(await check()); ) {
      if (performance.now() > end) throw new Error(`nodelifecycle bench: ${what} not reached in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const running = (p: Pod) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp;
  try {
    let t = performance.now();
    log(`nodelifecycle: ${s.nodes} nodes Ready and untainted`);
    await poll(async () => {
      const nodes = (await client.list<Node>(resources.nodes)).items;
      return nodes.length === s.nodes && nodes.every((n) => !(n.spec?.taints ?? []).length && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    }, 600_000, 'nodes ready');
    const sets = Math.ceil(s.pods / RS_SIZE);
    log(`nodelifecycle: ${sets} ReplicaSets, ${s.pods} pods`);
    for (let i = 0; i < sets; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, sets - i) }, (_, j) => client.create(resources.replicasets, 'default', replicaSet(`rs-${i + j}`, Math.min(RS_SIZE, s.pods - (i + j) * RS_SIZE), s.tolerationS))));
    }
    let lastLog = 0;
    await poll(async () => {
      const sets = (await client.list<ReplicaSet>(resources.replicasets, { namespace: 'default' })).items;
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        const nodes = (await client.list<Node>(resources.nodes)).items;
        const notReady = nodes.filter((n) => !n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
        log(`nodelifecycle: ${sets.reduce((a, rs) => a + (rs.status?.readyReplicas ?? 0), 0)} pods ready; ${notReady} nodes not Ready`);
      }
      return sets.every((rs) => rs.status?.readyReplicas === rs.spec?.replicas);
    }, 1_800_000, 'all pods running');
    const setupS = (performance.now() - t) / 1000;
    log(`nodelifecycle: all running after ${setupS.toFixed(1)} s`);

    const pods = (await client.list<Pod>(resources.pods, { namespace: 'default' })).items;
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) if (p.spec?.nodeName) byNode.set(p.spec.nodeName, [...(byNode.get(p.spec.nodeName) ?? []), p]);
    const [victim, onVictim] = [...byNode].sort((a, b) => b[1].length - a[1].length)[0]!;
    const names = new Set(onVictim.map((p) => p.metadata.name));
    const affected = [...new Set(onVictim.map((p) => p.metadata.labels?.['app'] ?? ''))];
    log(`nodelifecycle: stopping ${victim} (${onVictim.length} pods of ${affected.length} ReplicaSets)`);
    await client.patch(resources.nodes, '', victim, 'merge', { metadata: { annotations: { 'sim.svc.io/faults': 'stop-heartbeats' } } });
    await new Promise((r) => setTimeout(r, 500));
    const lease = await client.get<Lease>(resources.leases, 'svc-node-lease', victim);
    const node = await client.get<Node>(resources.nodes, '', victim);
    const lastBeat = Math.max(Date.parse((lease.spec as { renewTime?: string }).renewTime ?? ''), Date.parse(node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime ?? '') || 0);
    const since = () => (Date.now() - lastBeat) / 1000;
    // Every step is timed by watches (a poll would add its own interval, and its lists their cost,
    // to each figure): the victim node, and the pods of the affected ReplicaSets.
    let toUnknownS = 0;
    let toNoExecuteTaintS = 0;
    let toPodsDeletedS = 0;
    let firstReplacementCreatedS = 0;
    let lastReplacementCreatedS = 0;
    let lastReplacementScheduledS = 0;
    let toReplacedS = 0;
    const affectedSet = new Set(affected);
    const want = (app: string) => Math.min(RS_SIZE, s.pods - Number(app.slice(3)) * RS_SIZE);
    /** The affected ReplicaSets' pods as last seen (name -> pod). */
    const seen = new Map<string, Pod>();
    for (const p of pods) if (affectedSet.has(p.metadata.labels?.['app'] ?? '')) seen.set(p.metadata.name ?? '', p);
    const victimLeft = new Set(names);
    let settle: () => void = () => undefined;
    const replaced = new Promise<void>((resolve) => (settle = resolve));
    // Running pods elsewhere per affected ReplicaSet, kept up to date event by event: a recount of
    // every seen pod on each event cost this process ~10% of its CPU in the eviction window (2,000
    // pods at this scale, more at 30,000), time the cluster under test did not get.
    const runningBy = new Map<string, number>();
    const countsAsRunning = (p: Pod | undefined) => p !== undefined && running(p) && p.spec?.nodeName !== victim;
    const recount = (before: Pod | undefined, after: Pod | undefined) => {
      const delta = (countsAsRunning(after) ? 1 : 0) - (countsAsRunning(before) ? 1 : 0);
      if (delta === 0) return;
      const app = (after ?? before)!.metadata.labels?.['app'] ?? '';
      runningBy.set(app, (runningBy.get(app) ?? 0) + delta);
    };
    for (const p of seen.values()) recount(undefined, p);
    const check = () => {
      if (!toPodsDeletedS && victimLeft.size === 0) toPodsDeletedS = since();
      if (!toPodsDeletedS) return;
      if (affected.every((app) => (runningBy.get(app) ?? 0) >= want(app))) {
        toReplacedS = since();
        settle();
      }
    };
    const profileFile = process.env['BENCH_NODELIFECYCLE_PROFILE'];
    const session = profileFile ? new Session() : undefined;
    // Sampling every 1 ms from the taint on: the toleration's wait is idle, the rest is the eviction.
    async function startProfile(): Promise<void> {
      session!.connect();
      await session!.post('Profiler.enable');
      await session!.post('Profiler.setSamplingInterval', { interval: 1000 });
      await session!.post('Profiler.start');
    }
    const podWatch = client.watch<Pod>(resources.pods, { namespace: 'default' }).subscribe({
      next: (ev) => {
        const p = ev.object;
        const name = p.metadata.name ?? '';
        if (!affectedSet.has(p.metadata.labels?.['app'] ?? '')) return;
        recount(seen.get(name), ev.type === 'DELETED' ? undefined : p);
        if (ev.type === 'DELETED') {
          seen.delete(name);
          victimLeft.delete(name);
        } else {
          if (!seen.has(name) && !names.has(name)) {
            // A replacement.
            firstReplacementCreatedS ||= since();
            lastReplacementCreatedS = since();
          }
          if (!names.has(name) && p.spec?.nodeName && !seen.get(name)?.spec?.nodeName) lastReplacementScheduledS = since();
          seen.set(name, p);
          if (p.metadata.deletionTimestamp) victimLeft.delete(name);
        }
        check();
      },
    });
    const nodeWatch = client.watch<Node>(resources.nodes, { fieldSelector: `metadata.name=${victim}` }).subscribe({
      next: (ev) => {
        const n = ev.object;
        if (!toUnknownS && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown')) toUnknownS = since();
        if (!toNoExecuteTaintS && (n.spec?.taints ?? []).some((x) => x.key === 'node.svc.io/unreachable' && x.effect === 'NoExecute')) {
          toNoExecuteTaintS = since();
          if (profileFile) void startProfile();
        }
      },
    });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('nodelifecycle bench: pods not replaced in 600 s')), 600_000).unref());
    try {
      await Promise.race([replaced, timeout]);
    } finally {
      podWatch.unsubscribe();
      nodeWatch.unsubscribe();
      if (session && profileFile && toNoExecuteTaintS) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(profileFile, JSON.stringify(profile));
        session.disconnect();
        log(`nodelifecycle: CPU profile of the eviction window in ${profileFile}`);
      }
    }
    log(`nodelifecycle: Unknown ${toUnknownS.toFixed(1)} s, NoExecute ${toNoExecuteTaintS.toFixed(1)} s, deleted ${toPodsDeletedS.toFixed(1)} s, replacements created ${firstReplacementCreatedS.toFixed(1)}-${lastReplacementCreatedS.toFixed(1)} s, scheduled by ${lastReplacementScheduledS.toFixed(1)} s, replaced ${toReplacedS.toFixed(1)} s after the last heartbeat`);
    return {
      settings: s,
      setupS,
      victimPods: onVictim.length,
      toUnknownS,
      toNoExecuteTaintS,
      toPodsDeletedS,
      firstReplacementCreatedS,
      lastReplacementCreatedS,
      lastReplacementScheduledS,
      toReplacedS,
      overheadS: toReplacedS - s.gracePeriodS - s.tolerationS,
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
  } finally {
    await cluster.stop();
  }
}
