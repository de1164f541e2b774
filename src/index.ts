/**
 * The package's public entry point (`import { ... } from 'svc'`): the client and informers, the
 * actor runtime for writing controllers, the built-in kinds' types, and the test cluster.
 */
export * from './client/index.js';
export * from './runtime/index.js';
export * from './testing/index.js';
export type * from './api/generated/kinds.js';
