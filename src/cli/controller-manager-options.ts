/**
 * The `controller-manager` daemon's flags (spec: "Controller-manager-specific options", the
 * controller manager's limits and periods, the shared leader-election, API-client, listener, TLS
 * and logging tables, and the delegated authentication flags) and how they become the controllers'
 * settings. A flag that belongs to a controller not built yet is parsed and validated now, marked
 * so in --help, and refused at start when set to anything but its default until that controller lands.
 */
import type { Command } from 'commander';
import { BUILTIN_CONTROLLERS, ControllerSelectionError, selectControllers, type ControllerSelection } from '../../controllers/registry.js';
import { cloudProviderFlags, resolveCloudProvider } from './cloud-provider-flags.js';
import { DEFAULT_CONTROLLER_MANAGER_CONFIG, type ControllerManagerConfig } from '../../controllers/config.js';
import { parse as parseYaml } from 'yaml';
import type { RecyclerSettings } from '../../controllers/persistentvolume/recycler.js';
import type { Pod } from '../api/generated/kinds.js';
import { OptionsError, readFlagFile, resolveCommonOptions, type CommonOptions } from './common-options.js';
import { existsSync } from 'node:fs';
import { KeyFileError, signingKeyFrom } from '../api/service-account-keys.js';
import { checkSigningCA, SigningCAError } from '../api/x509-signing.js';
import {
  apiClientFlags, leaderElectionFlags, resolveApiClientOptions, resolveLeaderElectionOptions, resolveMinResyncPeriod, resyncFlags,
  type ApiClientOptions, type LeaderElectionOptions,
} from './controller-host-options.js';
import { delegatedAuthFlags, resolveDelegatedAuthOptions, type DelegatedAuthOptions } from './delegated-auth-flags.js';
import { parseFeatureGates } from './feature-gates.js';
import { cidrText, parseCidr } from '../api/net/ip-address.js';
import { CidrSet, CidrSetError } from '../../controllers/nodeipam/cidr-set.js';
import { addFlags, FlagValues, type FlagSpec } from './option-table.js';
import { createDaemonProgram } from './program.js';

export const DEFAULT_CONTROLLER_MANAGER_LOCK = 'svc-controller-manager';
export const DEFAULT_CLUSTER_SIGNING_CERT_FILE = '/etc/svc/ca/ca.pem';
export const DEFAULT_CLUSTER_SIGNING_KEY_FILE = '/etc/svc/ca/ca.key';


const built = new Set(BUILTIN_CONTROLLERS.filter((c) => c.build).map((c) => c.name));

/** Marks a row as a controller's: honoured once that controller is built, and says so in --help. */
export function of(controller: string, row: FlagSpec): FlagSpec {
  if (built.has(controller)) return { ...row, help: `${row.help} (${controller})` };
  return { ...row, honoured: false, help: `${row.help} (${controller}: not built yet; refused unless left at its default)` };
}

const NOT_YET = { honoured: false } as const;
const S = 1000;
const M = 60 * S;

/**
 * The rows both managers carry, before `of` names their controller: the cloud controller manager's
 * table (./cloud-controller-manager-options.ts) takes them from here, so a default or a help text
 * has one home.
 */
export const SHARED_MANAGER_ROWS = {
  controllerStartInterval: { flags: '--controller-start-interval', type: 'duration', default: 0, defaultText: '0s', help: 'Interval between starting controllers once this process leads.' },
  clusterName: { flags: '--cluster-name', type: 'string', default: 'svc', help: 'Instance prefix of the cluster (the cloud\'s load balancers and routes are named within it).' },
  configureCloudRoutes: { flags: '--configure-cloud-routes', type: 'bool', default: true, help: 'Configure allocated CIDRs on the cloud provider.' },
  externalCloudVolumePlugin: { flags: '--external-cloud-volume-plugin', type: 'string', ...NOT_YET, help: 'Only when the provider is external. Lets node and volume controllers work for in-tree providers.' },
  useServiceAccountCredentials: {
    flags: '--use-service-account-credentials',
    type: 'bool',
    help: 'Use separate service account credentials per controller: each runs as its own service account in svc-system (made if missing) with a TokenRequest token (needs the API server to sign tokens).',
  },
  nodeMonitorPeriod: { flags: '--node-monitor-period', type: 'duration', default: 5 * S, help: 'Node status sync.' },
  routeReconciliationPeriod: { flags: '--route-reconciliation-period', type: 'duration', default: 10 * S, help: 'Cloud route reconcile.' },
} satisfies Record<string, FlagSpec>;

