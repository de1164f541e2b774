/**
 * The effective configuration when neither file nor flags say otherwise: the established
 * defaults (one profile `default-scheduler` with the default plugins, adaptive
 * percentageOfNodesToScore, back-off 1 s to 10 s, leader election on a `leases`-style lock named
 * `svc-scheduler` in `svc-system`, client QPS 50 / burst 100, Protobuf).
 */
import { DEFAULT_SCHEDULER_NAME } from './default-plugins.js';
import { CONFIG_API_VERSION, CONFIG_KIND, type SchedulerConfiguration } from './types.js';

export const DEFAULT_LOCK_NAME = 'svc-scheduler';
export const DEFAULT_LOCK_NAMESPACE = 'svc-system';
export const DEFAULT_SECURE_PORT = 10259;
export const DEFAULT_INSECURE_PORT = 10251;

export function defaultConfiguration(): SchedulerConfiguration {
  return {
    apiVersion: CONFIG_API_VERSION,
    kind: CONFIG_KIND,
    parallelism: 16,
    leaderElection: {
      leaderElect: true,
      leaseDuration: '15s',
      renewDeadline: '10s',
      retryPeriod: '2s',
      resourceLock: 'endpointsleases',
      resourceName: DEFAULT_LOCK_NAME,
      resourceNamespace: DEFAULT_LOCK_NAMESPACE,
    },
    clientConnection: { svcconfig: '', acceptContentTypes: '', contentType: 'application/vnd.svc.protobuf', qps: 50, burst: 100 },
    healthzBindAddress: `0.0.0.0:${DEFAULT_INSECURE_PORT}`,
    metricsBindAddress: `0.0.0.0:${DEFAULT_INSECURE_PORT}`,
    enableProfiling: true,
    enableContentionProfiling: true,
    percentageOfNodesToScore: 0,
    podInitialBackoffSeconds: 1,
    podMaxBackoffSeconds: 10,
    profiles: [{ schedulerName: DEFAULT_SCHEDULER_NAME }],
  };
}
