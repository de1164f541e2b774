/**
 * The "Node failure" section of docs/benchmarks.md (bench/measure-nodelifecycle.ts): from a node's
 * last heartbeat to its pods running elsewhere, against the goal grace period + toleration + 5 s.
 */
import type { NodeLifecycleBenchFigures } from './measure-nodelifecycle.js';

export const NODELIFECYCLE_HEADING = '## Node failure (nodelifecycle)';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const s1 = (x: number) => `${x.toFixed(1)} s`;

export function renderNodeLifecycleSection(f: NodeLifecycleBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const goal = s.gracePeriodS + s.tolerationS + 5;
  const scaled =
    s.nodes !== 1_000 || s.pods !== 30_000
      ? ` Scaled down from the issue's 1,000 nodes and 30,000 pods (BENCH_NODELIFECYCLE_NODES / _PODS): at the pod start rate this machine
managed under that load, setting up 30,000 pods alone would have taken about ${n0((30_000 / (s.pods / f.setupS)) / 60)} minutes.`
      : '';
  return `${NODELIFECYCLE_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-nodelifecycle.ts. One process, as \`svc up\` runs it: the API server (TaintNodesByCondition and
DefaultTolerationSeconds on), the nodelifecycle and replicaset controllers, the scheduler and ${n0(s.nodes)} simulated
nodes (Lease renewed every ${s.leaseRenewS} s), ${n0(s.pods)} pods in ReplicaSets of 100 tolerating
\`node.svc.io/unreachable:NoExecute\` for ${s.tolerationS} s; \`--node-monitor-period=${s.monitorPeriodS}s\`,
\`--node-monitor-grace-period=${s.gracePeriodS}s\`, \`--node-eviction-rate=0.1\`. Setting it up (every pod running) took
${s1(f.setupS)}. Then one node (${n0(f.victimPods)} pods) stops its heartbeats; times from its last heartbeat:

| Step | Time after the last heartbeat |
|---|---|
| Ready \`Unknown\` (NodeStatusUnknown) | ${s1(f.toUnknownS)} |
| \`node.svc.io/unreachable:NoExecute\` taint | ${s1(f.toNoExecuteTaintS)} |
| its pods deleted by the taint manager | ${s1(f.toPodsDeletedS)} |
| the ReplicaSets' first / last replacement pod created | ${s1(f.firstReplacementCreatedS)} / ${s1(f.lastReplacementCreatedS)} |
| the last replacement bound to a node | ${s1(f.lastReplacementScheduledS)} |
| every affected ReplicaSet running its full count on other nodes | ${s1(f.toReplacedS)} |

Each time is taken from watches of the node and of the pods, when the change arrives.

Goal: grace period + toleration + ≤ 5 s = ${s1(goal)}; measured ${s1(f.toReplacedS)}, i.e. ${s1(f.overheadS)} beyond grace
period + toleration (${f.toReplacedS <= goal ? 'met' : 'not met'}). Where it goes: the monitor period twice (a silent node is
noticed at the first pass after the grace period, and tainted at the next, as established: ${s1(f.toNoExecuteTaintS - s.gracePeriodS)} from the end of the
grace period to the taint); ${s1(f.toPodsDeletedS - f.toNoExecuteTaintS - s.tolerationS)} from the end of the toleration to the last pod deleted (every due pod
of the node deleted at once: the established taint manager fires each pod's eviction on its own timer); the ReplicaSets'
re-creates, ${s1(f.lastReplacementCreatedS - f.firstReplacementCreatedS)} from the first replacement created to the last (each affected ReplicaSet's sync is a create and
a status write in a row, on the established 5 workers of \`--concurrent-replicaset-syncs\`); then ${s1(f.toReplacedS - f.lastReplacementCreatedS)} for the last
replacement to be scheduled and running (the simulated nodes start it at once here). The controllers, the scheduler and
the nodes share the one process; from the end of the toleration on it is CPU-bound (a profile of that window,
\`BENCH_NODELIFECYCLE_PROFILE=<file>\`, shows it busy throughout: the API server's writes and watch fan-out, the informers,
the scheduler), so every step after the taint stretches with the machine's load (load average at start
${run.loadAtStart.toFixed(1)}, on two cores).${scaled}
Process RSS at the end: ${n0(f.rssMiB)} MiB.
`;
}
