/** Field numbers of apps/v1. */
import { transitionCondition } from './core.js';
import type { ProtoPackageTable } from './table.js';

export const APPS_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.apps.v1',
  file: 'api/apps/v1/generated.proto',
  groupVersion: 'apps/v1',
  kinds: {
    Deployment: 'Deployment',
    ReplicaSet: 'ReplicaSet',
    StatefulSet: 'StatefulSet',
    DaemonSet: 'DaemonSet',
    ControllerRevision: 'ControllerRevision',
  },
  messages: {
    Deployment: { fields: { metadata: '1 ObjectMeta', spec: '2 DeploymentSpec', status: '3 DeploymentStatus' } },
    DeploymentSpec: {
      fields: {
        replicas: '1 optional int32',
        selector: '2 LabelSelector',
        template: '3 PodTemplateSpec',
        strategy: '4 DeploymentStrategy',
        minReadySeconds: '5 int32',
        revisionHistoryLimit: '6 optional int32',
        paused: '7 bool',
        progressDeadlineSeconds: '9 optional int32',
      },
    },
    DeploymentStrategy: { fields: { type: '1 string', rollingUpdate: '2 RollingUpdateDeployment' } },
    RollingUpdateDeployment: { fields: { maxUnavailable: '1 IntOrString', maxSurge: '2 IntOrString' } },
    DeploymentStatus: {
      fields: {
        observedGeneration: '1 int64',
        replicas: '2 int32',
        updatedReplicas: '3 int32',
        availableReplicas: '4 int32',
        unavailableReplicas: '5 int32',
        conditions: '6 repeated DeploymentCondition',
        readyReplicas: '7 int32',
        collisionCount: '8 optional int32',
      },
      // The shared workload status schema models replica-set counters deployments do not carry.
      notOnWire: ['fullyLabeledReplicas', 'currentReplicas'],
    },
    DeploymentCondition: {
      fields: { type: '1 string', status: '2 string', reason: '4 string', message: '5 string', lastUpdateTime: '6 Time', lastTransitionTime: '7 Time' },
      notOnWire: ['lastProbeTime', 'lastHeartbeatTime', 'observedGeneration'],
    },
    ReplicaSet: { fields: { metadata: '1 ObjectMeta', spec: '2 ReplicaSetSpec', status: '3 ReplicaSetStatus' } },
    ReplicaSetSpec: { fields: { replicas: '1 optional int32', selector: '2 LabelSelector', template: '3 PodTemplateSpec', minReadySeconds: '4 int32' } },
    ReplicaSetStatus: {
      fields: {
        replicas: '1 optional int32',
        fullyLabeledReplicas: '2 int32',
        observedGeneration: '3 int64',
        readyReplicas: '4 int32',
        availableReplicas: '5 int32',
        conditions: '6 repeated ReplicaSetCondition',
      },
      notOnWire: ['updatedReplicas', 'unavailableReplicas', 'currentReplicas', 'collisionCount'],
    },
    ReplicaSetCondition: transitionCondition,
    StatefulSet: { fields: { metadata: '1 ObjectMeta', spec: '2 StatefulSetSpec', status: '3 StatefulSetStatus' } },
    StatefulSetSpec: {
      fields: {
        replicas: '1 optional int32',
        selector: '2 LabelSelector',
        template: '3 PodTemplateSpec',
        volumeClaimTemplates: '4 repeated PersistentVolumeClaim',
        serviceName: '5 string',
        podManagementPolicy: '6 string',
        updateStrategy: '7 StatefulSetUpdateStrategy',
        revisionHistoryLimit: '8 optional int32',
        minReadySeconds: '9 int32',
        persistentVolumeClaimRetentionPolicy: '10 StatefulSetPersistentVolumeClaimRetentionPolicy',
        ordinals: '11 StatefulSetOrdinals',
      },
    },
    StatefulSetUpdateStrategy: { fields: { type: '1 string', rollingUpdate: '2 RollingUpdateStatefulSetStrategy' } },
    RollingUpdateStatefulSetStrategy: { fields: { partition: '1 optional int32', maxUnavailable: '2 IntOrString' } },
    StatefulSetPersistentVolumeClaimRetentionPolicy: { fields: { whenDeleted: '1 string', whenScaled: '2 string' } },
    StatefulSetOrdinals: { fields: { start: '1 optional int32' } },
    StatefulSetStatus: {
      fields: {
        observedGeneration: '1 int64',
        replicas: '2 optional int32',
        readyReplicas: '3 int32',
        currentReplicas: '4 int32',
        updatedReplicas: '5 int32',
        currentRevision: '6 string',
        updateRevision: '7 string',
        collisionCount: '9 optional int32',
        conditions: '10 repeated StatefulSetCondition',
        availableReplicas: '11 optional int32',
      },
      notOnWire: ['unavailableReplicas', 'fullyLabeledReplicas'],
    },
    StatefulSetCondition: transitionCondition,
    DaemonSet: { fields: { metadata: '1 ObjectMeta', spec: '2 DaemonSetSpec', status: '3 DaemonSetStatus' } },
    DaemonSetSpec: {
      fields: { selector: '1 LabelSelector', template: '2 PodTemplateSpec', updateStrategy: '3 DaemonSetUpdateStrategy', minReadySeconds: '4 int32', revisionHistoryLimit: '6 optional int32' },
    },
    DaemonSetUpdateStrategy: { fields: { type: '1 string', rollingUpdate: '2 RollingUpdateDaemonSet' } },
    RollingUpdateDaemonSet: { fields: { maxUnavailable: '1 IntOrString', maxSurge: '2 IntOrString' } },
    DaemonSetStatus: {
      fields: {
        currentNumberScheduled: '1 optional int32',
        numberMisscheduled: '2 optional int32',
        desiredNumberScheduled: '3 optional int32',
        numberReady: '4 optional int32',
        observedGeneration: '5 int64',
        updatedNumberScheduled: '6 int32',
        numberAvailable: '7 int32',
        numberUnavailable: '8 int32',
        collisionCount: '9 optional int32',
        conditions: '10 repeated DaemonSetCondition',
      },
    },
    DaemonSetCondition: transitionCondition,
    // data is any object, carried as its JSON text (RawExtension).
    ControllerRevision: { fields: { metadata: '1 ObjectMeta', data: '2 RawExtension', revision: '3 optional int64' } },
  },
};
