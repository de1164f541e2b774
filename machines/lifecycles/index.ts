/**
 * The one list of the built-in controllers' lifecycles (the phases of the objects each manages):
 * `svc charts <controller>`, docs/charts/ and the coverage tests read it. A controller whose spec
 * names a lifecycle has it here.
 */
import type { LifecycleDefinition } from '../../src/runtime/lifecycle.js';
import { cronJobLifecycle } from './cronjob.js';
import { daemonSetLifecycle } from './daemonset.js';
import { deploymentLifecycle } from './deployment.js';
import { garbageCollectorLifecycle } from './garbagecollector.js';
import { jobLifecycle } from './job.js';
import { namespaceLifecycle } from './namespace.js';
import { nodeLifecycle } from './nodelifecycle.js';
import { replicaSetLifecycle, replicationControllerLifecycle } from './replicaset.js';
import { statefulSetLifecycle } from './statefulset.js';

export const LIFECYCLES: readonly LifecycleDefinition[] = [
  deploymentLifecycle as LifecycleDefinition,
  replicaSetLifecycle as LifecycleDefinition,
  replicationControllerLifecycle as LifecycleDefinition,
  statefulSetLifecycle as LifecycleDefinition,
  daemonSetLifecycle as LifecycleDefinition,
  jobLifecycle as LifecycleDefinition,
  cronJobLifecycle as LifecycleDefinition,
  namespaceLifecycle as LifecycleDefinition,
  garbageCollectorLifecycle as LifecycleDefinition,
  nodeLifecycle as LifecycleDefinition,
];

export { deploymentLifecycle, type DeploymentFacts } from './deployment.js';
export { replicaSetLifecycle, replicationControllerLifecycle, type ReplicaSetFacts } from './replicaset.js';
export { statefulSetLifecycle, type StatefulSetFacts } from './statefulset.js';
export { daemonSetLifecycle, type DaemonSetFacts } from './daemonset.js';
export { jobLifecycle, type JobFacts } from './job.js';
export { cronJobLifecycle, type CronJobFacts } from './cronjob.js';
export { namespaceLifecycle, type NamespaceFacts } from './namespace.js';
export { garbageCollectorLifecycle, type GarbageFacts } from './garbagecollector.js';
export { nodeLifecycle, type NodeFacts } from './nodelifecycle.js';
// Not a controller's: the simulated pod's lifecycle, evaluated by the node agent (src/nodes/sim-pod.ts)
// and drawn with the node agent's chart (src/runtime/inspection/project-machines.ts).
export { podLifecycle, type PodFacts } from './pod.js';
