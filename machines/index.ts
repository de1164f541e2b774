/** Every machine of the project (for hosts, charts and /debug/machines). */
export {
  controllerMachine, DEFAULT_CACHE_SYNC_TIMEOUT_MS, DEFAULT_MIN_RESYNC_PERIOD_MS,
  type ControllerActor, type ControllerEvent, type ControllerMachineInput, type ControllerSource,
} from './controller.js';
export {
  leaderElectionMachine,
  type LeaderElectionActor, type LeaderElectionCallbacks, type LeaderElectionEvent, type LeaderElectionInput, type StoppedLeadingReason,
} from './leader-election.js';
export { runReconcile, settle, workerMachine, workLoop, type ReconcileFunction, type WorkerInput, type WorkerStats } from './worker.js';
export {
  schedulerMachine,
  type BindingWork, type CycleResult, type Scheduler, type SchedulerActor, type SchedulerEvent, type SchedulerMachineInput,
} from './scheduler.js';
export { nodeAgentMachine, type NodeAgentActor, type NodeAgentEvent, type NodeAgentHooks, type NodeAgentInput, type NodeAgentTimings } from './node-agent.js';
