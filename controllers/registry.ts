/**
 * The one list of the controller manager's controllers (spec: "Controllers (all)"): each name,
 * whether `*` turns it on, and, once it is built here, how to make its definition from the
 * manager's settings. `--controllers`, `--help`, the controller manager, `svc up`, the test
 * cluster and `svc charts` all read this list; there is no second one.
 *
 * `--controllers` as established: `*` enables every on-by-default controller, `name` enables one,
 * `-name` disables one (an explicit name wins over `*`). Here, a controller of the list that is not
 * built yet is refused when named explicitly; under `*` it is reported as not built and skipped.
 */
import type { ControllerDefinition } from '../src/runtime/define-controller.js';
import type { SvcObject } from '../src/api/types.js';
import type { ControllerManagerConfig } from './config.js';
import { attachDetachController } from './attachdetach/index.js';
import { bootstrapSignerController } from './bootstrapsigner/index.js';
import { clusterRoleAggregationController } from './clusterroleaggregation/index.js';
import { cronJobController } from './cronjob/index.js';
import { csrApprovingController } from './csrapproving/index.js';
import { csrCleanerController } from './csrcleaner/index.js';
import { csrSigningController } from './csrsigning/index.js';
import { daemonSetController } from './daemonset/index.js';
import { deploymentController } from './deployment/index.js';
import { disruptionController } from './disruption/index.js';
import { endpointController } from './endpoint/index.js';
import { endpointSliceController } from './endpointslice/index.js';
import { garbageCollectorController } from './garbagecollector/index.js';
import { hpaController } from './horizontalpodautoscaling/index.js';
import { jobController } from './job/index.js';
import { namespaceController } from './namespace/index.js';
import { nodeIpamController } from './nodeipam/index.js';
import { persistentVolumeBinderController } from './persistentvolume/index.js';
import { persistentVolumeExpanderController } from './persistentvolume-expander/index.js';
import { pvProtectionController } from './pv-protection/index.js';
import { pvcProtectionController } from './pvc-protection/index.js';
import { nodeLifecycleController } from './nodelifecycle/index.js';
import { podGcController } from './podgc/index.js';
import { replicaSetController } from './replicaset/index.js';
import { replicationControllerController } from './replicationcontroller/index.js';
import { resourceQuotaController } from './resourcequota/index.js';
import { rootCACertPublisherController } from './rootcacertpublisher/index.js';
import { serviceAccountController } from './serviceaccount/index.js';
import { serviceAccountTokenController } from './serviceaccount-token/index.js';
import { signingKeyFrom } from '../src/api/service-account-keys.js';
import { statefulSetController } from './statefulset/index.js';
import { tokenCleanerController } from './tokencleaner/index.js';
import { ttlAfterFinishedController } from './ttlafterfinished/index.js';
import { ttlController } from './ttl/index.js';

/** A controller that cannot run with the given settings says why (logged; it stays off). */
export interface ControllerOff {
  off: string;
}

export interface BuiltinController {
  readonly name: string;
  /** Whether `*` enables it (bootstrapsigner and tokencleaner: no). */
  readonly defaultOn: boolean;
  /** One line for --help and docs. */
  readonly summary: string;
  /** Absent while the controller is not built yet. */
  readonly build?: (cfg: ControllerManagerConfig) => ControllerDefinition<SvcObject> | ControllerOff;
  /**
   * Works only against a cloud provider (the spec lists it here and in the cloud controller manager):
   * this version has none, so it is refused by name with that reason, and skipped under `*`.
   */
  readonly needsCloudProvider?: true;
}

/** Why a cloud controller does not run here (one sentence for --help, logs and refusals). */
export const NEEDS_CLOUD_PROVIDER = 'needs a cloud provider (--cloud-provider), and this version has none yet';

/** The job and cronjob controllers have no worker flag; the established manager runs 5 and 5. */
const JOB_WORKERS = 5;
/** The disruption controller has no worker flag either; the established manager runs 1. */
const DISRUPTION_WORKERS = 1;
/** Nor has the clusterrole-aggregation controller; the established manager runs 5. */
const CLUSTERROLE_AGGREGATION_WORKERS = 5;
/**
 * Nor has the horizontalpodautoscaling controller (the established manager's default is 5). A sync
 * is a few API calls in a row (the target's scale, its update, the HPA's status) that mostly wait:
 * with 5, a round of 100 HPAs whose first rescales set off their Deployments' pods in the same
 * process queued each sync behind the others' waits and ended up to 15 s after the period began
 * (docs/benchmarks.md "Horizontal pod autoscaling"). 100 lets every HPA of such a round wait at once;
 * a waiting sync costs nothing.
 */
