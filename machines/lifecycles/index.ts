/**
 * The one list of the built-in controllers' lifecycles (the phases of the objects each manages):
 * `svc charts <controller>`, docs/charts/ and the coverage tests read it. A controller whose spec
 * names a lifecycle has it here.
 */
import type { LifecycleDefinition } from '../../src/runtime/lifecycle.js';
import { cronJobLifecycle } from './cronjob.js';
import { deploymentLifecycle } from './deployment.js';
import { jobLifecycle } from './job.js';

export const LIFECYCLES: readonly LifecycleDefinition[] = [
  deploymentLifecycle as LifecycleDefinition,
  jobLifecycle as LifecycleDefinition,
  cronJobLifecycle as LifecycleDefinition,
];

export { deploymentLifecycle, type DeploymentFacts } from './deployment.js';
export { jobLifecycle, type JobFacts } from './job.js';
export { cronJobLifecycle, type CronJobFacts } from './cronjob.js';