/** The `--controllers` row over a list of controllers (`names`: each with what --help says of it). */
export function controllersRow(names: readonly string[]): FlagSpec {
  return {
    flags: '--controllers',
    type: 'stringSlice',
    default: ['*'],
    help: `Controllers to enable. '*' enables all on-by-default controllers, 'foo' enables foo, '-foo' disables foo. All controllers: ${names.join(', ')}.`,
  };
}

function managerFlags(): FlagSpec[] {
  const names = BUILTIN_CONTROLLERS.map((c) => `${c.name}${c.needsCloudProvider ? ' (needs --cloud-provider)' : c.build ? '' : ' (not built yet)'}${c.defaultOn ? '' : ' (off by default)'}`);
  return [
    controllersRow(names),
    SHARED_MANAGER_ROWS.controllerStartInterval,
    of('nodeipam', { flags: '--allocate-node-cidrs', type: 'bool', help: 'Allocate pod CIDRs and set them on the cloud provider.' }),
    of('nodeipam', { flags: '--cidr-allocator-type', type: 'string', default: 'RangeAllocator', choices: ['RangeAllocator', 'CloudAllocator'], help: 'CIDR allocator type.' }),
    of('nodeipam', { flags: '--cluster-cidr', type: 'string', help: 'Pod CIDR range. Needs --allocate-node-cidrs.' }),
    of('nodeipam', { flags: '--service-cluster-ip-range', type: 'string', help: 'Service CIDR range. Needs --allocate-node-cidrs.' }),
    of('nodeipam', { flags: '--node-cidr-mask-size', type: 'int32', defaultText: '24 for IPv4, 64 for IPv6', help: 'Node CIDR mask size.' }),
    of('nodeipam', { flags: '--node-cidr-mask-size-ipv4', type: 'int32', default: 24, help: 'Dual-stack IPv4 node mask.' }),
    of('nodeipam', { flags: '--node-cidr-mask-size-ipv6', type: 'int32', default: 64, help: 'Dual-stack IPv6 node mask.' }),
    SHARED_MANAGER_ROWS.clusterName,
    of('route', SHARED_MANAGER_ROWS.configureCloudRoutes),
    ...cloudProviderFlags(),
    SHARED_MANAGER_ROWS.externalCloudVolumePlugin,
    of('csrsigning', { flags: '--cluster-signing-cert-file', type: 'string', default: DEFAULT_CLUSTER_SIGNING_CERT_FILE, help: 'PEM CA certificate used to issue cluster-scoped certificates.' }),
    of('csrsigning', { flags: '--cluster-signing-key-file', type: 'string', default: DEFAULT_CLUSTER_SIGNING_KEY_FILE, help: 'PEM RSA or ECDSA key for signing them.' }),
    of('csrsigning', { flags: '--experimental-cluster-signing-duration', type: 'duration', default: 8760 * 3_600_000, help: 'Validity of signed certificates.' }),
    of('serviceaccount-token', { flags: '--root-ca-file', type: 'string', help: "Root CA (PEM bundle) placed in service account token secrets and published in every namespace (ConfigMap svc-root-ca.crt) by root-ca-cert-publisher; default: the certificate authority of the client configuration." }),
    of('serviceaccount-token', { flags: '--service-account-private-key-file', type: 'string', help: 'PEM RSA or ECDSA key for signing service account tokens.' }),
    SHARED_MANAGER_ROWS.useServiceAccountCredentials,
    of('persistentvolume-binder', { flags: '--enable-dynamic-provisioning', type: 'bool', default: true, help: 'Dynamic provisioning where supported.' }),
    of('garbagecollector', { flags: '--enable-garbage-collector', type: 'bool', default: true, help: 'Generic garbage collector. Must match the API server flag.' }),
    of('persistentvolume-binder', { flags: '--enable-hostpath-provisioner', type: 'bool', help: 'Host-path volume provisioning without a cloud provider. Testing only, single node.' }),
    of('nodelifecycle', { flags: '--enable-taint-manager', type: 'bool', default: true, help: 'Beta. Evict non-tolerating pods from nodes with NoExecute taints.' }),
    of('attachdetach', { flags: '--disable-attach-detach-reconcile-sync', type: 'bool', help: 'Disable the volume attach/detach reconciler sync. Can cause volume mismatch.' }),
    // FlexVolume drivers are not supported (the attachdetach controller attaches CSI volumes only).
    { flags: '--flex-volume-plugin-dir', type: 'string', default: '/usr/libexec/svc/svclet-plugins/volume/exec/', ...NOT_YET, help: 'Directory searched for third-party volume plugins (FlexVolume: not supported; refused unless left at its default).' },
    of('persistentvolume-binder', { flags: '--pv-recycler-pod-template-filepath-nfs', type: 'string', help: 'Pod template for NFS volume recycling.' }),
    of('persistentvolume-binder', { flags: '--pv-recycler-pod-template-filepath-hostpath', type: 'string', help: 'Pod template for host-path recycling. Testing only.' }),
  ];
}