const HPA_WORKERS = 100;
/** Nor have csrapproving and csrsigning; the established manager runs 5 each. */
const CSR_WORKERS = 5;
/** Nor has the daemonset controller; the established manager runs 2. */
const DAEMONSET_WORKERS = 2;

const def = <T extends SvcObject>(d: ControllerDefinition<T>) => d as unknown as ControllerDefinition<SvcObject>;

export const BUILTIN_CONTROLLERS: readonly BuiltinController[] = [
  {
    name: 'attachdetach',
    defaultOn: true,
    summary: "Attaches and detaches volumes to and from nodes (VolumeAttachments; attaches the simulated provisioner's volumes itself).",
    build: (cfg) => def(attachDetachController({ syncPeriodMs: cfg.attachDetachReconcileSyncPeriodMs, disableReconcileSync: cfg.disableAttachDetachReconcileSync })),
  },
  { name: 'bootstrapsigner', defaultOn: false, summary: 'Signs the cluster-info ConfigMap with bootstrap tokens.', build: () => def(bootstrapSignerController()) },
  { name: 'cloud-node-lifecycle', defaultOn: true, summary: 'Removes nodes the cloud provider no longer has.', needsCloudProvider: true },
  {
    name: 'clusterrole-aggregation',
    defaultOn: true,
    summary: 'Aggregates ClusterRoles by label selector.',
    build: () => def(clusterRoleAggregationController(CLUSTERROLE_AGGREGATION_WORKERS)),
  },
  { name: 'cronjob', defaultOn: true, summary: 'Creates Jobs on a schedule.', build: () => def(cronJobController(JOB_WORKERS)) },
  {
    name: 'csrapproving',
    defaultOn: true,
    summary: 'Approves node client certificate requests their requester may make (SubjectAccessReview).',
    build: () => def(csrApprovingController(CSR_WORKERS)),
  },
  { name: 'csrcleaner', defaultOn: true, summary: 'Removes old certificate requests.', build: () => def(csrCleanerController()) },
  {
    name: 'csrsigning',
    defaultOn: true,
    summary: 'Signs approved certificate requests of the built-in signers (needs --cluster-signing-cert-file and --cluster-signing-key-file).',
    build: (cfg) =>
      cfg.clusterSigning
        ? def(csrSigningController({ ...cfg.clusterSigning, durationMs: cfg.clusterSigningDurationMs, concurrency: CSR_WORKERS }))
        : { off: 'no CA to sign with: --cluster-signing-cert-file and --cluster-signing-key-file are at their defaults and those files do not exist' },
  },
  { name: 'daemonset', defaultOn: true, summary: 'One pod per eligible node.', build: () => def(daemonSetController(DAEMONSET_WORKERS)) },
  {
    name: 'deployment',
    defaultOn: true,
    summary: 'Rolls ReplicaSets out and back.',
    build: (cfg) => def(deploymentController({ concurrency: cfg.concurrentDeploymentSyncs, syncPeriodMs: cfg.deploymentSyncPeriodMs })),
  },
  { name: 'disruption', defaultOn: true, summary: 'Keeps PodDisruptionBudget status (what pod eviction checks).', build: () => def(disruptionController(DISRUPTION_WORKERS)) },
  {
    name: 'endpoint',
    defaultOn: true,
    summary: 'Endpoints of Services from their pods (ready and not ready).',
    build: (cfg) => def(endpointController({ concurrency: cfg.concurrentEndpointSyncs, batchPeriodMs: cfg.endpointUpdatesBatchPeriodMs })),
  },
  {
    name: 'endpointslice',
    defaultOn: true,
    summary: 'EndpointSlices of Services.',
    build: (cfg) =>
      def(endpointSliceController({ concurrency: cfg.concurrentServiceEndpointSyncs, maxEndpointsPerSlice: cfg.maxEndpointsPerSlice, batchPeriodMs: cfg.endpointSliceUpdatesBatchPeriodMs })),
  },
  {
    name: 'garbagecollector',
    defaultOn: true,
    summary: 'Deletes objects whose owners are gone (background, foreground, orphan).',
    build: (cfg) => (cfg.enableGarbageCollector ? garbageCollectorController({ concurrency: cfg.concurrentGcSyncs }) : { off: '--enable-garbage-collector=false' }),
  },
  {
    name: 'horizontalpodautoscaling',
    defaultOn: true,
    summary: 'Scales workloads by observed usage.',
    build: (cfg) =>
      def(
        hpaController({
          concurrency: HPA_WORKERS,
          syncPeriodMs: cfg.hpaSyncPeriodMs,
          downscaleStabilizationMs: cfg.hpaDownscaleStabilizationMs,
          tolerance: cfg.hpaTolerance,
          cpuInitializationPeriodMs: cfg.hpaCpuInitializationPeriodMs,
          initialReadinessDelayMs: cfg.hpaInitialReadinessDelayMs,
        }),
      ),
  },
  { name: 'job', defaultOn: true, summary: 'Runs pods to completion.', build: () => def(jobController(JOB_WORKERS)) },
  {
    name: 'namespace',
    defaultOn: true,
    summary: 'Empties and removes namespaces being deleted.',
    build: (cfg) => def(namespaceController({ concurrency: cfg.concurrentNamespaceSyncs, syncPeriodMs: cfg.namespaceSyncPeriodMs })),
  },
  {
    name: 'nodeipam',
    defaultOn: true,
    summary: 'Allocates pod CIDRs to nodes (needs --allocate-node-cidrs and --cluster-cidr).',
    build: (cfg) =>
      cfg.allocateNodeCidrs
        ? def(nodeIpamController({ clusterCidrs: cfg.clusterCidrs, nodeCidrMaskSizes: cfg.nodeCidrMaskSizes, serviceCidrs: cfg.serviceCidrs }))
        : { off: '--allocate-node-cidrs is false: nodes get no pod CIDRs' },
  },
  {
    name: 'nodelifecycle',
    defaultOn: true,
    summary: 'Marks unresponsive nodes Unknown, taints nodes by condition and evicts pods from failed nodes (taint manager).',
    build: (cfg) => def(nodeLifecycleController(cfg)),
  },
  {
    name: 'persistentvolume-binder',
    defaultOn: true,
    summary: 'Binds claims to volumes, provisions volumes for classes, reclaims released volumes.',
    build: (cfg) =>
      def(
        persistentVolumeBinderController({
          syncPeriodMs: cfg.pvClaimBinderSyncPeriodMs,
          enableDynamicProvisioning: cfg.enableDynamicProvisioning,
          enableHostPathProvisioner: cfg.enableHostPathProvisioner,
          recycler: cfg.pvRecycler,
        }),
      ),
  },
  { name: 'persistentvolume-expander', defaultOn: true, summary: 'Expands volumes whose claims grew.', build: () => def(persistentVolumeExpanderController()) },
  {
    name: 'podgc',
    defaultOn: true,
    summary: 'Deletes finished pods over a threshold and pods of missing nodes.',
    build: (cfg) => def(podGcController({ terminatedPodGcThreshold: cfg.terminatedPodGcThreshold, periodMs: cfg.podGcPeriodMs })),
  },
  { name: 'pv-protection', defaultOn: true, summary: 'Keeps volumes in use from being deleted.', build: () => def(pvProtectionController()) },
  { name: 'pvc-protection', defaultOn: true, summary: 'Keeps claims in use from being deleted.', build: () => def(pvcProtectionController()) },
  {
    name: 'replicaset',
    defaultOn: true,
    summary: 'Keeps spec.replicas pods of a ReplicaSet running.',
    build: (cfg) => def(replicaSetController(cfg.concurrentReplicaSetSyncs)),
  },
  {
    name: 'replicationcontroller',
    defaultOn: true,
    summary: 'Keeps spec.replicas pods of a ReplicationController running.',
    build: (cfg) => def(replicationControllerController(cfg.concurrentRcSyncs)),
  },
  {
    name: 'resourcequota',
    defaultOn: true,
    summary: 'Keeps ResourceQuota usage.',
    build: (cfg) => def(resourceQuotaController({ concurrency: cfg.concurrentResourceQuotaSyncs, syncPeriodMs: cfg.resourceQuotaSyncPeriodMs })),
  },
  {
    name: 'root-ca-cert-publisher',
    defaultOn: true,
    summary: 'Publishes the root CA in every namespace (ConfigMap svc-root-ca.crt).',
    // One worker, as established (it has no --concurrent-* flag).
    build: (cfg) =>
      cfg.rootCA !== undefined
        ? def(rootCACertPublisherController({ rootCA: cfg.rootCA, concurrency: 1 }))
        : { off: 'no root CA: neither --root-ca-file nor a certificate authority in the client configuration' },
  },
  { name: 'route', defaultOn: true, summary: 'Configures cloud routes for pod CIDRs.', needsCloudProvider: true },
  { name: 'service', defaultOn: true, summary: 'Cloud load balancers for Services.', needsCloudProvider: true },
  {
    name: 'serviceaccount',
    defaultOn: true,
    summary: 'A default ServiceAccount in every active namespace.',
    build: (cfg) => def(serviceAccountController(cfg.concurrentServiceAccountSyncs)),
  },
  {
    name: 'serviceaccount-token',
    defaultOn: true,
    summary: 'Token Secrets for ServiceAccounts (needs --service-account-private-key-file).',
    build: (cfg) =>
      cfg.serviceAccountPrivateKey
        ? def(
            serviceAccountTokenController({
              key: signingKeyFrom(cfg.serviceAccountPrivateKey, '--service-account-private-key-file'),
              concurrency: cfg.concurrentServiceAccountTokenSyncs,
              ...(cfg.rootCA !== undefined ? { rootCA: cfg.rootCA } : {}),
            }),
          )
        : { off: 'no --service-account-private-key-file: it needs a key to sign tokens with' },
  },
  {
    name: 'statefulset',
    defaultOn: true,
    summary: 'Pods with stable names and claims, in order.',
    build: (cfg) => def(statefulSetController(cfg.concurrentStatefulSetSyncs)),
  },
  { name: 'tokencleaner', defaultOn: false, summary: 'Deletes expired bootstrap tokens.', build: () => def(tokenCleanerController()) },
  { name: 'ttl', defaultOn: true, summary: 'Sets the object cache TTL annotation on nodes by cluster size.', build: () => def(ttlController()) },
  {
    name: 'ttl-after-finished',
    defaultOn: true,
    summary: 'Deletes finished Jobs after their TTL (feature gate TTLAfterFinished).',
    build: (cfg) => (cfg.featureGates['TTLAfterFinished'] ? def(ttlAfterFinishedController(cfg.concurrentTtlAfterFinishedSyncs)) : { off: 'the feature gate TTLAfterFinished is off (alpha; --feature-gates=TTLAfterFinished=true)' }),
  },
];

