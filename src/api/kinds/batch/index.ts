export * from './job.js';
export * from './cronjob.js';
