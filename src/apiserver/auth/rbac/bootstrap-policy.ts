/**
 * The default RBAC policy (data only): the established bootstrap ClusterRoles and
 * ClusterRoleBindings, and the Roles and RoleBindings of `svc-system` and `svc-public`, in our names (`system:svc-scheduler` for `system:kube-scheduler`, groups
 * `*.svc.io`, `svc-system` for `kube-system`). ./bootstrap-reconciler.ts keeps them present at
 * start. Every object carries the label `svc.io/bootstrapping: rbac-defaults` and the annotation
 * `rbac.authorization.svc.io/autoupdate: "true"` (set it to "false" to keep your own edits).
 *
 * The controller roles are those of the controllers this project runs (controllers/registry.ts),
 * each `system:controller:<established account name>` bound to the service account of that name
 * in `svc-system` (what `--use-service-account-credentials` gives each controller).
 */
import { BUILTIN_SIGNERS, SIGNER_APISERVER_CLIENT, SIGNER_APISERVER_CLIENT_NODE, SIGNER_LEGACY_UNKNOWN, SIGNER_NODE_SERVING } from '../../../api/certificate-signers.js';
import type { SvcObject } from '../../../api/types.js';
import { RBAC_GROUP } from '../../../api/kinds/rbac/roles.js';
import { AUTHENTICATED_GROUP, MASTERS_GROUP, SERVICE_ACCOUNTS_GROUP, UNAUTHENTICATED_GROUP } from '../user.js';
import type { PolicyRule } from './rules.js';

export const BOOTSTRAP_LABEL = 'svc.io/bootstrapping';
export const BOOTSTRAP_LABEL_VALUE = 'rbac-defaults';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.svc.io/autoupdate';
export const AGGREGATE_TO_ADMIN = 'rbac.authorization.svc.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.svc.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.svc.io/aggregate-to-view';
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';
/** Where the controllers' service accounts live. */
export const CONTROLLER_NAMESPACE = 'svc-system';

export const SCHEDULER_USER = 'system:svc-scheduler';
export const CONTROLLER_MANAGER_USER = 'system:svc-controller-manager';
export const PROXY_USER = 'system:svc-proxy';
/** The simulated-node fleet's shared identity (src/cli/in-process-client.ts NODES_USER). */
export const NODES_FLEET_USER = 'system:svc-nodes';
export const NODES_GROUP = 'system:nodes';
export const MONITORING_GROUP = 'system:monitoring';

const CORE = '';
const APPS = 'apps';
const AUTHENTICATION = 'authentication.svc.io';
const AUTHORIZATION = 'authorization.svc.io';
const AUTOSCALING = 'autoscaling';
const BATCH = 'batch';
const CERTIFICATES = 'certificates.svc.io';
const COORDINATION = 'coordination.svc.io';
const DISCOVERY = 'discovery.svc.io';
const EVENTS = 'events.svc.io';
const EXTENSIONS = 'extensions';
const NETWORKING = 'networking.svc.io';
const NODE = 'node.svc.io';
const POLICY = 'policy';
const STORAGE = 'storage.svc.io';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];
const READ_UPDATE = ['get', 'list', 'watch', 'update', 'patch'];

/** A resource rule (the established NewRule(verbs).Groups(...).Resources(...)). */
function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...groups], resources: [...resources], ...(names ? { resourceNames: [...names] } : {}) };
}
function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...paths] };
}
const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], [CORE, EVENTS], ['events']);

export interface BootstrapClusterRole {
  name: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
  aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
}

export interface BootstrapBinding {
  name: string;
  role: string;
  subjects: { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string }[];
}

const users = (...names: string[]) => names.map((name) => ({ kind: 'User' as const, name }));
const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group' as const, name }));

/**
 * The selectors of an aggregated default role: our label key, and the established one, which
 * charts written for the established server put on their roles (label keys have no alias table,
 * unlike groups, so both are selected).
 */
function aggregating(key: string): { clusterRoleSelectors: { matchLabels: Record<string, string> }[] } {
  return { clusterRoleSelectors: [{ matchLabels: { [key]: 'true' } }, { matchLabels: { [key.replace('.svc.io/', '.k8s.io/')]: 'true' } }] };
}

