/**
 * Machines under stable names, for `svc charts` and docs/charts/: the project's own (add a machine
 * here when machines/ gains one) and those a user module exports (state machines, and
 * `defineController` definitions, which carry the machine they run as `.machine`).
 */
import type { AnyStateMachine } from 'xstate';
import { controllerMachine, leaderElectionMachine, nodeAgentMachine, schedulerMachine, workerMachine } from '../../../machines/index.js';
import { podLifecycle } from '../../../machines/lifecycles/pod.js';
import { type ChartModel, chartModel, isStateMachine } from './chart-model.js';
import { combineCharts } from './combined-chart.js';
import { lifecycleChartModel } from './lifecycle-chart.js';
import { type ControllerChartSpec, controllerChartModel } from './controller-chart.js';

export interface NamedMachine {
  /** File-name-safe and stable: the chart files are `<name>.mmd`, `<name>.svg` ... */
  name: string;
  machine: AnyStateMachine;
  /** One line for listings. */
  description: string;
  /** The chart to draw instead of the machine's own (a controller's, from its definition). */
  model?: ChartModel;
}

export function projectMachines(): NamedMachine[] {
  return [
    { name: 'leader-election', machine: leaderElectionMachine, description: 'leader election: acquiring, follower, leader (holding/renewing), lost' },
    { name: 'controller', machine: controllerMachine, description: 'a controller: waiting for leadership, syncing caches, running with resync, stopping' },
    { name: 'worker', machine: workerMachine, description: 'one worker of a controller: takes a key, reconciles it, settles the outcome' },
    { name: 'scheduler', machine: schedulerMachine, description: 'the scheduler: waiting for leadership, syncing caches, scheduling (cycles, bindings, back-off and leftover flushes), stopping' },
    {
      name: 'node-agent',
      machine: nodeAgentMachine,
      description: 'a simulated node: registering, up (ready/notReady, lease and status heartbeats), silent, crashed, stopped; each pod it runs: waiting (volumes, initializing, creating), running (starting, ready), restarting (CrashLoopBackOff), terminated (succeeded, failed)',
      // The node's machine next to the lifecycle of each pod it runs (its containers' states); the
      // regions' root is named as the machine's id (state ids in the SVG carry no escaped hyphen).
      model: { ...combineCharts('nodeAgent', [
        { key: 'pods', description: 'each pod it runs: the state its status shows', model: lifecycleChartModel(podLifecycle) },
        { key: 'agent', description: 'the node: registration, heartbeats and faults', model: chartModel(nodeAgentMachine, 'node-agent') },
      ]), name: 'node-agent' },
    },
  ];
}

function isControllerDefinition(v: unknown): v is { name: string; machine: AnyStateMachine; spec?: ControllerChartSpec } {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && isStateMachine((v as { machine?: unknown }).machine);
}

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'machine';

/**
 * The machines a module's exports hold, in export order: a definition is named by its `name`, a
 * machine by its id (or `<export>` when two would share a name); a value exported under several
 * names counts once.
 */
export function machinesOfModule(exports: Record<string, unknown>, source: string): NamedMachine[] {
  const out: NamedMachine[] = [];
  const taken = new Set<string>();
  const seen = new Set<unknown>(); // one value exported twice (named and default) is one chart
  for (const [exportName, value] of Object.entries(exports)) {
    if (seen.has(value)) continue;
    seen.add(value);
    let name: string;
    let machine: AnyStateMachine;
    let description: string;
    let model: ChartModel | undefined;
    if (isControllerDefinition(value)) {
      name = value.name;
      machine = value.machine;
      description = `controller "${value.name}" (${source}, export ${exportName})`;
      if (value.spec?.watches) model = controllerChartModel(value.spec);
    } else if (isStateMachine(value)) {
      name = value.id;
      machine = value;
      description = `machine "${value.id}" (${source}, export ${exportName})`;
    } else {
      continue;
    }
    name = fileSafe(name);
    if (taken.has(name)) name = fileSafe(`${name}-${exportName}`);
    taken.add(name);
    out.push({ name, machine, description, ...(model ? { model: { ...model, name } } : {}) });
  }
  return out;
}
