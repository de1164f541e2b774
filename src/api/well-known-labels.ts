/**
 * Well-known label, annotation and taint keys, as the established system names them with the
 * neutral word `svc` (kubernetes.io/hostname -> svc.io/hostname). One home: the scheduler, the
 * simulated nodes and the controllers read these constants, never string copies.
 */

export const LABEL_HOSTNAME = 'svc.io/hostname';
export const LABEL_ZONE = 'topology.svc.io/zone';
export const LABEL_REGION = 'topology.svc.io/region';
export const LABEL_INSTANCE_TYPE = 'node.svc.io/instance-type';
export const LABEL_ARCH = 'svc.io/arch';
export const LABEL_OS = 'svc.io/os';

/** Taints the node lifecycle puts on nodes (and the scheduler tolerates specially). */
export const TAINT_NODE_NOT_READY = 'node.svc.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.svc.io/unreachable';
export const TAINT_NODE_UNSCHEDULABLE = 'node.svc.io/unschedulable';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.svc.io/memory-pressure';
export const TAINT_NODE_DISK_PRESSURE = 'node.svc.io/disk-pressure';
export const TAINT_NODE_PID_PRESSURE = 'node.svc.io/pid-pressure';
export const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.svc.io/network-unavailable';

/** Node annotation listing pods to avoid (NodePreferAvoidPods score). */
export const ANNOTATION_PREFER_AVOID_PODS = 'scheduler.alpha.svc.io/preferAvoidPods';

/** The label a Deployment puts on its ReplicaSets and their pods: the hash of the pod template. */
export const LABEL_POD_TEMPLATE_HASH = 'pod-template-hash';
/** Deployment and ReplicaSet annotations the deployment controller keeps (and `rollout history|undo` read). */
export const ANNOTATION_DEPLOYMENT_REVISION = 'deployment.svc.io/revision';
/**
 * The established spelling of the revision annotation, which real kubectl reads for `rollout
 * history` and `rollout undo`: the deployment controller writes it alongside ours (a client alias).
 */
export const ANNOTATION_DEPLOYMENT_REVISION_CLIENT_ALIAS = 'deployment.kubernetes.io/revision';
export const ANNOTATION_DEPLOYMENT_REVISION_HISTORY = 'deployment.svc.io/revision-history';
export const ANNOTATION_DEPLOYMENT_DESIRED_REPLICAS = 'deployment.svc.io/desired-replicas';
export const ANNOTATION_DEPLOYMENT_MAX_REPLICAS = 'deployment.svc.io/max-replicas';
/** Why a change was made, shown by `rollout history`; copied from a Deployment to its ReplicaSets. */
export const ANNOTATION_CHANGE_CAUSE = 'svc.io/change-cause';

/** On a pod a node agent created for a static pod of its own (the established kubernetes.io/config.mirror). */
export const ANNOTATION_MIRROR_POD = 'svc.io/config.mirror';

// Volumes (the established pv.kubernetes.io/..., volume.kubernetes.io/... and storageclass.kubernetes.io/... keys).
/** On a claim and a volume the binder finished binding ("yes"). */
export const ANNOTATION_BIND_COMPLETED = 'pv.svc.io/bind-completed';
/** On a claim or volume whose binding the binder made (not the user's pre-binding): "yes". */
export const ANNOTATION_BOUND_BY_CONTROLLER = 'pv.svc.io/bound-by-controller';
/** On a volume: the provisioner that made it (the established pv.kubernetes.io/provisioned-by). */
export const ANNOTATION_PROVISIONED_BY = 'pv.svc.io/provisioned-by';
/** On a claim: the provisioner asked to make its volume (GA and beta spellings, both written as established). */
export const ANNOTATION_STORAGE_PROVISIONER = 'volume.svc.io/storage-provisioner';
export const ANNOTATION_BETA_STORAGE_PROVISIONER = 'volume.beta.svc.io/storage-provisioner';
/** On a claim of a WaitForFirstConsumer class: the node the scheduler picked for its first pod. */
export const ANNOTATION_SELECTED_NODE = 'volume.svc.io/selected-node';
/** The beta storage-class annotation on claims and volumes (read before spec.storageClassName, as established). */
export const ANNOTATION_BETA_STORAGE_CLASS = 'volume.beta.svc.io/storage-class';
/** On a StorageClass: "true" makes it the default for claims that name none. */
export const ANNOTATION_DEFAULT_STORAGE_CLASS = 'storageclass.svc.io/is-default-class';
export const ANNOTATION_BETA_DEFAULT_STORAGE_CLASS = 'storageclass.beta.svc.io/is-default-class';
/** Finalizers the protection controllers remove once a volume or claim is no longer in use. */
export const FINALIZER_PV_PROTECTION = 'svc.io/pv-protection';
export const FINALIZER_PVC_PROTECTION = 'svc.io/pvc-protection';
/** Node annotation: seconds a node agent may cache objects (Secrets, ConfigMaps); kept by the ttl controller by cluster size. */
export const ANNOTATION_NODE_TTL = 'node.alpha.svc.io/ttl';

// The cloud controllers' keys (established: the same under kubernetes.io / cloudprovider.kubernetes.io).
/** Finalizer the service controller puts on a LoadBalancer Service until its cloud load balancer is deleted. */
export const FINALIZER_LOAD_BALANCER_CLEANUP = 'service.svc.io/load-balancer-cleanup';
/** Node label: leave this node out of every external load balancer's targets. */
export const LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS = 'node.svc.io/exclude-from-external-load-balancers';
/** Node label of control-plane nodes, left out of load balancers (the established legacy role rule). */
export const LABEL_NODE_ROLE_MASTER = 'node-role.svc.io/master';
/** Taint a node agent started with an external cloud provider registers with; cloud-node removes it once it has initialised the node. */
export const TAINT_EXTERNAL_CLOUD_PROVIDER = 'node.cloudprovider.svc.io/uninitialized';
/** Taint cloud-node-lifecycle puts on a node whose instance is stopped. */
export const TAINT_NODE_SHUTDOWN = 'node.cloudprovider.svc.io/shutdown';
/** The beta spellings of the zone, region and instance-type labels, set beside the GA ones as established. */
export const LABEL_BETA_ZONE = 'failure-domain.beta.svc.io/zone';
export const LABEL_BETA_REGION = 'failure-domain.beta.svc.io/region';
export const LABEL_BETA_INSTANCE_TYPE = 'beta.svc.io/instance-type';
