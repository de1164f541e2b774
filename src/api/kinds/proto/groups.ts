/** Field numbers of the smaller API groups: batch, coordination, discovery, policy, autoscaling/v1, rbac, certificates. */
import type { ProtoPackageTable } from './table.js';

const UNCARRIED_CONDITION_TIMES = ['lastUpdateTime', 'lastHeartbeatTime', 'observedGeneration'] as const;

export const BATCH_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.batch.v1',
  file: 'api/batch/v1/generated.proto',
  groupVersion: 'batch/v1',
  kinds: { Job: 'Job', CronJob: 'CronJob' },
  messages: {
    CronJob: { fields: { metadata: '1 ObjectMeta', spec: '2 CronJobSpec', status: '3 CronJobStatus' } },
    CronJobSpec: {
      fields: {
        schedule: '1 string',
        startingDeadlineSeconds: '2 optional int64',
        concurrencyPolicy: '3 string',
        suspend: '4 optional bool',
        jobTemplate: '5 JobTemplateSpec',
        successfulJobsHistoryLimit: '6 optional int32',
        failedJobsHistoryLimit: '7 optional int32',
      },
    },
    CronJobStatus: { fields: { active: '1 repeated ObjectReference', lastScheduleTime: '4 Time', lastSuccessfulTime: '5 Time' } },
    JobTemplateSpec: { fields: { metadata: '1 ObjectMeta', spec: '2 JobSpec' } },
    Job: { fields: { metadata: '1 ObjectMeta', spec: '2 JobSpec', status: '3 JobStatus' } },
    JobSpec: {
      fields: {
        parallelism: '1 optional int32',
        completions: '2 optional int32',
        activeDeadlineSeconds: '3 optional int64',
        selector: '4 LabelSelector',
        manualSelector: '5 optional bool',
        template: '6 PodTemplateSpec',
        backoffLimit: '7 optional int32',
        ttlSecondsAfterFinished: '8 optional int32',
        completionMode: '9 string',
        suspend: '10 optional bool',
      },
    },
    JobStatus: {
      fields: {
        conditions: '1 repeated JobCondition',
        startTime: '2 Time',
        completionTime: '3 Time',
        active: '4 int32',
        succeeded: '5 int32',
        failed: '6 int32',
        completedIndexes: '7 string',
        ready: '9 optional int32',
      },
    },
    JobCondition: {
      fields: { type: '1 string', status: '2 string', lastProbeTime: '3 Time', lastTransitionTime: '4 Time', reason: '5 string', message: '6 string' },
      notOnWire: UNCARRIED_CONDITION_TIMES,
    },
  },
};

/** batch/v1beta1 CronJobs have batch/v1's field numbers: the messages are batch/v1's. */
export const BATCH_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.batch.v1beta1',
  file: 'api/batch/v1beta1/generated.proto',
  groupVersion: 'batch/v1beta1',
  kinds: { CronJob: 'CronJob' },
  messages: {},
};

export const SCHEDULING_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.scheduling.v1',
  file: 'api/scheduling/v1/generated.proto',
  groupVersion: 'scheduling.svc.io/v1',
  kinds: { PriorityClass: 'PriorityClass' },
  messages: {
    PriorityClass: { fields: { metadata: '1 ObjectMeta', value: '2 optional int32', globalDefault: '3 bool', description: '4 string', preemptionPolicy: '5 string' } },
  },
};

export const COORDINATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.coordination.v1',
  file: 'api/coordination/v1/generated.proto',
  groupVersion: 'coordination.svc.io/v1',
  kinds: { Lease: 'Lease' },
  messages: {
    Lease: { fields: { metadata: '1 ObjectMeta', spec: '2 LeaseSpec' } },
    LeaseSpec: {
      // holderIdentity "" is a released lease.
      fields: { holderIdentity: '1 optional string', leaseDurationSeconds: '2 optional int32', acquireTime: '3 MicroTime', renewTime: '4 MicroTime', leaseTransitions: '5 optional int32' },
    },
  },
};

