/** Field numbers of flowcontrol.apiserver v1beta1 (FlowSchema, PriorityLevelConfiguration), the established ones. */
import type { ProtoPackageTable } from './table.js';

const CONDITION = {
  fields: { type: '1 string', status: '2 string', lastTransitionTime: '3 Time', reason: '4 string', message: '5 string' },
  notOnWire: ['lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime', 'observedGeneration'],
} as const;

export const FLOWCONTROL_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.flowcontrol.v1beta1',
  file: 'api/flowcontrol/v1beta1/generated.proto',
  groupVersion: 'flowcontrol.apiserver.svc.io/v1beta1',
  kinds: { FlowSchema: 'FlowSchema', PriorityLevelConfiguration: 'PriorityLevelConfiguration' },
  messages: {
    FlowSchema: { fields: { metadata: '1 ObjectMeta', spec: '2 FlowSchemaSpec', status: '3 FlowSchemaStatus' } },
    FlowSchemaSpec: {
      fields: {
        priorityLevelConfiguration: '1 PriorityLevelConfigurationReference',
        matchingPrecedence: '2 int32',
        distinguisherMethod: '3 FlowDistinguisherMethod',
        rules: '4 repeated PolicyRulesWithSubjects',
      },
    },
    FlowSchemaStatus: { fields: { conditions: '1 repeated FlowSchemaCondition' } },
    FlowSchemaCondition: CONDITION,
    FlowDistinguisherMethod: { fields: { type: '1 string' } },
    PriorityLevelConfigurationReference: { fields: { name: '1 string' } },
    PolicyRulesWithSubjects: { fields: { subjects: '1 repeated FlowSubject', resourceRules: '2 repeated ResourcePolicyRule', nonResourceRules: '3 repeated NonResourcePolicyRule' } },
    // The established name is Subject; renamed here because rbac/v1 has one (names do not reach the wire).
    FlowSubject: { fields: { kind: '1 string', user: '2 UserSubject', group: '3 GroupSubject', serviceAccount: '4 ServiceAccountSubject' } },
    UserSubject: { fields: { name: '1 string' } },
    GroupSubject: { fields: { name: '1 string' } },
    ServiceAccountSubject: { fields: { namespace: '1 string', name: '2 string' } },
    ResourcePolicyRule: { fields: { verbs: '1 repeated string', apiGroups: '2 repeated string', resources: '3 repeated string', clusterScope: '4 bool', namespaces: '5 repeated string' } },
    NonResourcePolicyRule: { fields: { verbs: '1 repeated string', nonResourceURLs: '6 repeated string' } },
    PriorityLevelConfiguration: { fields: { metadata: '1 ObjectMeta', spec: '2 PriorityLevelConfigurationSpec', status: '3 PriorityLevelConfigurationStatus' } },
    PriorityLevelConfigurationSpec: { fields: { type: '1 string', limited: '2 LimitedPriorityLevelConfiguration' } },
    LimitedPriorityLevelConfiguration: { fields: { assuredConcurrencyShares: '1 int32', limitResponse: '2 LimitResponse' } },
    LimitResponse: { fields: { type: '1 string', queuing: '2 QueuingConfiguration' } },
    QueuingConfiguration: { fields: { queues: '1 int32', handSize: '2 int32', queueLengthLimit: '3 int32' } },
    PriorityLevelConfigurationStatus: { fields: { conditions: '1 repeated PriorityLevelConfigurationCondition' } },
    PriorityLevelConfigurationCondition: CONDITION,
  },
};
