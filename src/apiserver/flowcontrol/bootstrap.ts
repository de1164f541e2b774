/**
 * The established bootstrap configuration of API Priority and Fairness (data only), in our names
 * (`system:svc-controller-manager`, `system:svc-scheduler`, `svc-system`, groups `*.svc.io`):
 *
 * - mandatory: the `exempt` level and schema (group system:masters, precedence 1) and the
 *   `catch-all` level (5 shares, Reject) and schema (everyone, precedence 10000, ByUser);
 * - suggested: levels system, node-high, leader-election, workload-high, workload-low,
 *   global-default, and the schemas that feed them (probes, system-leader-election,
 *   endpoint-controller, workload-leader-election, system-node-high, system-nodes,
 *   svc-controller-manager, svc-scheduler, svc-system-service-accounts, service-accounts,
 *   global-default), with the established shares, queues, hand sizes, queue lengths and precedences.
 *
 * Every object carries `apf.svc.io/autoupdate-spec: "true"` (./bootstrap-ensurer.ts keeps them).
 */
import type { SvcObject } from '../../api/types.js';
import { FLOWCONTROL_GROUP, FLOWCONTROL_VERSION } from '../../api/kinds/flowcontrol/priority-level.js';
import { AUTHENTICATED_GROUP, MASTERS_GROUP, SERVICE_ACCOUNTS_GROUP, UNAUTHENTICATED_GROUP } from '../auth/user.js';
import { CONTROLLER_MANAGER_USER, CONTROLLER_NAMESPACE, NODES_GROUP, SCHEDULER_USER } from '../auth/rbac/bootstrap-policy.js';

/** The established `apf.kubernetes.io/autoupdate-spec`, in our spelling. */
export const AUTOUPDATE_ANNOTATION = 'apf.svc.io/autoupdate-spec';
const API_VERSION = `${FLOWCONTROL_GROUP}/${FLOWCONTROL_VERSION}`;
const COORDINATION = 'coordination.svc.io';

type Subject = Record<string, unknown>;
type Rule = Record<string, unknown>;

const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const systemServiceAccount = (name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace: CONTROLLER_NAMESPACE, name } });
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): Rule => ({
  verbs, apiGroups, resources, ...(clusterScope ? { clusterScope: true } : {}), ...(namespaces.length ? { namespaces } : {}),
});
const ALL_RESOURCES = [resourceRule(['*'], ['*'], ['*'], ['*'], true)];
const ALL_NON_RESOURCES = [{ verbs: ['*'], nonResourceURLs: ['*'] }];
const LEADER_ELECTION_VERBS = ['get', 'create', 'update'];

function metadata(name: string): SvcObject['metadata'] {
  return { name, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } };
}

function level(name: string, shares: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): SvcObject {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: metadata(name),
    spec: {
      type: 'Limited',
      limited: { assuredConcurrencyShares: shares, limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' } },
    },
  };
}

function schema(name: string, priorityLevel: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: Rule[]): SvcObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: metadata(name),
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

/** A schema for everything its subjects do. */
const allOf = (name: string, priorityLevel: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', subjects: Subject[]): SvcObject =>
  schema(name, priorityLevel, precedence, distinguisher, [{ subjects, resourceRules: ALL_RESOURCES, nonResourceRules: ALL_NON_RESOURCES }]);

export function mandatoryPriorityLevels(): SvcObject[] {
  return [
    { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: metadata('exempt'), spec: { type: 'Exempt' } },
    level('catch-all', 5),
  ];
}

export function mandatoryFlowSchemas(): SvcObject[] {
  return [
    allOf('exempt', 'exempt', 1, '', [group(MASTERS_GROUP)]),
    allOf('catch-all', 'catch-all', 10_000, 'ByUser', [group(UNAUTHENTICATED_GROUP), group(AUTHENTICATED_GROUP)]),
  ];
}

export function suggestedPriorityLevels(): SvcObject[] {
  return [
    level('system', 30, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    level('node-high', 40, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    level('leader-election', 10, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
    level('workload-high', 40, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    level('workload-low', 100, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    level('global-default', 20, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  ];
}

export function suggestedFlowSchemas(): SvcObject[] {
  const everyone = [group(UNAUTHENTICATED_GROUP), group(AUTHENTICATED_GROUP)];
  return [
    schema('probes', 'exempt', 2, '', [{ subjects: everyone, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
    schema('system-leader-election', 'leader-election', 100, 'ByUser', [
      {
        subjects: [user(CONTROLLER_MANAGER_USER), user(SCHEDULER_USER), systemServiceAccount('*')],
        resourceRules: [resourceRule(LEADER_ELECTION_VERBS, [COORDINATION], ['leases'], ['*'], false)],
      },
    ]),
    schema('endpoint-controller', 'workload-high', 150, 'ByUser', [
      {
        subjects: [user(CONTROLLER_MANAGER_USER), systemServiceAccount('endpoint-controller'), systemServiceAccount('endpointslicemirroring-controller')],
        resourceRules: [resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints'], ['*'], false)],
      },
    ]),
    schema('workload-leader-election', 'leader-election', 200, 'ByUser', [
      {
        subjects: [systemServiceAccount('*')],
        resourceRules: [
          resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints', 'configmaps'], ['*'], false),
          resourceRule(LEADER_ELECTION_VERBS, [COORDINATION], ['leases'], ['*'], false),
        ],
      },
    ]),
    schema('system-node-high', 'node-high', 400, 'ByUser', [
      {
        subjects: [group(NODES_GROUP)],
        resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true), resourceRule(['*'], [COORDINATION], ['leases'], ['*'], false)],
      },
    ]),
    allOf('system-nodes', 'system', 500, 'ByUser', [group(NODES_GROUP)]),
    allOf('svc-controller-manager', 'workload-high', 800, 'ByNamespace', [user(CONTROLLER_MANAGER_USER)]),
    allOf('svc-scheduler', 'workload-high', 800, 'ByNamespace', [user(SCHEDULER_USER)]),
    allOf('svc-system-service-accounts', 'workload-high', 900, 'ByNamespace', [systemServiceAccount('*')]),
    allOf('service-accounts', 'workload-low', 9000, 'ByUser', [group(SERVICE_ACCOUNTS_GROUP)]),
    allOf('global-default', 'global-default', 9900, 'ByUser', everyone),
  ];
}
