/**
 * The "Controller manager" section of docs/benchmarks.md (bench/measure-controllers.ts): a large
 * Deployment, its rolling update, many small Deployments, memory, and where the CPU went.
 */
import type { ControllersBenchFigures } from './measure-controllers.js';

export const CONTROLLERS_HEADING = '## Controller manager';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function renderControllersSection(f: ControllersBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const s = f.settings;
  const layers = Object.entries(f.layers)
    .sort((a, b) => b[1] - a[1])
    .map(([name, share]) => `| ${name} | ${pct(share)} |`)
    .join('\n');
  return `${CONTROLLERS_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-controllers.ts. One process, as \`svc up\` runs it: the API server on its embedded store, the deployment,
replicaset and garbage-collector controllers (default worker counts, in-process client with no rate limit), the
scheduler and ${n0(s.nodes)} simulated nodes (no simulated pull or start delay), each with its own in-process client.

| Case | Time |
|---|---|
| Deployment of ${n0(s.bigReplicas)} replicas: create -> \`Available\` condition | ${f.bigToAvailableConditionS.toFixed(1)} s |
| Deployment of ${n0(s.bigReplicas)} replicas: create -> all ${n0(s.bigReplicas)} available | ${f.bigToAllAvailableS.toFixed(1)} s (${n0(s.bigReplicas / f.bigToAllAvailableS)} pods/s) |
| Rolling update of it (new image, 25% surge / 25% unavailable) to completion | ${f.rollingUpdateS.toFixed(1)} s |
| ${n0(s.smallDeployments)} Deployments x ${s.smallReplicas} replicas created at once -> all fully available | ${f.smallAllAvailableS.toFixed(1)} s |

Process RSS at the end (everything above, in one process): ${n0(f.rssMiB)} MiB.

Reference points: the established scheduler-bound pod startup SLO is p99 ≤ 5 s per pod; the established controller
manager's default client limit of 20 QPS alone makes 1,000 pods take about 50 s (one create each). Ours talks to the
server in process without a client limit here; the standalone \`controller-manager\` keeps the established 20 QPS /
30 burst defaults (\`--svc-api-qps\`), which would bound these cases the same way.

Where the process's busy CPU time went during the three cases (V8 sampling profile, self time per file, grouped):

| Layer | Share of busy CPU |
|---|---|
${layers}

Of the time in the controller machine, queue and runtime plus the controllers' own logic (with the reconcile helpers of
src/runtime they call: adoption, conditions, create-or-update, finalizers), the machine/queue/runtime layer took **${pct(f.frameworkShareOfControllerTime)}** (xstate itself, shared by every machine in the process, is listed apart).
The controllers' lifecycle evaluation (each reconcile evaluating its lifecycle machine on the observed facts and
recording the object's state: machines/lifecycles/, src/runtime/lifecycle*, the controllers' \`*Facts\` functions, with
the xstate transition they call; inclusive time) took **${n0(f.lifecycleMs)} ms**, against ${n0(f.controllerSideWithoutLifecycleMs)} ms for
the rest of the controller side (machine, queue, runtime and the controllers' own code): **${pct(f.controllerSideWithoutLifecycleMs > 0 ? f.lifecycleMs / f.controllerSideWithoutLifecycleMs : 0)}
more** controller-side CPU than without it (goal ≤ 10%).
What limits these times is the one busy core the whole cluster shares: the API server's writes (each pod is a create,
a binding, two or three status writes and its ReplicaSet's status updates) and the scheduler's cycles over the nodes
come first; the controllers and their machines are a small part.
`;
}
