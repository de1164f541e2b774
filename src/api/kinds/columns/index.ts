/** Table columns of the built-in kinds, and the helpers to declare more. */
export * from './cells.js';
export * from './core.js';
export * from './workloads.js';
export * from './networking.js';
export * from './scaling.js';
export * from './policy.js';