export const DISCOVERY_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.discovery.v1beta1',
  file: 'api/discovery/v1beta1/generated.proto',
  groupVersion: 'discovery.svc.io/v1beta1',
  kinds: { EndpointSlice: 'EndpointSlice' },
  messages: {
    EndpointSlice: { fields: { metadata: '1 ObjectMeta', endpoints: '2 repeated Endpoint', ports: '3 repeated EndpointSlicePort', addressType: '4 string' } },
    Endpoint: {
      fields: {
        addresses: '1 repeated string',
        conditions: '2 EndpointConditions',
        hostname: '3 optional string',
        targetRef: '4 ObjectReference',
        topology: '5 map<string,string>',
        nodeName: '6 optional string',
        hints: '7 EndpointHints',
      },
    },
    EndpointConditions: { fields: { ready: '1 optional bool', serving: '2 optional bool', terminating: '3 optional bool' } },
    EndpointHints: { fields: { forZones: '1 repeated ForZone' } },
    ForZone: { fields: { name: '1 string' } },
    // The established name is EndpointPort; renamed here because core/v1 has one (names do not reach the wire).
    EndpointSlicePort: { fields: { name: '1 optional string', protocol: '2 string', port: '3 optional int32', appProtocol: '4 string' } },
  },
};

/** discovery v1 differs from v1beta1 in Endpoint only (deprecatedTopology 5, zone 7, hints 8); the other messages are shared. */
export const DISCOVERY_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.discovery.v1',
  file: 'api/discovery/v1/generated.proto',
  groupVersion: 'discovery.svc.io/v1',
  kinds: { EndpointSlice: 'EndpointSliceV1' },
  messages: {
    // Established names EndpointSlice and Endpoint; suffixed because v1beta1's messages carry those names here.
    EndpointSliceV1: { fields: { metadata: '1 ObjectMeta', endpoints: '2 repeated EndpointV1', ports: '3 repeated EndpointSlicePort', addressType: '4 string' } },
    EndpointV1: {
      fields: {
        addresses: '1 repeated string',
        conditions: '2 EndpointConditions',
        hostname: '3 optional string',
        targetRef: '4 ObjectReference',
        deprecatedTopology: '5 map<string,string>',
        nodeName: '6 optional string',
        zone: '7 optional string',
        hints: '8 EndpointHints',
      },
    },
  },
};

export const POLICY_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.policy.v1',
  file: 'api/policy/v1/generated.proto',
  groupVersion: 'policy/v1',
  kinds: { PodDisruptionBudget: 'PodDisruptionBudget' },
  messages: {
    PodDisruptionBudget: { fields: { metadata: '1 ObjectMeta', spec: '2 PodDisruptionBudgetSpec', status: '3 PodDisruptionBudgetStatus' } },
    PodDisruptionBudgetSpec: { fields: { minAvailable: '1 IntOrString', selector: '2 LabelSelector', maxUnavailable: '3 IntOrString' } },
    PodDisruptionBudgetStatus: {
      fields: {
        observedGeneration: '1 int64',
        disruptedPods: '2 map<string,Time>',
        disruptionsAllowed: '3 optional int32',
        currentHealthy: '4 optional int32',
        desiredHealthy: '5 optional int32',
        expectedPods: '6 optional int32',
        conditions: '7 repeated Condition',
      },
    },
  },
};

