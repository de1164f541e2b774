/**
 * The settings the built-in controllers take from the controller manager's flags (spec: "Controller
 * manager" limits and periods): worker counts (`--concurrent-*-syncs`) and periods, in
 * milliseconds. The controller manager fills it from its flags; tests and the test cluster start
 * from the defaults and change what they need.
 */
export interface ControllerManagerConfig {
  concurrentReplicaSetSyncs: number;
  concurrentRcSyncs: number;
  concurrentServiceAccountSyncs: number;
  concurrentGcSyncs: number;
  concurrentNamespaceSyncs: number;
  concurrentDeploymentSyncs: number;
  concurrentStatefulSetSyncs: number;
  concurrentEndpointSyncs: number;
  concurrentServiceEndpointSyncs: number;
  concurrentTtlAfterFinishedSyncs: number;
  concurrentServiceAccountTokenSyncs: number;
  /** PEM of --service-account-private-key-file (the serviceaccount-token controller signs with it; absent: that controller is off). */
  serviceAccountPrivateKey?: string;
  /** PEM of --root-ca-file (`ca.crt` of token Secrets). */
  rootCA?: string;
  /** `--terminated-pod-gc-threshold`; 0 or less: finished pods are not collected by count. */
  terminatedPodGcThreshold: number;
  /** How often podgc looks (the established value is 20 s; not a flag). */
  podGcPeriodMs: number;
  namespaceSyncPeriodMs: number;
  deploymentSyncPeriodMs: number;
  enableGarbageCollector: boolean;
  maxEndpointsPerSlice: number;
  /** `--endpoint-updates-batch-period` and `--endpointslice-updates-batch-period` (0: none). */
  endpointUpdatesBatchPeriodMs: number;
  endpointSliceUpdatesBatchPeriodMs: number;
  /** nodelifecycle: --node-monitor-period, --node-monitor-grace-period, --node-startup-grace-period, --pod-eviction-timeout. */
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
  podEvictionTimeoutMs: number;
  /** --node-eviction-rate and --secondary-node-eviction-rate (nodes per second, per zone). */
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
  unhealthyZoneThreshold: number;
  /** --enable-taint-manager: NoExecute taints and taint-based eviction (else pods are deleted after --pod-eviction-timeout). */
  enableTaintManager: boolean;
  /** Feature gates the controllers read (e.g. TTLAfterFinished), from `--feature-gates`. */
  featureGates: Readonly<Record<string, boolean>>;
}

export const DEFAULT_CONTROLLER_MANAGER_CONFIG: Readonly<ControllerManagerConfig> = Object.freeze({
  concurrentReplicaSetSyncs: 5,
  concurrentRcSyncs: 5,
  concurrentServiceAccountSyncs: 1,
  concurrentGcSyncs: 20,
  concurrentNamespaceSyncs: 10,
  concurrentDeploymentSyncs: 5,
  concurrentStatefulSetSyncs: 5,
  concurrentEndpointSyncs: 5,
  concurrentServiceEndpointSyncs: 5,
  concurrentTtlAfterFinishedSyncs: 5,
  concurrentServiceAccountTokenSyncs: 5,
  terminatedPodGcThreshold: 12_500,
  podGcPeriodMs: 20_000,
  namespaceSyncPeriodMs: 5 * 60_000,
  deploymentSyncPeriodMs: 30_000,
  enableGarbageCollector: true,
  maxEndpointsPerSlice: 100,
  endpointUpdatesBatchPeriodMs: 0,
  endpointSliceUpdatesBatchPeriodMs: 0,
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 40_000,
  nodeStartupGracePeriodMs: 60_000,
  podEvictionTimeoutMs: 5 * 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
  enableTaintManager: true,
  featureGates: {},
});
