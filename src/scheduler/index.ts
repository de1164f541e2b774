/** The scheduler (docs/scheduler.md): framework, plugins registry, queue, cache, the daemon's core. */
export * from './framework/index.js';
export { pluginRegistry, pluginRegistration, type PluginRegistration } from './plugins/registry.js';
export * from './config/types.js';
export { DEFAULT_PLUGINS, DEFAULT_SCHEDULER_NAME } from './config/default-plugins.js';
export { buildFramework, resolvePluginRefs, SchedulerConfigError } from './profile.js';
export { SchedulingQueue, type QueueLengths, type SchedulingQueueOptions } from './queue.js';
export { SchedulerCache } from './cache.js';
export { Scheduler, type BindingTask, type SchedulerOptions } from './scheduler.js';
export { ExplanationStore, type SchedulingAttempt, type NodeVerdictGroup, type NodeScoreDetail } from './explanations.js';
export { debugSchedulerHandler } from './debug-handler.js';
export { startScheduler, type RunningScheduler, type StartSchedulerOptions } from './start.js';
export { failedSchedulingMessage, numFeasibleNodesToFind, PodScheduler } from './schedule-one.js';
export { defaultConfiguration, DEFAULT_LOCK_NAME, DEFAULT_LOCK_NAMESPACE, DEFAULT_SECURE_PORT, DEFAULT_INSECURE_PORT } from './config/defaults.js';