/** policy/v1beta1 PodDisruptionBudgets have policy/v1's field numbers: the messages are policy/v1's. */
export const POLICY_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.policy.v1beta1',
  file: 'api/policy/v1beta1/generated.proto',
  groupVersion: 'policy/v1beta1',
  kinds: { PodDisruptionBudget: 'PodDisruptionBudget', PodSecurityPolicy: 'PodSecurityPolicy' },
  // PodDisruptionBudget's messages are policy/v1's; PodSecurityPolicy's are this version's own.
  messages: {
    PodSecurityPolicy: { fields: { metadata: '1 ObjectMeta', spec: '2 PodSecurityPolicySpec' } },
    PodSecurityPolicySpec: {
      fields: {
        privileged: '1 bool',
        defaultAddCapabilities: '2 repeated string',
        requiredDropCapabilities: '3 repeated string',
        allowedCapabilities: '4 repeated string',
        volumes: '5 repeated string',
        hostNetwork: '6 bool',
        hostPorts: '7 repeated HostPortRange',
        hostPID: '8 bool',
        hostIPC: '9 bool',
        seLinux: '10 SELinuxStrategyOptions',
        runAsUser: '11 RunAsUserStrategyOptions',
        supplementalGroups: '12 SupplementalGroupsStrategyOptions',
        fsGroup: '13 FSGroupStrategyOptions',
        readOnlyRootFilesystem: '14 bool',
        defaultAllowPrivilegeEscalation: '15 optional bool',
        allowPrivilegeEscalation: '16 optional bool',
        allowedHostPaths: '17 repeated AllowedHostPath',
        allowedFlexVolumes: '18 repeated AllowedFlexVolume',
        allowedUnsafeSysctls: '19 repeated string',
        forbiddenSysctls: '20 repeated string',
        allowedProcMountTypes: '21 repeated string',
        runAsGroup: '22 RunAsGroupStrategyOptions',
        allowedCSIDrivers: '23 repeated AllowedCSIDriver',
        runtimeClass: '24 RuntimeClassStrategyOptions',
      },
    },
    HostPortRange: { fields: { min: '1 optional int32', max: '2 optional int32' } },
    IDRange: { fields: { min: '1 optional int64', max: '2 optional int64' } },
    SELinuxStrategyOptions: { fields: { rule: '1 string', seLinuxOptions: '2 SELinuxOptions' } },
    RunAsUserStrategyOptions: { fields: { rule: '1 string', ranges: '2 repeated IDRange' } },
    RunAsGroupStrategyOptions: { fields: { rule: '1 string', ranges: '2 repeated IDRange' } },
    SupplementalGroupsStrategyOptions: { fields: { rule: '1 string', ranges: '2 repeated IDRange' } },
    FSGroupStrategyOptions: { fields: { rule: '1 string', ranges: '2 repeated IDRange' } },
    AllowedHostPath: { fields: { pathPrefix: '1 string', readOnly: '2 bool' } },
    AllowedFlexVolume: { fields: { driver: '1 string' } },
    AllowedCSIDriver: { fields: { name: '1 string' } },
    RuntimeClassStrategyOptions: { fields: { allowedRuntimeClassNames: '1 repeated string', defaultRuntimeClassName: '2 optional string' } },
  },
};

export const AUTOSCALING_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.autoscaling.v1',
  file: 'api/autoscaling/v1/generated.proto',
  groupVersion: 'autoscaling/v1',
  kinds: { HorizontalPodAutoscaler: 'HorizontalPodAutoscaler' },
  messages: {
    HorizontalPodAutoscaler: { fields: { metadata: '1 ObjectMeta', spec: '2 HorizontalPodAutoscalerSpec', status: '3 HorizontalPodAutoscalerStatus' } },
    HorizontalPodAutoscalerSpec: {
      fields: { scaleTargetRef: '1 CrossVersionObjectReference', minReplicas: '2 optional int32', maxReplicas: '3 optional int32', targetCPUUtilizationPercentage: '4 optional int32' },
    },
    CrossVersionObjectReference: { fields: { kind: '1 string', name: '2 string', apiVersion: '3 string' } },
    HorizontalPodAutoscalerStatus: {
      fields: { observedGeneration: '1 optional int64', lastScaleTime: '2 Time', currentReplicas: '3 optional int32', desiredReplicas: '4 optional int32', currentCPUUtilizationPercentage: '5 optional int32' },
    },
  },
};

