/** The scheduler (docs/scheduler.md): framework, plugins registry, queue, cache, the daemon's core. */
export * from './framework/index.js';
export { pluginRegistry, pluginRegistration, type PluginRegistration } from './plugins/registry.js';
export * from './config/index.js';
export { buildFramework, resolvePluginRefs } from './profile.js';
export { SchedulingQueue, type QueueLengths, type SchedulingQueueOptions } from './queue.js';
export { SchedulerCache } from './cache.js';
export { Scheduler, type BindingTask, type SchedulerOptions } from './scheduler.js';
export { ExplanationStore, type SchedulingAttempt, type NodeVerdictGroup, type NodeScoreDetail } from './explanations.js';
export { DEBUG_SCHEDULER_PREFIX, debugSchedulerHandler, PENDING_PODS_PANEL } from './debug-handler.js';
export { startScheduler, type RunningScheduler, type StartSchedulerOptions } from './start.js';
export { failedSchedulingMessage, numFeasibleNodesToFind, PodScheduler } from './schedule-one.js';
