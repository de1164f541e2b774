/** Field numbers of the shared wire types: runtime envelope, int-or-string, quantity, meta/v1. */
import type { ProtoPackageTable } from './table.js';

export const RUNTIME_PROTO: ProtoPackageTable = {
  package: 'svc.runtime',
  file: 'runtime/generated.proto',
  messages: {
    // The envelope after the 4-byte prefix (spec "Protobuf envelope").
    Unknown: { fields: { typeMeta: '1 TypeMeta', raw: '2 bytes', contentEncoding: '3 string', contentType: '4 string' } },
    TypeMeta: { fields: { apiVersion: '1 string', kind: '2 string' } },
    RawExtension: { fields: { raw: '1 bytes' } },
  },
};

export const INTSTR_PROTO: ProtoPackageTable = {
  package: 'svc.util.intstr',
  file: 'util/intstr/generated.proto',
  messages: {
    IntOrString: { fields: { type: '1 int64', intVal: '2 int32', strVal: '3 string' } },
  },
};

export const RESOURCE_PROTO: ProtoPackageTable = {
  package: 'svc.api.resource',
  file: 'api/resource/generated.proto',
  messages: {
    Quantity: { fields: { string: '1 string' } },
  },
};

export const META_PROTO: ProtoPackageTable = {
  package: 'svc.meta.v1',
  file: 'meta/v1/generated.proto',
  messages: {
    Time: { fields: { seconds: '1 int64', nanos: '2 int32' } },
    MicroTime: { fields: { seconds: '1 int64', nanos: '2 int32' } },
    FieldsV1: { fields: { Raw: '1 bytes' } },
    ObjectMeta: {
      fields: {
        name: '1 string',
        generateName: '2 string',
        namespace: '3 string',
        selfLink: '4 string',
        uid: '5 string',
        resourceVersion: '6 string',
        generation: '7 int64',
        creationTimestamp: '8 Time',
        deletionTimestamp: '9 Time',
        deletionGracePeriodSeconds: '10 optional int64',
        labels: '11 map<string,string>',
        annotations: '12 map<string,string>',
        ownerReferences: '13 repeated OwnerReference',
        finalizers: '14 repeated string',
        clusterName: '15 string',
        managedFields: '17 repeated ManagedFieldsEntry',
      },
    },
    ListMeta: { fields: { selfLink: '1 string', resourceVersion: '2 string', continue: '3 string', remainingItemCount: '4 optional int64' } },
    OwnerReference: {
      fields: { kind: '1 string', name: '3 string', uid: '4 string', apiVersion: '5 string', controller: '6 optional bool', blockOwnerDeletion: '7 optional bool' },
    },
    ManagedFieldsEntry: {
      fields: {
        manager: '1 string',
        operation: '2 string',
        apiVersion: '3 string',
        time: '4 Time',
        fieldsType: '6 string',
        fieldsV1: '7 FieldsV1',
        subresource: '8 string',
      },
    },
    LabelSelector: { fields: { matchLabels: '1 map<string,string>', matchExpressions: '2 repeated LabelSelectorRequirement' } },
    LabelSelectorRequirement: { fields: { key: '1 string', operator: '2 string', values: '3 repeated string' } },
    // The generic condition schema models timestamps this message does not carry.
    Condition: {
      fields: { type: '1 string', status: '2 string', observedGeneration: '3 int64', lastTransitionTime: '4 Time', reason: '5 string', message: '6 string' },
      notOnWire: ['lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime'],
    },
    WatchEvent: { fields: { type: '1 string', object: '2 RawExtension' } },
    // Watch ERROR events carry a Status.
    Status: {
      fields: { metadata: '1 ListMeta', status: '2 string', message: '3 string', reason: '4 string', details: '5 StatusDetails', code: '6 int32' },
    },
    StatusDetails: { fields: { name: '1 string', group: '2 string', kind: '3 string', causes: '4 repeated StatusCause', retryAfterSeconds: '5 int32', uid: '6 string' } },
    StatusCause: { fields: { reason: '1 string', message: '2 string', field: '3 string' } },
    // DELETE bodies (every group version accepts them, as Status is in every one).
    DeleteOptions: {
      fields: { gracePeriodSeconds: '1 optional int64', preconditions: '2 Preconditions', orphanDependents: '3 optional bool', propagationPolicy: '4 string', dryRun: '5 repeated string' },
    },
    Preconditions: { fields: { uid: '1 string', resourceVersion: '2 string' } },
  },
};
