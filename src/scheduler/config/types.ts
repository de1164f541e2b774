/**
 * The scheduler's configuration file (`--config`), `scheduler.config.svc.io/v1beta1`
 * `SchedulerConfiguration`, shaped as the established v1beta1 file: profiles with plugins enabled,
 * disabled and weighted per extension point, plugin arguments, percentageOfNodesToScore, back-off,
 * leader election and client connection. Which setting wins: flag > file > default.
 */

export const CONFIG_API_VERSION = 'scheduler.config.svc.io/v1beta1';
export const CONFIG_KIND = 'SchedulerConfiguration';

/** Extension points as named in the file. `multiPoint` enables a plugin at every point it implements. */
export const EXTENSION_POINTS = ['queueSort', 'preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'preBind', 'bind'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export interface PluginRef {
  name: string;
  /** Score plugins only; default 1. */
  weight?: number;
}

/** Per point: `enabled` are appended to the defaults, `disabled` removed from them (`*` removes all defaults). */
export interface PluginSet {
  enabled?: PluginRef[];
  disabled?: PluginRef[];
}

export type Plugins = Partial<Record<ExtensionPoint | 'multiPoint', PluginSet>>;

export interface PluginConfig {
  name: string;
  args?: Record<string, unknown>;
}

export interface SchedulerProfile {
  schedulerName: string;
  plugins?: Plugins;
  pluginConfig?: PluginConfig[];
}

export interface LeaderElectionConfiguration {
  leaderElect: boolean;
  /** Durations as strings (`15s`), as the established file writes them. */
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ClientConnectionConfiguration {
  /** Path of the client configuration (svcconfig); empty uses --master or in-cluster defaults. */
  svcconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

export interface SchedulerConfiguration {
  apiVersion: typeof CONFIG_API_VERSION;
  kind: typeof CONFIG_KIND;
  /** Parallelism of filter/score loops in the established scheduler; kept for compatibility (we run them on one thread). */
  parallelism: number;
  leaderElection: LeaderElectionConfiguration;
  clientConnection: ClientConnectionConfiguration;
  healthzBindAddress: string;
  metricsBindAddress: string;
  enableProfiling: boolean;
  enableContentionProfiling: boolean;
  /** 0 = adaptive (50% minus 1% per 125 nodes, at least 5%); otherwise 1-100. */
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: SchedulerProfile[];
}

/**
 * The feature gates that change scheduling behaviour at run time (--feature-gates). EvenPodsSpread
 * and ResourceLimitsPriorityFunction are applied to the profiles' plugins instead.
 */
export interface SchedulerFeatures {
  /** PodTopologySpread filter and score (beta, on). */
  evenPodsSpread: boolean;
  /** `spec.overhead` counted in requests (beta, on). */
  podOverhead: boolean;
  /** `preemptionPolicy: Never` honoured (alpha, off: such pods preempt like the others). */
  nonPreemptingPriority: boolean;
  /** NodeResourceLimits score (alpha, off). */
  resourceLimitsPriorityFunction: boolean;
}

export const DEFAULT_FEATURES: Readonly<SchedulerFeatures> = Object.freeze({
  evenPodsSpread: true,
  podOverhead: true,
  nonPreemptingPriority: false,
  resourceLimitsPriorityFunction: false,
});