export const CONTROLLER_NAMES: readonly string[] = BUILTIN_CONTROLLERS.map((c) => c.name);

export class ControllerSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerSelectionError';
  }
}

export interface ControllerSelection {
  /** Built and enabled, in list order. */
  enabled: BuiltinController[];
  /** Enabled by `*` but not built yet (reported, skipped). */
  notBuilt: string[];
  /** Enabled by `*` but working only against a cloud provider, which this version has not (reported, skipped). */
  needCloudProvider: string[];
  /** Off (by default or with `-name`). */
  disabled: string[];
}

/** Applies `--controllers` values to the list; throws ControllerSelectionError naming the bad value. */
export function selectControllers(values: readonly string[]): ControllerSelection {
  const named = new Set<string>();
  const minus = new Set<string>();
  let star = false;
  for (const raw of values) {
    const v = raw.trim();
    if (v === '*') {
      star = true;
      continue;
    }
    const name = v.startsWith('-') ? v.slice(1) : v;
    if (!CONTROLLER_NAMES.includes(name)) {
      throw new ControllerSelectionError(`"${v}" is not a known controller; the controllers are: ${CONTROLLER_NAMES.join(', ')}`);
    }
    (v.startsWith('-') ? minus : named).add(name);
  }
  const out: ControllerSelection = { enabled: [], notBuilt: [], needCloudProvider: [], disabled: [] };
  for (const c of BUILTIN_CONTROLLERS) {
    const on = named.has(c.name) ? true : minus.has(c.name) ? false : star && c.defaultOn;
    if (!on) out.disabled.push(c.name);
    else if (c.build) out.enabled.push(c);
    else if (c.needsCloudProvider) {
      if (named.has(c.name)) throw new ControllerSelectionError(`controller "${c.name}" ${NEEDS_CLOUD_PROVIDER}; leave it out`);
      out.needCloudProvider.push(c.name);
    } else if (named.has(c.name)) {
      throw new ControllerSelectionError(
        `controller "${c.name}" is not built yet in this version (built: ${BUILTIN_CONTROLLERS.filter((b) => b.build).map((b) => b.name).join(', ')}); leave it out, or use * to run the built ones`,
      );
    } else out.notBuilt.push(c.name);
  }
  return out;
}

/** Definitions of the selected controllers, and the ones whose prerequisites are missing with why. */
export function buildControllers(selected: readonly BuiltinController[], cfg: ControllerManagerConfig): { definitions: ControllerDefinition<SvcObject>[]; off: { name: string; reason: string }[] } {
  const definitions: ControllerDefinition<SvcObject>[] = [];
  const off: { name: string; reason: string }[] = [];
  for (const c of selected) {
    const made = c.build!(cfg);
    if ('off' in made) off.push({ name: c.name, reason: made.off });
    else definitions.push(made);
  }
  return { definitions, off };
}
