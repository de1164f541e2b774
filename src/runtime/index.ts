/** The actor runtime: work queues, controllers, Events, leader election (docs/runtime.md). */
export { systemClock, type Clock } from './clock.js';
// Keys are the client's (one home, src/client/object-keys.ts); controllers split them back often.
export { splitKey } from '../client/object-keys.js';
export { getCondition, isConditionTrue, removeCondition, sameConditions, setCondition, type ConditionInput } from './conditions.js';
export {
  ControllerActivity, type ControllerActivityFacts, type ControllerActivityOptions, type ReconcileRecord, type SourceFacts, type SourceRole,
} from './controller-activity.js';
export { controllerClusterRole, controllerPolicyRules, type PermissionSource, type PolicyRule } from './controller-permissions.js';
export { createOrUpdate, type CreateOrUpdateResult } from './create-or-update.js';
export { addFinalizer, finalize, hasFinalizer, removeFinalizer, type FinalizeStep } from './finalizers.js';
export { claim, controllerRefOf, controllerRefTo, type Claimed } from './owner-references.js';
export {
  controllerOwnerKeys, defineController, reconcileLifecycle, runControllerMachine,
  type ControllerDefinition, type ReconcileLifecycle, type ControllerEnd, type ControllerTrigger, type ControllerHost, type ControllerMachineParts, type ControllerSpec, type ReconcileContext, type RunningController,
} from './define-controller.js';
export {
  defineLifecycle, evaluateLifecycle, leafPath, lifecycleStates, restingStates, type LifecycleDefinition, type LifecycleState, type LifecycleStateMeta, type ObservedEvent,
} from './lifecycle.js';
export {
  LifecycleTracker, type LifecycleFacts, type LifecycleObjectFacts, type LifecycleTrackerOptions, type LifecycleTransition,
} from './lifecycle-tracker.js';
export { EventRecorder, type EventRecorderOptions, type EventType, type RecordOutcome } from './event-recorder.js';
export * from './inspection/index.js';
export * from './leader-election/index.js';
export { workQueueMetrics, type WorkQueueMetrics } from './metrics.js';
export { done, requeue, requeueAfter, TerminalError, type ReconcileOutcome, type ReconcileResult } from './outcome.js';
export {
  defaultControllerRateLimiter, ExponentialBackoffRateLimiter, MaxOfRateLimiter, TokenBucketRateLimiter, type RateLimiter,
} from './rate-limiters.js';
export { apiVersionOf, CONFIGMAPS, ENDPOINTS, EVENTS, LEASES } from './resource-refs.js';
export { WorkQueue, type WorkQueueOptions } from './work-queue.js';
// The machines a controller of one's own is built from (docs/writing-controllers.md, "Full control").
export {
  controllerMachine, type ControllerActor, type ControllerEvent, type ControllerMachineInput, type ControllerSource,
} from '../../machines/controller.js';
export { leaderElectionMachine, type LeaderElectionActor } from '../../machines/leader-election.js';
export { workerMachine, type ReconcileFunction, type WorkerInput, type WorkerStats } from '../../machines/worker.js';
