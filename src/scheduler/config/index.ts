/** The scheduler's configuration: file format, defaults, loading, legacy policy translation. */
export * from './types.js';
export * from './defaults.js';
export * from './default-plugins.js';
export * from './load.js';
export * from './legacy-policy.js';
export { SchedulerConfigError } from '../profile.js';
