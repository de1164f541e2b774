/** Command-line plumbing shared by the daemons: flag types, common flags, logging, TLS, profiling, and the controller host of `svc run` / `svc up`. */
export * from './flag-types.js';
export * from './option-table.js';
export * from './common-options.js';
export * from './logging.js';
export * from './feature-gates.js';
export * from './tls.js';
export * from './profiling.js';
export * from './version.js';
export * from './program.js';
export * from './apiserver-options.js';
export * from './controller-host-options.js';
export * from './controller-modules.js';
export * from './hosted-controllers.js';
export * from './component-server.js';
