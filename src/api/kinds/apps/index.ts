export * from './deployment.js';
export * from './replicaset.js';
export * from './statefulset.js';
export * from './daemonset.js';
export * from './controllerrevision.js';