/** The `--concurrent-*-syncs` row of `controller` (the cloud controller manager's service row too). */
export function concurrencyRow(controller: string): FlagSpec {
  const row = CONCURRENCY.find(([, c]) => c === controller);
  if (!row) throw new Error(`no --concurrent-*-syncs flag for controller ${controller}`);
  return of(controller, { flags: row[0], type: 'int32', default: row[2], help: 'Objects synced at once (workers); more is faster and costs more CPU and API load.' });
}

/** `--concurrent-*-syncs` rows: flag, controller, default. */
const CONCURRENCY: readonly [string, string, number][] = [
  ['--concurrent-deployment-syncs', 'deployment', 5],
  ['--concurrent-endpoint-syncs', 'endpoint', 5],
  ['--concurrent-gc-syncs', 'garbagecollector', 20],
  ['--concurrent-namespace-syncs', 'namespace', 10],
  ['--concurrent-replicaset-syncs', 'replicaset', 5],
  ['--concurrent-resource-quota-syncs', 'resourcequota', 5],
  ['--concurrent-service-endpoint-syncs', 'endpointslice', 5],
  ['--concurrent-service-syncs', 'service', 1],
  ['--concurrent-serviceaccount-token-syncs', 'serviceaccount-token', 5],
  ['--concurrent-statefulset-syncs', 'statefulset', 5],
  ['--concurrent-ttl-after-finished-syncs', 'ttl-after-finished', 5],
  ['--concurrent_rc_syncs', 'replicationcontroller', 5],
];

function limitFlags(): FlagSpec[] {
  return [
    ...CONCURRENCY.map(([, controller]) => concurrencyRow(controller)),
    of('endpointslice', { flags: '--max-endpoints-per-slice', type: 'int32', default: 100, help: 'Most endpoints in one EndpointSlice.' }),
    of('podgc', { flags: '--terminated-pod-gc-threshold', type: 'int32', default: 12_500, help: 'Finished pods kept before the oldest are deleted; 0 or less disables that collector.' }),
    of('nodelifecycle', { flags: '--large-cluster-size-threshold', type: 'int32', default: 50, help: 'Secondary eviction rate forced to 0 at or below this size.' }),
  ];
}