export const RBAC_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.rbac.v1',
  file: 'api/rbac/v1/generated.proto',
  groupVersion: 'rbac.authorization.svc.io/v1',
  kinds: { Role: 'Role', ClusterRole: 'ClusterRole', RoleBinding: 'RoleBinding', ClusterRoleBinding: 'ClusterRoleBinding' },
  messages: {
    Role: { fields: { metadata: '1 ObjectMeta', rules: '2 repeated PolicyRule' } },
    ClusterRole: { fields: { metadata: '1 ObjectMeta', rules: '2 repeated PolicyRule', aggregationRule: '3 AggregationRule' } },
    AggregationRule: { fields: { clusterRoleSelectors: '1 repeated LabelSelector' } },
    PolicyRule: {
      fields: { verbs: '1 repeated string', apiGroups: '2 repeated string', resources: '3 repeated string', resourceNames: '4 repeated string', nonResourceURLs: '5 repeated string' },
    },
    RoleBinding: { fields: { metadata: '1 ObjectMeta', subjects: '2 repeated Subject', roleRef: '3 RoleRef' } },
    ClusterRoleBinding: { fields: { metadata: '1 ObjectMeta', subjects: '2 repeated Subject', roleRef: '3 RoleRef' } },
    Subject: { fields: { kind: '1 string', apiGroup: '2 string', name: '3 string', namespace: '4 string' } },
    RoleRef: { fields: { apiGroup: '1 string', kind: '2 string', name: '3 string' } },
  },
};

export const CERTIFICATES_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.certificates.v1',
  file: 'api/certificates/v1/generated.proto',
  groupVersion: 'certificates.svc.io/v1',
  kinds: { CertificateSigningRequest: 'CertificateSigningRequest' },
  messages: {
    CertificateSigningRequest: { fields: { metadata: '1 ObjectMeta', spec: '2 CertificateSigningRequestSpec', status: '3 CertificateSigningRequestStatus' } },
    CertificateSigningRequestSpec: {
      fields: {
        request: '1 bytes',
        username: '2 string',
        uid: '3 string',
        groups: '4 repeated string',
        usages: '5 repeated string',
        extra: '6 map<string,ExtraValue>',
        signerName: '7 string',
        expirationSeconds: '8 optional int32',
      },
    },
    ExtraValue: { fields: { items: '1 repeated string' }, wrapsList: true },
    CertificateSigningRequestStatus: { fields: { conditions: '1 repeated CertificateSigningRequestCondition', certificate: '2 bytes' } },
    CertificateSigningRequestCondition: {
      fields: { type: '1 string', reason: '2 string', message: '3 string', lastUpdateTime: '4 Time', lastTransitionTime: '5 Time', status: '6 string' },
      notOnWire: ['lastProbeTime', 'lastHeartbeatTime', 'observedGeneration'],
    },
  },
};

