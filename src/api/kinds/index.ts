/** Every built-in kind's definition, plus the building blocks kinds share. */
export * from './define.js';
export * from './schema-dsl.js';
export * from './workload.js';
export * from './watch-cache-sizes.js';
export * from './core/index.js';
export * from './apps/index.js';
export * from './batch/index.js';
export * from './coordination/lease.js';
export * from './discovery/endpointslice.js';
export * from './policy/poddisruptionbudget.js';
export * from './autoscaling/horizontalpodautoscaler.js';
export * from './rbac/roles.js';
export * from './certificates/certificatesigningrequest.js';
export * from './apiextensions/customresourcedefinition.js';
export * from './columns/core.js';
export * from './columns/workloads.js';
export { column, CREATED_DESCRIPTION, humanDuration, NAME_DESCRIPTION } from './columns/cells.js';