/** The node agent's rules (the established NodeRules): the system:node role's, and what the Node authorizer narrows per node. */
export function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], [AUTHENTICATION], ['tokenreviews']),
    rule(['create'], [AUTHORIZATION], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(READ, [CORE], ['services']),
    rule(['create', 'get', 'list', 'watch'], [CORE], ['nodes']),
    rule(['update', 'patch'], [CORE], ['nodes/status']),
    rule(['update', 'patch'], [CORE], ['nodes']),
    rule(['create', 'update', 'patch'], [CORE], ['events']),
    rule(READ, [CORE], ['pods']),
    rule(['create', 'delete'], [CORE], ['pods']),
    rule(['update', 'patch'], [CORE], ['pods/status']),
    rule(['create'], [CORE], ['pods/eviction']),
    rule(['get', 'list', 'watch'], [CORE], ['secrets', 'configmaps']),
    rule(['get'], [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [CORE], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], [CERTIFICATES], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [COORDINATION], ['leases']),
    rule(['get'], [STORAGE], ['volumeattachments']),
    rule(['get', 'update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
    rule(['create'], [CORE], ['serviceaccounts/token']),
    rule(['get', 'watch', 'list'], [STORAGE], ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [STORAGE], ['csinodes']),
    rule(['get', 'list', 'watch'], [NODE], ['runtimeclasses']),
  ];
}

/** The established top-level cluster roles. */
function clusterRoles(): BootstrapClusterRole[] {
  return [
    { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
    {
      name: 'system:discovery',
      rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])],
    },
    {
      name: 'system:monitoring',
      rules: [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])],
    },
    {
      name: 'system:basic-user',
      rules: [rule(['create'], [AUTHORIZATION], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], [AUTHENTICATION], ['selfsubjectreviews'])],
    },
    { name: 'system:public-info-viewer', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])] },
    { name: 'admin', rules: [], aggregationRule: aggregating(AGGREGATE_TO_ADMIN) },
    { name: 'edit', rules: [], labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregationRule: aggregating(AGGREGATE_TO_EDIT) },
    { name: 'view', rules: [], labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregationRule: aggregating(AGGREGATE_TO_VIEW) },
    {
      name: 'system:aggregate-to-admin',
      labels: { [AGGREGATE_TO_ADMIN]: 'true' },
      rules: [rule(['create'], [AUTHORIZATION], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings'])],
    },
    {
      name: 'system:aggregate-to-edit',
      labels: { [AGGREGATE_TO_EDIT]: 'true' },
      rules: [
        // Read on the resources that could escalate (edit but not view).
        rule(READ, [CORE], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule(['impersonate'], [CORE], ['serviceaccounts']),
        rule(WRITE, [CORE], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule(['create'], [CORE], ['pods/eviction']),
        rule(WRITE, [CORE], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets']),
        rule(WRITE, [APPS], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        rule(WRITE, [AUTOSCALING], ['horizontalpodautoscalers']),
        rule(WRITE, [BATCH], ['jobs', 'cronjobs']),
        rule(WRITE, [EXTENSIONS], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(WRITE, [POLICY], ['poddisruptionbudgets']),
        rule(WRITE, [NETWORKING], ['networkpolicies', 'ingresses']),
      ],
    },
    {
      name: 'system:aggregate-to-view',
      labels: { [AGGREGATE_TO_VIEW]: 'true' },
      rules: [
        rule(READ, [CORE], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        rule(READ, [CORE], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        // Reading namespaces at namespace scope means reading *this* namespace.
        rule(READ, [CORE], ['namespaces']),
        rule(READ, [DISCOVERY], ['endpointslices']),
        rule(READ, [APPS], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        rule(READ, [AUTOSCALING], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, [BATCH], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(READ, [EXTENSIONS], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(READ, [POLICY], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, [NETWORKING], ['networkpolicies', 'ingresses', 'ingresses/status']),
      ],
    },
    { name: 'system:node', rules: nodeRules() },
    {
      name: 'system:node-proxier',
      rules: [rule(['list', 'watch'], [CORE], ['services', 'endpoints']), rule(['get', 'list', 'watch'], [CORE], ['nodes']), eventsRule(), rule(['list', 'watch'], [DISCOVERY], ['endpointslices'])],
    },
    { name: 'system:auth-delegator', rules: [rule(['create'], [AUTHENTICATION], ['tokenreviews']), rule(['create'], [AUTHORIZATION], ['subjectaccessreviews'])] },
    {
      name: 'system:volume-scheduler',
      rules: [rule(READ_UPDATE, [CORE], ['persistentvolumes']), rule(READ, [STORAGE], ['storageclasses']), rule(READ_UPDATE, [CORE], ['persistentvolumeclaims'])],
    },
    // Unbound helpers of the established policy, for administrators to bind.
    { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], [CERTIFICATES], ['certificatesigningrequests'])] },
    { name: 'system:node-problem-detector', rules: [rule(['get'], [CORE], ['nodes']), rule(['patch'], [CORE], ['nodes/status']), eventsRule()] },
    {
      name: 'system:persistent-volume-provisioner',
      rules: [
        rule(['get', 'list', 'watch', 'create', 'delete'], [CORE], ['persistentvolumes']),
        rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']),
        rule(READ, [STORAGE], ['storageclasses']),
        rule(['watch'], [CORE], ['events']),
        eventsRule(),
      ],
    },
    // Ours: the simulated-node fleet's shared informers (each node writes as system:node:<name>,
    // which the Node authorizer decides; the fleet only watches the pods and nodes it serves) and
    // the usage it reports as the metrics server would (PodMetrics, NodeMetrics: what the HPA reads).
    {
      name: 'system:svc-nodes',
      rules: [rule(READ, [CORE], ['pods', 'nodes']), rule(['get', 'create', 'update', 'delete'], ['metrics.svc.io'], ['pods', 'nodes'])],
    },
    { name: 'system:svc-aggregator', rules: [rule(READ, [CORE], ['services', 'endpoints'])] },
    { name: `system:${CERTIFICATES}:certificatesigningrequests:nodeclient`, rules: [rule(['create'], [CERTIFICATES], ['certificatesigningrequests/nodeclient'])] },
    { name: `system:${CERTIFICATES}:certificatesigningrequests:selfnodeclient`, rules: [rule(['create'], [CERTIFICATES], ['certificatesigningrequests/selfnodeclient'])] },
    // The established approver roles, one per built-in signer (for administrators to bind).
    ...BUILTIN_SIGNERS.map((signer) => ({ name: `system:${CERTIFICATES}:${signer.slice(signer.indexOf('/') + 1)}-approver`, rules: [rule(['approve'], [CERTIFICATES], ['signers'], [signer])] })),
    { name: 'system:service-account-issuer-discovery', rules: [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])] },
    {
      name: 'system:svc-controller-manager',
      rules: [
        eventsRule(),
        // Leader election: the Lease, and the Endpoints the default `endpointsleases` lock also
        // writes (the established policy of the releases whose default lock that is).
        rule(['create'], [COORDINATION], ['leases']),
        rule(['get', 'update'], [COORDINATION], ['leases'], ['svc-controller-manager']),
        rule(['create'], [CORE], ['endpoints']),
        rule(['get', 'update'], [CORE], ['endpoints'], ['svc-controller-manager']),
        rule(['create'], [CORE], ['secrets', 'serviceaccounts']),
        rule(['delete'], [CORE], ['secrets']),
        rule(['get'], [CORE], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
        rule(['update'], [CORE], ['secrets', 'serviceaccounts']),
        rule(['create'], [AUTHENTICATION], ['tokenreviews']),
        rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
        // Every shared informer.
        rule(['list', 'watch'], ['*'], ['*']),
        rule(['create'], [CORE], ['serviceaccounts/token']),
      ],
    },
    {
      name: 'system:svc-scheduler',
      rules: [
        eventsRule(),
        // Leader election (the `endpointsleases` lock: its Endpoints and its Lease).
        rule(['create'], [COORDINATION], ['leases']),
        rule(['get', 'update'], [COORDINATION], ['leases'], ['svc-scheduler']),
        rule(['create'], [CORE], ['endpoints']),
        rule(['get', 'update'], [CORE], ['endpoints'], ['svc-scheduler']),
        rule(READ, [CORE], ['nodes']),
        rule(['get', 'list', 'watch', 'delete'], [CORE], ['pods']),
        rule(['create'], [CORE], ['pods/binding', 'bindings']),
        rule(['patch', 'update'], [CORE], ['pods/status']),
        rule(READ, [CORE], ['services', 'replicationcontrollers']),
        rule(READ, [APPS, EXTENSIONS], ['replicasets']),
        rule(READ, [APPS], ['statefulsets']),
        rule(READ, [POLICY], ['poddisruptionbudgets']),
        rule(READ, [CORE], ['persistentvolumeclaims', 'persistentvolumes']),
        rule(['create'], [AUTHENTICATION], ['tokenreviews']),
        rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
        rule(READ, [STORAGE], ['csinodes']),
        rule(READ, [CORE], ['namespaces']),
        rule(READ, [STORAGE], ['csidrivers']),
        rule(READ, [STORAGE], ['csistoragecapacities']),
      ],
    },
  ];
}

function clusterRoleBindings(): BootstrapBinding[] {
  return [
    { name: 'cluster-admin', role: 'cluster-admin', subjects: groups(MASTERS_GROUP) },
    { name: 'system:monitoring', role: 'system:monitoring', subjects: groups(MONITORING_GROUP) },
    { name: 'system:discovery', role: 'system:discovery', subjects: groups(AUTHENTICATED_GROUP) },
    { name: 'system:basic-user', role: 'system:basic-user', subjects: groups(AUTHENTICATED_GROUP) },
    { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: groups(AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP) },
    { name: 'system:node-proxier', role: 'system:node-proxier', subjects: users(PROXY_USER) },
    { name: 'system:svc-controller-manager', role: 'system:svc-controller-manager', subjects: users(CONTROLLER_MANAGER_USER) },
    { name: 'system:svc-scheduler', role: 'system:svc-scheduler', subjects: users(SCHEDULER_USER) },
    { name: 'system:volume-scheduler', role: 'system:volume-scheduler', subjects: users(SCHEDULER_USER) },
    { name: 'system:svc-nodes', role: 'system:svc-nodes', subjects: users(NODES_FLEET_USER) },
    // Established: kept with no subjects (the Node authorizer covers nodes since the group's binding was retired).
    { name: 'system:node', role: 'system:node', subjects: [] },
    { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: groups(SERVICE_ACCOUNTS_GROUP) },
  ];
}

/**
 * Each built controller (controllers/registry.ts name) and the established service account it runs
 * as under --use-service-account-credentials (`svc-system/<account>`, bound to
 * `system:controller:<account>`). A test checks every built controller is listed. null: the
 * controller always runs with the manager's own credentials, as established (the tokens
 * controller signs account tokens, so it cannot itself depend on one).
 */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<string, string | null>> = Object.freeze({
  attachdetach: 'attachdetach-controller',
  // bootstrapsigner and tokencleaner: namespaced Roles only (svc-public, svc-system), as established.
  bootstrapsigner: 'bootstrap-signer',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  cronjob: 'cronjob-controller',
  csrapproving: 'certificate-controller',
  csrcleaner: 'certificate-controller',
  csrsigning: 'certificate-controller',
  daemonset: 'daemon-set-controller',
  deployment: 'deployment-controller',
  disruption: 'disruption-controller',
  endpoint: 'endpoint-controller',
  endpointslice: 'endpointslice-controller',
  garbagecollector: 'generic-garbage-collector',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler',
  job: 'job-controller',
  namespace: 'namespace-controller',
  nodeipam: 'node-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  'persistentvolume-expander': 'expand-controller',
  nodelifecycle: 'node-controller',
  podgc: 'pod-garbage-collector',
  'pv-protection': 'pv-protection-controller',
  'pvc-protection': 'pvc-protection-controller',
  replicaset: 'replicaset-controller',
  replicationcontroller: 'replication-controller',
  resourcequota: 'resourcequota-controller',
  'root-ca-cert-publisher': 'root-ca-cert-publisher',
  serviceaccount: 'service-account-controller',
  'serviceaccount-token': null,
  statefulset: 'statefulset-controller',
  tokencleaner: 'token-cleaner',
  'ttl-after-finished': 'ttl-after-finished-controller',
  ttl: 'ttl-controller',
});

/** The controllers' roles, by the established service-account name of each controller we run. */
function controllerRoles(): BootstrapClusterRole[] {
  const roles: [string, PolicyRule[]][] = [
    [
      'attachdetach-controller',
      [
        rule(['list', 'watch'], [CORE], ['persistentvolumes', 'persistentvolumeclaims']),
        rule(['get', 'list', 'watch'], [CORE], ['nodes']),
        rule(['patch', 'update'], [CORE], ['nodes/status']),
        rule(['list', 'watch'], [CORE], ['pods']),
        eventsRule(),
        rule(['get', 'create', 'delete', 'list', 'watch'], [STORAGE], ['volumeattachments']),
        rule(['get', 'watch', 'list'], [STORAGE], ['csidrivers']),
        rule(['get', 'watch', 'list'], [STORAGE], ['csinodes']),
        // Not in the established role: the built-in simulated attacher (an external attacher's part) sets status.attached.
        rule(['patch'], [STORAGE], ['volumeattachments/status']),
      ],
    ],
    ['clusterrole-aggregation-controller', [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])]],
    [
      'cronjob-controller',
      [
        rule(['get', 'list', 'watch', 'update'], [BATCH], ['cronjobs']),
        rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], [BATCH], ['jobs']),
        rule(['update'], [BATCH], ['cronjobs/status']),
        rule(['update'], [BATCH], ['cronjobs/finalizers']),
        rule(['list', 'delete'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      // csrapproving, csrsigning and csrcleaner (one account, as established).
      'certificate-controller',
      [
        rule(['get', 'list', 'watch', 'delete'], [CERTIFICATES], ['certificatesigningrequests']),
        rule(['update'], [CERTIFICATES], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
        rule(['approve'], [CERTIFICATES], ['signers'], [SIGNER_APISERVER_CLIENT_NODE]),
        rule(['sign'], [CERTIFICATES], ['signers'], [SIGNER_LEGACY_UNKNOWN, SIGNER_APISERVER_CLIENT, SIGNER_APISERVER_CLIENT_NODE, SIGNER_NODE_SERVING]),
        rule(['create'], [AUTHORIZATION], ['subjectaccessreviews']),
        eventsRule(),
      ],
    ],
    [
      'daemon-set-controller',
      [
        rule(['get', 'list', 'watch'], [EXTENSIONS, APPS], ['daemonsets']),
        rule(['update'], [EXTENSIONS, APPS], ['daemonsets/status']),
        rule(['update'], [EXTENSIONS, APPS], ['daemonsets/finalizers']),
        rule(['list', 'watch'], [CORE], ['nodes']),
        rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
        rule(['create'], [CORE], ['pods/binding']),
        rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], [APPS], ['controllerrevisions']),
        eventsRule(),
      ],
    ],
    [
      'deployment-controller',
      [
        rule(['get', 'list', 'watch', 'update'], [EXTENSIONS, APPS], ['deployments']),
        rule(['update'], [EXTENSIONS, APPS], ['deployments/status']),
        rule(['update'], [EXTENSIONS, APPS], ['deployments/finalizers']),
        rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [APPS, EXTENSIONS], ['replicasets']),
        rule(['get', 'list', 'watch', 'update'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      'disruption-controller',
      [
        rule(['get', 'list', 'watch'], [EXTENSIONS, APPS], ['deployments']),
        rule(['get', 'list', 'watch'], [APPS, EXTENSIONS], ['replicasets']),
        rule(['get', 'list', 'watch'], [CORE], ['replicationcontrollers']),
        rule(['get', 'list', 'watch'], [POLICY], ['poddisruptionbudgets']),
        rule(['get', 'list', 'watch'], [APPS], ['statefulsets']),
        rule(['update'], [POLICY], ['poddisruptionbudgets/status']),
        rule(['patch', 'update'], [CORE], ['pods/status']),
        rule(['get'], ['*'], ['*/scale']),
        eventsRule(),
      ],
    ],
    [
      'endpoint-controller',
      [
        rule(['get', 'list', 'watch'], [CORE], ['services', 'pods']),
        rule(['get', 'list', 'create', 'update', 'delete'], [CORE], ['endpoints']),
        rule(['create'], [CORE], ['endpoints/restricted']),
        eventsRule(),
      ],
    ],
    [
      'endpointslice-controller',
      [
        rule(['get', 'list', 'watch'], [CORE], ['services', 'pods', 'nodes']),
        rule(['update'], [CORE], ['services/finalizers']),
        rule(['get', 'list', 'create', 'update', 'delete'], [DISCOVERY], ['endpointslices']),
        eventsRule(),
      ],
    ],
    ['generic-garbage-collector', [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), eventsRule()]],
    [
      'job-controller',
      [
        rule(['get', 'list', 'watch', 'update', 'patch'], [BATCH], ['jobs']),
        rule(['update'], [BATCH], ['jobs/status']),
        rule(['update'], [BATCH], ['jobs/finalizers']),
        rule(['list', 'watch', 'create', 'delete', 'patch'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      'namespace-controller',
      [
        rule(['get', 'list', 'watch', 'delete'], [CORE], ['namespaces']),
        rule(['update'], [CORE], ['namespaces/finalize', 'namespaces/status']),
        rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
      ],
    ],
    [
      'node-controller',
      [
        rule(['get', 'list', 'update', 'delete', 'patch'], [CORE], ['nodes']),
        rule(['patch', 'update'], [CORE], ['nodes/status']),
        // used for pod eviction (nodelifecycle runs as this account too)
        rule(['update'], [CORE], ['pods/status']),
        rule(['list', 'delete'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      'expand-controller',
      [
        rule(['get', 'list', 'watch', 'update', 'patch'], [CORE], ['persistentvolumes']),
        rule(['update', 'patch'], [CORE], ['persistentvolumeclaims/status']),
        rule(['get', 'list', 'watch'], [CORE], ['persistentvolumeclaims']),
        rule(['get', 'list', 'watch'], [STORAGE], ['storageclasses']),
        rule(['get'], [CORE], ['endpoints', 'services', 'secrets']),
        eventsRule(),
      ],
    ],
    [
      'persistent-volume-binder',
      [
        rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [CORE], ['persistentvolumes']),
        rule(['update'], [CORE], ['persistentvolumes/status']),
        rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']),
        rule(['update'], [CORE], ['persistentvolumeclaims/status']),
        rule(['list', 'watch', 'get', 'create', 'delete'], [CORE], ['pods']),
        rule(['get', 'list', 'watch'], [STORAGE], ['storageclasses']),
        rule(['get', 'create', 'delete'], [CORE], ['services', 'endpoints']),
        rule(['get'], [CORE], ['secrets']),
        rule(['get', 'list'], [CORE], ['nodes']),
        rule(['watch'], [CORE], ['events']),
        eventsRule(),
      ],
    ],
    ['pod-garbage-collector', [rule(['list', 'watch', 'delete'], [CORE], ['pods']), rule(['get', 'list'], [CORE], ['nodes']), rule(['patch'], [CORE], ['pods/status'])]],
    ['pv-protection-controller', [rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumes']), eventsRule()]],
    ['pvc-protection-controller', [rule(['get', 'list', 'watch', 'update'], [CORE], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [CORE], ['pods']), eventsRule()]],
    [
      'replicaset-controller',
      [
        rule(['get', 'list', 'watch', 'update'], [APPS, EXTENSIONS], ['replicasets']),
        rule(['update'], [APPS, EXTENSIONS], ['replicasets/status']),
        rule(['update'], [APPS, EXTENSIONS], ['replicasets/finalizers']),
        rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      'horizontal-pod-autoscaler',
      [
        rule(['get', 'list', 'watch'], [AUTOSCALING], ['horizontalpodautoscalers']),
        rule(['update'], [AUTOSCALING], ['horizontalpodautoscalers/status']),
        rule(['get', 'update'], ['*'], ['*/scale']),
        rule(['list', 'watch'], [CORE], ['pods']),
        rule(['get', 'list', 'watch'], ['metrics.svc.io'], ['pods']),
        rule(['get', 'list'], ['custom.metrics.svc.io', 'external.metrics.svc.io'], ['*']),
        eventsRule(),
      ],
    ],
    [
      'replication-controller',
      [
        rule(['get', 'list', 'watch', 'update'], [CORE], ['replicationcontrollers']),
        rule(['update'], [CORE], ['replicationcontrollers/status']),
        rule(['update'], [CORE], ['replicationcontrollers/finalizers']),
        rule(['list', 'watch', 'patch', 'create', 'delete'], [CORE], ['pods']),
        eventsRule(),
      ],
    ],
    [
      'resourcequota-controller',
      [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [CORE], ['resourcequotas/status']), eventsRule()],
    ],
    ['root-ca-cert-publisher', [rule(['create', 'update'], [CORE], ['configmaps']), eventsRule()]],
    ['service-account-controller', [rule(['create'], [CORE], ['serviceaccounts']), eventsRule()]],
    [
      'statefulset-controller',
      [
        rule(['list', 'watch'], [CORE], ['pods']),
        rule(['get', 'list', 'watch'], [APPS], ['statefulsets']),
        rule(['update'], [APPS], ['statefulsets/status']),
        rule(['update'], [APPS], ['statefulsets/finalizers']),
        rule(['get', 'create', 'delete', 'update', 'patch'], [CORE], ['pods']),
        rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], [APPS], ['controllerrevisions']),
        rule(['get', 'create'], [CORE], ['persistentvolumeclaims']),
        rule(['update', 'delete'], [CORE], ['persistentvolumeclaims']),
        eventsRule(),
      ],
    ],
    ['ttl-controller', [rule(['update', 'patch', 'list', 'watch'], [CORE], ['nodes']), eventsRule()]],
    ['ttl-after-finished-controller', [rule(['get', 'list', 'watch', 'delete'], [BATCH], ['jobs']), eventsRule()]],
  ];
  return roles.map(([name, rules]) => ({ name: `${CONTROLLER_ROLE_PREFIX}${name}`, rules }));
}

function controllerRoleBindings(): BootstrapBinding[] {
  return controllerRoles().map((r) => ({
    name: r.name,
    role: r.name,
    subjects: [{ kind: 'ServiceAccount' as const, name: r.name.slice(CONTROLLER_ROLE_PREFIX.length), namespace: CONTROLLER_NAMESPACE }],
  }));
}

/** The established namespaced Roles (in svc-system and svc-public) and their RoleBindings. */
interface BootstrapRole {
  namespace: string;
  name: string;
  rules: PolicyRule[];
}
interface BootstrapRoleBinding extends BootstrapBinding {
  namespace: string;
}

const PUBLIC_NAMESPACE = 'svc-public';
export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

function namespacedRoles(): BootstrapRole[] {
  return [
    // Delegated authentication reads the client CA and request-header settings from this ConfigMap.
    { namespace: CONTROLLER_NAMESPACE, name: 'extension-apiserver-authentication-reader', rules: [rule(['get', 'list', 'watch'], [CORE], ['configmaps'], [AUTHENTICATION_CONFIGMAP])] },
    {
      namespace: CONTROLLER_NAMESPACE,
      name: 'system::leader-locking-svc-controller-manager',
      rules: [rule(['watch'], [CORE], ['configmaps']), rule(['get', 'update'], [CORE], ['configmaps'], ['svc-controller-manager'])],
    },
    { namespace: CONTROLLER_NAMESPACE, name: 'system::leader-locking-svc-scheduler', rules: [rule(['watch'], [CORE], ['configmaps']), rule(['get', 'update'], [CORE], ['configmaps'], ['svc-scheduler'])] },
    { namespace: CONTROLLER_NAMESPACE, name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, rules: [rule(READ, [CORE], ['secrets'])] },
    { namespace: CONTROLLER_NAMESPACE, name: `${CONTROLLER_ROLE_PREFIX}cloud-provider`, rules: [rule(['create', 'get', 'list', 'watch'], [CORE], ['configmaps'])] },
    { namespace: CONTROLLER_NAMESPACE, name: `${CONTROLLER_ROLE_PREFIX}token-cleaner`, rules: [rule(['delete', 'get', 'list', 'watch'], [CORE], ['secrets']), eventsRule()] },
    {
      namespace: PUBLIC_NAMESPACE,
      name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`,
      rules: [rule(READ, [CORE], ['configmaps']), rule(['update'], [CORE], ['configmaps'], ['cluster-info']), eventsRule()],
    },
  ];
}

function namespacedRoleBindings(): BootstrapRoleBinding[] {
  const sa = (name: string, namespace = CONTROLLER_NAMESPACE) => ({ kind: 'ServiceAccount' as const, name, namespace });
  const ns = CONTROLLER_NAMESPACE;
  return [
    { namespace: ns, name: 'system::extension-apiserver-authentication-reader', role: 'extension-apiserver-authentication-reader', subjects: users(CONTROLLER_MANAGER_USER, SCHEDULER_USER) },
    { namespace: ns, name: 'system::leader-locking-svc-controller-manager', role: 'system::leader-locking-svc-controller-manager', subjects: [...users(CONTROLLER_MANAGER_USER), sa('svc-controller-manager')] },
    { namespace: ns, name: 'system::leader-locking-svc-scheduler', role: 'system::leader-locking-svc-scheduler', subjects: [...users(SCHEDULER_USER), sa('svc-scheduler')] },
    { namespace: ns, name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, role: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, subjects: [sa('bootstrap-signer')] },
    { namespace: ns, name: `${CONTROLLER_ROLE_PREFIX}cloud-provider`, role: `${CONTROLLER_ROLE_PREFIX}cloud-provider`, subjects: [sa('cloud-provider')] },
    { namespace: ns, name: `${CONTROLLER_ROLE_PREFIX}token-cleaner`, role: `${CONTROLLER_ROLE_PREFIX}token-cleaner`, subjects: [sa('token-cleaner')] },
    { namespace: PUBLIC_NAMESPACE, name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, role: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, subjects: [sa('bootstrap-signer')] },
  ];
}

const META = () => ({ labels: { [BOOTSTRAP_LABEL]: BOOTSTRAP_LABEL_VALUE }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } });

/** The bootstrap ClusterRoles as objects. */
export function bootstrapClusterRoles(): SvcObject[] {
  return [...clusterRoles(), ...controllerRoles()].map((r) => {
    const meta = META();
    return {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: r.name, labels: { ...meta.labels, ...r.labels }, annotations: meta.annotations },
      ...(r.aggregationRule ? { aggregationRule: r.aggregationRule } : {}),
      rules: r.rules,
    } as SvcObject;
  });
}

/** The bootstrap ClusterRoleBindings as objects. */
export function bootstrapClusterRoleBindings(): SvcObject[] {
  return [...clusterRoleBindings(), ...controllerRoleBindings()].map(
    (b) =>
      ({
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: b.name, ...META() },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.role },
        subjects: b.subjects.map((s) => (s.kind === 'ServiceAccount' ? { ...s } : { ...s, apiGroup: RBAC_GROUP })),
      }) as SvcObject,
  );
}

/** The bootstrap Roles (namespaced) as objects. */
export function bootstrapRoles(): SvcObject[] {
  return namespacedRoles().map(
    (r) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata: { name: r.name, namespace: r.namespace, ...META() }, rules: r.rules }) as SvcObject,
  );
}

/** The bootstrap RoleBindings (namespaced) as objects. */
export function bootstrapRoleBindings(): SvcObject[] {
  return namespacedRoleBindings().map(
    (b) =>
      ({
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'RoleBinding',
        metadata: { name: b.name, namespace: b.namespace, ...META() },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: b.role },
        subjects: b.subjects.map((s) => (s.kind === 'ServiceAccount' ? { ...s } : { ...s, apiGroup: RBAC_GROUP })),
      }) as SvcObject,
  );
}