function periodFlags(): FlagSpec[] {
  const d = (controller: string, flags: string, ms: number | undefined, help: string, type: FlagSpec['type'] = 'duration'): FlagSpec =>
    of(controller, { flags, type, ...(ms !== undefined ? { default: ms } : {}), help });
  return [
    d('attachdetach', '--attach-detach-reconcile-sync-period', M, 'Volume attach/detach reconcile wait. Must exceed one second.'),
    d('deployment', '--deployment-controller-sync-period', 30 * S, 'Deployment sync.'),
    d('endpoint', '--endpoint-updates-batch-period', undefined, 'Delay to batch pod changes into endpoint updates.'),
    d('endpointslice', '--endpointslice-updates-batch-period', undefined, 'Same for slices.'),
    d('horizontalpodautoscaling', '--horizontal-pod-autoscaler-sync-period', 15 * S, 'Autoscaler pod-count sync.'),
    d('horizontalpodautoscaling', '--horizontal-pod-autoscaler-downscale-stabilization', 5 * M, 'No scale-down below any recommendation within this window.'),
    d('horizontalpodautoscaling', '--horizontal-pod-autoscaler-cpu-initialization-period', 5 * M, 'CPU samples may be skipped after pod start.'),
    d('horizontalpodautoscaling', '--horizontal-pod-autoscaler-initial-readiness-delay', 30 * S, 'Readiness changes count as initial.'),
    of('horizontalpodautoscaling', { flags: '--horizontal-pod-autoscaler-tolerance', type: 'float', default: 0.1, help: 'Minimum distance of the metric ratio from 1.0 before scaling.' }),
    d('namespace', '--namespace-sync-period', 5 * M, 'Namespace lifecycle sync.'),
    d('nodelifecycle', '--node-monitor-grace-period', 40 * S, "Running node may be unresponsive this long; must be N times the node agent's status update interval."),
    of('nodelifecycle', SHARED_MANAGER_ROWS.nodeMonitorPeriod),
    d('nodelifecycle', '--node-startup-grace-period', M, 'Same for a starting node.'),
    d('nodelifecycle', '--pod-eviction-timeout', 5 * M, 'Grace period for deleting pods on failed nodes.'),
    of('nodelifecycle', { flags: '--node-eviction-rate', type: 'float32', default: 0.1, help: 'Nodes per second to evict in a healthy zone.' }),
    of('nodelifecycle', { flags: '--secondary-node-eviction-rate', type: 'float32', default: 0.01, help: 'Nodes per second in an unhealthy zone; forced to 0 for small clusters.' }),
    of('nodelifecycle', { flags: '--unhealthy-zone-threshold', type: 'float32', default: 0.55, help: 'Fraction of not-ready nodes (minimum 3) that makes a zone unhealthy.' }),
    d('persistentvolume-binder', '--pvclaimbinder-sync-period', 15 * S, 'Volume and claim sync.'),
    d('resourcequota', '--resource-quota-sync-period', 5 * M, 'Quota usage sync.'),
    of('route', SHARED_MANAGER_ROWS.routeReconciliationPeriod),
    of('persistentvolume-binder', { flags: '--pv-recycler-minimum-timeout-nfs', type: 'int32', default: 300, help: 'Minimum ActiveDeadlineSeconds of an NFS recycler pod.' }),
    of('persistentvolume-binder', { flags: '--pv-recycler-increment-timeout-nfs', type: 'int32', default: 30, help: 'Seconds added per Gi, NFS.' }),
    of('persistentvolume-binder', { flags: '--pv-recycler-minimum-timeout-hostpath', type: 'int32', default: 60, help: 'Host-path recycler minimum. Testing only.' }),
    of('persistentvolume-binder', { flags: '--pv-recycler-timeout-increment-hostpath', type: 'int32', default: 30, help: 'Seconds added per Gi, host-path. Testing only.' }),
  ];
}

/** Every row the built-in controllers' settings come from (shared with `svc up`). */
export function controllerSettingFlags(): FlagSpec[] {
  return [...managerFlags(), ...limitFlags(), ...periodFlags()];
}

export function createControllerManagerProgram(): Command {
  const cmd = createDaemonProgram({
    component: 'controller-manager',
    description:
      'Runs the control loops that move the cluster toward what its objects ask for (replicas, service accounts, ...), each a machine in controllers/, behind one leader-election lock; /debug/machines shows them.',
  });
  return addFlags(cmd, [
    ...leaderElectionFlags(DEFAULT_CONTROLLER_MANAGER_LOCK),
    ...apiClientFlags(),
    ...resyncFlags(),
    ...controllerSettingFlags(),
    ...delegatedAuthFlags('controller-manager'),
  ]);
}

export interface ControllerSettings {
  selection: ControllerSelection;
  config: ControllerManagerConfig;
  startIntervalMs: number;
  /** --use-service-account-credentials: each controller as its own service account (./service-account-credentials.ts). */
  useServiceAccountCredentials: boolean;
}

export interface ControllerManagerOptions extends ControllerSettings {
  common: CommonOptions;
  client: ApiClientOptions;
  leaderElection: LeaderElectionOptions;
  minResyncPeriodMs: number;
  /** The secure port's delegated authentication and authorization. */
  delegatedAuth: DelegatedAuthOptions;
}

/**
 * The controller selection and settings from the flags; throws OptionsError naming the flag.
 * `sharedServiceRange`: `--service-cluster-ip-range` is also the API server's (`svc up`), so it is
 * honoured there even when no node CIDRs are allocated (and, when they are, kept out of them).
 */
