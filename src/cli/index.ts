/** Command-line plumbing shared by the four daemons: flag types, common flags, logging, TLS, profiling. */
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
