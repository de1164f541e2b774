/**
 * The settings the built-in controllers take from the controller manager's flags (spec: "Controller
 * manager" limits and periods): worker counts (`--concurrent-*-syncs`) and periods, in
 * milliseconds. The controller manager fills it from its flags; tests and the test cluster start
 * from the defaults and change what they need.
 */
import type { CloudProvider } from '../src/cloud/provider.js';
import { DEFAULT_RECYCLER_SETTINGS, type RecyclerSettings } from './persistentvolume/recycler.js';

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
  /** `--concurrent-resource-quota-syncs` and `--resource-quota-sync-period`. */
  concurrentResourceQuotaSyncs: number;
  resourceQuotaSyncPeriodMs: number;
  /** The `--horizontal-pod-autoscaler-*` flags. */
  hpaSyncPeriodMs: number;
  hpaDownscaleStabilizationMs: number;
  hpaTolerance: number;
  hpaCpuInitializationPeriodMs: number;
  hpaInitialReadinessDelayMs: number;
  /** PEM of --service-account-private-key-file (the serviceaccount-token controller signs with it; absent: that controller is off). */
  serviceAccountPrivateKey?: string;
  /**
   * PEM of --root-ca-file, else the CA of the manager's client configuration (`ca.crt` of token
   * Secrets; what root-ca-cert-publisher publishes: absent, that controller is off).
   */
  rootCA?: string;
  /**
   * PEM of --cluster-signing-cert-file and --cluster-signing-key-file (csrsigning signs with them);
   * absent when both flags are at their defaults and those files do not exist: csrsigning is off.
   */
  clusterSigning?: { certPem: string; keyPem: string };
  /** --experimental-cluster-signing-duration: the longest validity csrsigning gives. */
  clusterSigningDurationMs: number;
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
  /**
   * nodeipam (`--allocate-node-cidrs`, `--cluster-cidr`, `--node-cidr-mask-size*`,
   * `--service-cluster-ip-range`), resolved and checked: off when `allocateNodeCidrs` is false;
   * otherwise one or two cluster CIDRs (two: dual-stack, one per family, primary first) with the
   * node mask size of each, and the service ranges the allocator keeps out of them.
   */
  allocateNodeCidrs: boolean;
  clusterCidrs: readonly string[];
  nodeCidrMaskSizes: readonly number[];
  serviceCidrs: readonly string[];
  /** `--pvclaimbinder-sync-period`. */
  pvClaimBinderSyncPeriodMs: number;
  /** attachdetach: `--attach-detach-reconcile-sync-period` (≥ 1 s), `--disable-attach-detach-reconcile-sync`. */
  attachDetachReconcileSyncPeriodMs: number;
  disableAttachDetachReconcileSync: boolean;
  /** `--enable-dynamic-provisioning`. */
  enableDynamicProvisioning: boolean;
  /** `--enable-hostpath-provisioner` (testing only). */
  enableHostPathProvisioner: boolean;
  /** `--pv-recycler-*`: the recycler pods' timeouts and templates. */
  pvRecycler: RecyclerSettings;
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
  /** The cloud (--cloud-provider with --cloud-config; src/cloud/registry.ts): absent, the cloud controllers are off. */
  cloud?: CloudProvider;
  /** --cluster-name: the cloud's load balancers and routes are named within it. */
  clusterName: string;
  /** --configure-cloud-routes (the route controller runs only with it and --allocate-node-cidrs). */
  configureCloudRoutes: boolean;
  /** --route-reconciliation-period. */
  routeReconciliationPeriodMs: number;
  /** --concurrent-service-syncs: the service controller's workers. */
  concurrentServiceSyncs: number;
  /** --node-status-update-frequency (cloud controller manager): how often cloud-node refreshes node addresses. */
  nodeStatusUpdateFrequencyMs: number;
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
  concurrentResourceQuotaSyncs: 5,
  resourceQuotaSyncPeriodMs: 5 * 60_000,
  hpaSyncPeriodMs: 15_000,
  hpaDownscaleStabilizationMs: 5 * 60_000,
  hpaTolerance: 0.1,
  hpaCpuInitializationPeriodMs: 5 * 60_000,
  hpaInitialReadinessDelayMs: 30_000,
  clusterSigningDurationMs: 8760 * 3_600_000,
  terminatedPodGcThreshold: 12_500,
  podGcPeriodMs: 20_000,
  namespaceSyncPeriodMs: 5 * 60_000,
  deploymentSyncPeriodMs: 30_000,
  enableGarbageCollector: true,
  maxEndpointsPerSlice: 100,
  endpointUpdatesBatchPeriodMs: 0,
  endpointSliceUpdatesBatchPeriodMs: 0,
  allocateNodeCidrs: false,
  clusterCidrs: [],
  nodeCidrMaskSizes: [],
  serviceCidrs: [],
  pvClaimBinderSyncPeriodMs: 15_000,
  attachDetachReconcileSyncPeriodMs: 60_000,
  disableAttachDetachReconcileSync: false,
  enableDynamicProvisioning: true,
  enableHostPathProvisioner: false,
  pvRecycler: DEFAULT_RECYCLER_SETTINGS,
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
  clusterName: 'svc',
  configureCloudRoutes: true,
  routeReconciliationPeriodMs: 10_000,
  concurrentServiceSyncs: 1,
  nodeStatusUpdateFrequencyMs: 5 * 60_000,
});