export function resolveControllerSettings(opts: Record<string, unknown>, o: { sharedServiceRange?: boolean } = {}): ControllerSettings {
  const f = new FlagValues(opts);
  const cloud = resolveCloudProvider(f);
  let selection: ControllerSelection;
  try {
    selection = selectControllers(f.list('--controllers'), { cloudProvider: cloud !== undefined });
  } catch (e) {
    if (e instanceof ControllerSelectionError) throw new OptionsError(`invalid value for --controllers: ${e.message}`);
    throw e;
  }
  for (const [flag] of CONCURRENCY) {
    if (f.number(flag) < 1) throw new OptionsError(`invalid value ${f.number(flag)} for ${flag}: must be at least 1`);
  }
  if (f.number('--max-endpoints-per-slice') < 1 || f.number('--max-endpoints-per-slice') > 1000) {
    throw new OptionsError(`invalid value ${f.number('--max-endpoints-per-slice')} for --max-endpoints-per-slice: must be from 1 to 1000`);
  }
  if (f.number('--attach-detach-reconcile-sync-period') < S) {
    throw new OptionsError('invalid value for --attach-detach-reconcile-sync-period: duration time must be greater than one second as set via command line option reconcile-sync-loop-period');
  }
  const tolerance = f.number('--horizontal-pod-autoscaler-tolerance');
  if (tolerance < 0) throw new OptionsError(`invalid value ${tolerance} for --horizontal-pod-autoscaler-tolerance: must not be negative`);
  for (const flag of ['--resource-quota-sync-period', '--horizontal-pod-autoscaler-sync-period']) {
    if (f.number(flag) <= 0) throw new OptionsError(`invalid value for ${flag}: must be positive`);
  }
  const zone = f.number('--unhealthy-zone-threshold');
  if (zone <= 0 || zone > 1) throw new OptionsError(`invalid value ${zone} for --unhealthy-zone-threshold: must be above 0 and at most 1`);
  for (const flag of ['--node-eviction-rate', '--secondary-node-eviction-rate']) {
    if (f.number(flag) < 0) throw new OptionsError(`invalid value ${f.number(flag)} for ${flag}: must not be negative`);
  }
  for (const flag of ['--node-monitor-period', '--node-monitor-grace-period', '--node-startup-grace-period']) {
    if (f.number(flag) <= 0) throw new OptionsError(`invalid value for ${flag}: must be positive`);
  }
  if (f.number('--pod-eviction-timeout') < 0) throw new OptionsError('invalid value for --pod-eviction-timeout: must not be negative');
  const startIntervalMs = f.number('--controller-start-interval');
  if (startIntervalMs < 0) throw new OptionsError('invalid value for --controller-start-interval: must not be negative');
  const featureGates = parseFeatureGates(f.list('--feature-gates'));
  const config: ControllerManagerConfig = {
    ...DEFAULT_CONTROLLER_MANAGER_CONFIG,
    ...nodeIpamSettings(f, featureGates, o.sharedServiceRange ?? false),
    concurrentReplicaSetSyncs: f.number('--concurrent-replicaset-syncs'),
    concurrentRcSyncs: f.number('--concurrent_rc_syncs'),
    concurrentGcSyncs: f.number('--concurrent-gc-syncs'),
    concurrentNamespaceSyncs: f.number('--concurrent-namespace-syncs'),
    concurrentDeploymentSyncs: f.number('--concurrent-deployment-syncs'),
    concurrentStatefulSetSyncs: f.number('--concurrent-statefulset-syncs'),
    concurrentEndpointSyncs: f.number('--concurrent-endpoint-syncs'),
    concurrentServiceEndpointSyncs: f.number('--concurrent-service-endpoint-syncs'),
    concurrentTtlAfterFinishedSyncs: f.number('--concurrent-ttl-after-finished-syncs'),
    terminatedPodGcThreshold: f.number('--terminated-pod-gc-threshold'),
    namespaceSyncPeriodMs: f.number('--namespace-sync-period'),
    deploymentSyncPeriodMs: f.number('--deployment-controller-sync-period'),
    enableGarbageCollector: f.bool('--enable-garbage-collector'),
    maxEndpointsPerSlice: f.number('--max-endpoints-per-slice'),
    endpointUpdatesBatchPeriodMs: f.number('--endpoint-updates-batch-period'),
    endpointSliceUpdatesBatchPeriodMs: f.number('--endpointslice-updates-batch-period'),
    featureGates,
    nodeMonitorPeriodMs: f.number('--node-monitor-period'),
    nodeMonitorGracePeriodMs: f.number('--node-monitor-grace-period'),
    nodeStartupGracePeriodMs: f.number('--node-startup-grace-period'),
    podEvictionTimeoutMs: f.number('--pod-eviction-timeout'),
    nodeEvictionRate: f.number('--node-eviction-rate'),
    secondaryNodeEvictionRate: f.number('--secondary-node-eviction-rate'),
    largeClusterSizeThreshold: f.number('--large-cluster-size-threshold'),
    unhealthyZoneThreshold: zone,
    enableTaintManager: f.bool('--enable-taint-manager'),
    concurrentServiceAccountTokenSyncs: f.number('--concurrent-serviceaccount-token-syncs'),
    concurrentResourceQuotaSyncs: f.number('--concurrent-resource-quota-syncs'),
    resourceQuotaSyncPeriodMs: f.number('--resource-quota-sync-period'),
    hpaSyncPeriodMs: f.number('--horizontal-pod-autoscaler-sync-period'),
    hpaDownscaleStabilizationMs: f.number('--horizontal-pod-autoscaler-downscale-stabilization'),
    hpaTolerance: tolerance,
    hpaCpuInitializationPeriodMs: f.number('--horizontal-pod-autoscaler-cpu-initialization-period'),
    hpaInitialReadinessDelayMs: f.number('--horizontal-pod-autoscaler-initial-readiness-delay'),
    ...serviceAccountTokenKeys(f),
    pvClaimBinderSyncPeriodMs: f.number('--pvclaimbinder-sync-period'),
    attachDetachReconcileSyncPeriodMs: f.number('--attach-detach-reconcile-sync-period'),
    disableAttachDetachReconcileSync: f.bool('--disable-attach-detach-reconcile-sync'),
    enableDynamicProvisioning: f.bool('--enable-dynamic-provisioning'),
    enableHostPathProvisioner: f.bool('--enable-hostpath-provisioner'),
    pvRecycler: recyclerSettings(f),
    ...clusterSigningFiles(f),
    clusterSigningDurationMs: f.number('--experimental-cluster-signing-duration'),
    ...(cloud ? { cloud } : {}),
    clusterName: f.string('--cluster-name'),
    configureCloudRoutes: f.bool('--configure-cloud-routes'),
    routeReconciliationPeriodMs: f.number('--route-reconciliation-period'),
    concurrentServiceSyncs: f.number('--concurrent-service-syncs'),
  };
  if (config.routeReconciliationPeriodMs <= 0) throw new OptionsError('invalid value for --route-reconciliation-period: must be positive');
  if (config.clusterSigningDurationMs <= 0) throw new OptionsError('invalid value for --experimental-cluster-signing-duration: must be positive');
  return { selection, config, startIntervalMs, useServiceAccountCredentials: f.bool('--use-service-account-credentials') };
}

