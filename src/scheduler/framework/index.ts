/** The scheduling framework: extension-point interfaces, node and pod infos, verdicts (docs/scheduler.md). */
export * from './cycle-state.js';
export * from './framework.js';
export * from './interfaces.js';
export * from './node-info.js';
export * from './objects.js';
export * from './pod-info.js';
export * from './resources.js';
export * from './snapshot.js';
export * from './status.js';
export * from './normalize.js';
export { compileTerm, compileTerms, type NodeMatcher } from '../../api/node-selection.js';