export const AUTHORIZATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.authorization.v1',
  file: 'api/authorization/v1/generated.proto',
  groupVersion: 'authorization.svc.io/v1',
  kinds: {
    SelfSubjectAccessReview: 'SelfSubjectAccessReview',
    SelfSubjectRulesReview: 'SelfSubjectRulesReview',
    SubjectAccessReview: 'SubjectAccessReview',
    LocalSubjectAccessReview: 'LocalSubjectAccessReview',
  },
  messages: {
    SubjectAccessReview: { fields: { metadata: '1 ObjectMeta', spec: '2 SubjectAccessReviewSpec', status: '3 SubjectAccessReviewStatus' } },
    LocalSubjectAccessReview: { fields: { metadata: '1 ObjectMeta', spec: '2 SubjectAccessReviewSpec', status: '3 SubjectAccessReviewStatus' } },
    SubjectAccessReviewSpec: {
      fields: {
        resourceAttributes: '1 ResourceAttributes',
        nonResourceAttributes: '2 NonResourceAttributes',
        user: '3 string',
        groups: '4 repeated string',
        extra: '5 map<string,ExtraValue>',
        uid: '6 string',
      },
    },
    SelfSubjectAccessReview: { fields: { metadata: '1 ObjectMeta', spec: '2 SelfSubjectAccessReviewSpec', status: '3 SubjectAccessReviewStatus' } },
    SelfSubjectAccessReviewSpec: { fields: { resourceAttributes: '1 ResourceAttributes', nonResourceAttributes: '2 NonResourceAttributes' } },
    ResourceAttributes: {
      fields: { namespace: '1 string', verb: '2 string', group: '3 string', version: '4 string', resource: '5 string', subresource: '6 string', name: '7 string' },
    },
    NonResourceAttributes: { fields: { path: '1 string', verb: '2 string' } },
    SubjectAccessReviewStatus: { fields: { allowed: '1 optional bool', reason: '2 string', evaluationError: '3 string', denied: '4 bool' } },
    SelfSubjectRulesReview: { fields: { metadata: '1 ObjectMeta', spec: '2 SelfSubjectRulesReviewSpec', status: '3 SubjectRulesReviewStatus' } },
    SelfSubjectRulesReviewSpec: { fields: { namespace: '1 string' } },
    SubjectRulesReviewStatus: {
      fields: { resourceRules: '1 repeated ResourceRule', nonResourceRules: '2 repeated NonResourceRule', incomplete: '3 optional bool', evaluationError: '4 string' },
    },
    ResourceRule: { fields: { verbs: '1 repeated string', apiGroups: '2 repeated string', resources: '3 repeated string', resourceNames: '4 repeated string' } },
    NonResourceRule: { fields: { verbs: '1 repeated string', nonResourceURLs: '2 repeated string' } },
  },
};

/**
 * authentication/v1: the TokenRequest of `serviceaccounts/<name>/token` (kubectl sends it in
 * Protobuf; not a stored kind: only the body and answer of that subresource), and TokenReview and
 * SelfSubjectReview (answered, never stored).
 */
export const AUTHENTICATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.authentication.v1',
  file: 'api/authentication/v1/generated.proto',
  groupVersion: 'authentication.svc.io/v1',
  kinds: { TokenRequest: 'AuthenticationV1TokenRequest', TokenReview: 'TokenReview', SelfSubjectReview: 'SelfSubjectReview' },
  messages: {
    TokenReview: { fields: { metadata: '1 ObjectMeta', spec: '2 TokenReviewSpec', status: '3 TokenReviewStatus' } },
    TokenReviewSpec: { fields: { token: '1 string', audiences: '2 repeated string' } },
    TokenReviewStatus: { fields: { authenticated: '1 bool', user: '2 UserInfo', error: '3 string', audiences: '4 repeated string' } },
    // `extra` values reuse certificates.svc.io's ExtraValue (message names are unique across packages).
    UserInfo: { fields: { username: '1 string', uid: '2 string', groups: '3 repeated string', extra: '4 map<string,ExtraValue>' } },
    SelfSubjectReview: { fields: { metadata: '1 ObjectMeta', status: '2 SelfSubjectReviewStatus' } },
    SelfSubjectReviewStatus: { fields: { userInfo: '1 UserInfo' } },
    AuthenticationV1TokenRequest: { fields: { metadata: '1 ObjectMeta', spec: '2 TokenRequestSpec', status: '3 TokenRequestStatus' } },
    TokenRequestSpec: { fields: { audiences: '1 repeated string', boundObjectRef: '3 BoundObjectReference', expirationSeconds: '4 optional int64' } },
    BoundObjectReference: { fields: { kind: '1 string', apiVersion: '2 string', name: '3 string', uid: '4 string' } },
    TokenRequestStatus: { fields: { token: '1 string', expirationTimestamp: '2 Time' } },
  },
};