const DEFAULT_NODE_CIDR_MASK_IPV4 = 24;
const DEFAULT_NODE_CIDR_MASK_IPV6 = 64;

/**
 * The nodeipam flags resolved and checked as the established manager checks them at start (each
 * failure names the flag): `--cluster-cidr` one CIDR or two of different families (two need the
 * IPv6DualStack gate); the mask of each family from `--node-cidr-mask-size` (single-stack only) or
 * `--node-cidr-mask-size-ipv4/-ipv6`; a cluster CIDR not longer than its node mask (and, IPv6, at
 * most 16 bits shorter); `--service-cluster-ip-range` one or two CIDRs. CloudAllocator is
 * refused by name: the simulated cloud allocates no node CIDRs.
 */
function nodeIpamSettings(f: FlagValues, gates: Readonly<Record<string, boolean>>, sharedServiceRange: boolean): Pick<ControllerManagerConfig, 'allocateNodeCidrs' | 'clusterCidrs' | 'nodeCidrMaskSizes' | 'serviceCidrs'> {
  const v4 = f.number('--node-cidr-mask-size-ipv4');
  const v6 = f.number('--node-cidr-mask-size-ipv6');
  if (v4 < 1 || v4 > 32) throw new OptionsError(`invalid value ${v4} for --node-cidr-mask-size-ipv4: must be from 1 to 32`);
  if (v6 < 1 || v6 > 128) throw new OptionsError(`invalid value ${v6} for --node-cidr-mask-size-ipv6: must be from 1 to 128`);
  const mask = f.number('--node-cidr-mask-size');
  if (mask !== 0 && (mask < 1 || mask > 128)) throw new OptionsError(`invalid value ${mask} for --node-cidr-mask-size: must be from 1 to 128`);
  const allocate = f.bool('--allocate-node-cidrs');
  const clusterText = f.optionalString('--cluster-cidr')?.trim() ?? '';
  const serviceText = f.optionalString('--service-cluster-ip-range')?.trim() ?? '';
  if ((clusterText || (serviceText && !sharedServiceRange)) && !allocate) throw new OptionsError('--cluster-cidr and --service-cluster-ip-range need --allocate-node-cidrs=true');
  if (f.string('--cidr-allocator-type') === 'CloudAllocator') {
    throw new OptionsError('--cidr-allocator-type=CloudAllocator: the simulated cloud (cloudy) allocates no node CIDRs, so nothing would allocate them; use RangeAllocator');
  }
  if (!allocate) return { allocateNodeCidrs: false, clusterCidrs: [], nodeCidrMaskSizes: [], serviceCidrs: [] };
  if (!clusterText) throw new OptionsError('Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set (e.g. --cluster-cidr=10.244.0.0/16)');
  const parse = (flag: string, text: string) =>
    text.split(',').map((t) => {
      const c = parseCidr(t.trim());
      if (!c) throw new OptionsError(`invalid value "${text}" for ${flag}: invalid CIDR address: ${t.trim()} (expected e.g. 10.244.0.0/16 or fd00:10:244::/56)`);
      return c;
    });
  const clusters = parse('--cluster-cidr', clusterText);
  if (clusters.length > 2) throw new OptionsError(`invalid value "${clusterText}" for --cluster-cidr: length of clusterCIDRs is:${clusters.length} more than max allowed of 2`);
  const dualStack = clusters.length === 2;
  if (dualStack && !gates['IPv6DualStack']) {
    throw new OptionsError(`invalid value "${clusterText}" for --cluster-cidr: len of ClusterCIDRs==2 and dualstack feature is not enabled (add --feature-gates=IPv6DualStack=true, or give one CIDR)`);
  }
  if (dualStack && clusters[0]!.family === clusters[1]!.family) {
    throw new OptionsError(`invalid value "${clusterText}" for --cluster-cidr: len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily)`);
  }
  const v4Set = v4 !== DEFAULT_NODE_CIDR_MASK_IPV4;
  const v6Set = v6 !== DEFAULT_NODE_CIDR_MASK_IPV6;
  let masks: number[];
  if (dualStack) {
    if (mask !== 0) throw new OptionsError('usage of --node-cidr-mask-size is not allowed with dual-stack clusters; use --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6');
    masks = clusters.map((c) => (c.family === 'IPv4' ? v4 : v6));
  } else if (mask !== 0) {
    if (v4Set || v6Set) {
      throw new OptionsError('usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags');
    }
    masks = [mask];
  } else if (clusters[0]!.family === 'IPv6') {
    if (v4Set) throw new OptionsError('usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster');
    masks = [v6];
  } else {
    if (v6Set) throw new OptionsError('usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
    masks = [v4];
  }
  const clusterCidrs = clusters.map(cidrText);
  clusters.forEach((c, i) => {
    if (c.prefixLength > masks[i]!) {
      throw new OptionsError(`Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family: ${clusterCidrs[i]} and /${masks[i]}`);
    }
    try {
      new CidrSet(clusterCidrs[i]!, masks[i]!);
    } catch (e) {
      if (e instanceof CidrSetError) throw new OptionsError(`invalid --cluster-cidr ${clusterCidrs[i]} with node mask /${masks[i]}: ${e.message}`);
      throw e;
    }
  });
  const services = serviceText ? parse('--service-cluster-ip-range', serviceText) : [];
  if (services.length > 2) throw new OptionsError(`invalid value "${serviceText}" for --service-cluster-ip-range: at most two CIDRs (one per family)`);
  return { allocateNodeCidrs: true, clusterCidrs, nodeCidrMaskSizes: masks, serviceCidrs: services.map(cidrText) };
}

/** The `--pv-recycler-*` flags; a template file must hold a Pod with exactly one volume (as established). */
function recyclerSettings(f: FlagValues): RecyclerSettings {
  const template = (flag: string): Pod | undefined => {
    const path = f.optionalString(flag);
    if (!path) return undefined;
    let pod: unknown;
    try {
      pod = parseYaml(readFlagFile(flag, path));
    } catch (e) {
      throw new OptionsError(`${flag} ${path}: not a YAML or JSON Pod: ${(e as Error).message}`);
    }
    const spec = (pod as Pod | null)?.spec;
    if (!spec || !Array.isArray(spec.containers) || spec.containers.length === 0) throw new OptionsError(`${flag} ${path}: not a Pod (no spec.containers)`);
    if ((spec.volumes ?? []).length !== 1) throw new OptionsError(`pod specification (${path}): must have exactly one volume`);
    return pod as Pod;
  };
  for (const flag of ['--pv-recycler-minimum-timeout-nfs', '--pv-recycler-increment-timeout-nfs', '--pv-recycler-minimum-timeout-hostpath', '--pv-recycler-timeout-increment-hostpath']) {
    if (f.number(flag) < 0) throw new OptionsError(`invalid value ${f.number(flag)} for ${flag}: must not be negative`);
  }
  const hostPathTemplate = template('--pv-recycler-pod-template-filepath-hostpath');
  const nfsTemplate = template('--pv-recycler-pod-template-filepath-nfs');
  return {
    hostPath: { minimumTimeoutSeconds: f.number('--pv-recycler-minimum-timeout-hostpath'), incrementSeconds: f.number('--pv-recycler-timeout-increment-hostpath') },
    nfs: { minimumTimeoutSeconds: f.number('--pv-recycler-minimum-timeout-nfs'), incrementSeconds: f.number('--pv-recycler-increment-timeout-nfs') },
    ...(hostPathTemplate ? { hostPathTemplate } : {}),
    ...(nfsTemplate ? { nfsTemplate } : {}),
  };
}

/** --service-account-private-key-file and --root-ca-file, read and checked (a key that cannot sign is refused by name). */
function serviceAccountTokenKeys(f: FlagValues): Pick<ControllerManagerConfig, 'serviceAccountPrivateKey' | 'rootCA'> {
  const out: Pick<ControllerManagerConfig, 'serviceAccountPrivateKey' | 'rootCA'> = {};
  const keyFile = f.optionalString('--service-account-private-key-file');
  if (keyFile) {
    const pem = readFlagFile('--service-account-private-key-file', keyFile);
    try {
      signingKeyFrom(pem, `--service-account-private-key-file ${keyFile}`);
    } catch (e) {
      if (e instanceof KeyFileError) throw new OptionsError(e.message);
      throw e;
    }
    out.serviceAccountPrivateKey = pem;
  }
  const caFile = f.optionalString('--root-ca-file');
  if (caFile) {
    const pem = readFlagFile('--root-ca-file', caFile);
    if (!/-----BEGIN CERTIFICATE-----/.test(pem)) throw new OptionsError(`--root-ca-file ${caFile}: no PEM-encoded certificate found`);
    out.rootCA = pem;
  }
  return out;
}

/**
 * --cluster-signing-cert-file and --cluster-signing-key-file, read and checked (a pair that cannot
 * sign is refused by name). As established, both left at their defaults with those files missing
 * means no signing CA (csrsigning stays off, logged); a path given explicitly must be readable.
 */
function clusterSigningFiles(f: FlagValues): Pick<ControllerManagerConfig, 'clusterSigning'> {
  const certFile = f.string('--cluster-signing-cert-file');
  const keyFile = f.string('--cluster-signing-key-file');
  const defaults = certFile === DEFAULT_CLUSTER_SIGNING_CERT_FILE && keyFile === DEFAULT_CLUSTER_SIGNING_KEY_FILE;
  if (certFile === '' || keyFile === '' || (defaults && !existsSync(certFile) && !existsSync(keyFile))) return {};
  const certPem = readFlagFile('--cluster-signing-cert-file', certFile);
  const keyPem = readFlagFile('--cluster-signing-key-file', keyFile);
  try {
    checkSigningCA(certPem, keyPem, `--cluster-signing-cert-file ${certFile} and --cluster-signing-key-file ${keyFile}`);
  } catch (e) {
    if (e instanceof SigningCAError) throw new OptionsError(e.message);
    throw e;
  }
  return { clusterSigning: { certPem, keyPem } };
}

export function resolveControllerManagerOptions(opts: Record<string, unknown>): ControllerManagerOptions {
  const common = resolveCommonOptions(opts, 'controller-manager');
  const settings = resolveControllerSettings(opts);
  return {
    ...settings,
    common,
    client: resolveApiClientOptions(opts),
    leaderElection: resolveLeaderElectionOptions(opts),
    minResyncPeriodMs: resolveMinResyncPeriod(opts),
    delegatedAuth: resolveDelegatedAuthOptions(opts),
  };
}
