/**
 * Field numbers of networking/v1 (Ingress, IngressClass, NetworkPolicy), storage/v1 (StorageClass,
 * CSIDriver, CSINode, VolumeAttachment), node/v1 and v1beta1 (RuntimeClass, same numbers) and
 * events/v1 (Event), as the established generated.proto files give them.
 */
import type { ProtoPackageTable } from './table.js';

export const NETWORKING_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.networking.v1',
  file: 'api/networking/v1/generated.proto',
  groupVersion: 'networking.svc.io/v1',
  kinds: { Ingress: 'Ingress', IngressClass: 'IngressClass', NetworkPolicy: 'NetworkPolicy' },
  messages: {
    Ingress: { fields: { metadata: '1 ObjectMeta', spec: '2 IngressSpec', status: '3 IngressStatus' } },
    IngressSpec: { fields: { defaultBackend: '1 IngressBackend', tls: '2 repeated IngressTLS', rules: '3 repeated IngressRule', ingressClassName: '4 optional string' } },
    IngressBackend: { fields: { resource: '3 TypedLocalObjectReference', service: '4 IngressServiceBackend' } },
    IngressServiceBackend: { fields: { name: '1 string', port: '2 ServiceBackendPort' } },
    ServiceBackendPort: { fields: { name: '1 string', number: '2 int32' } },
    IngressTLS: { fields: { hosts: '1 repeated string', secretName: '2 string' } },
    IngressRule: { fields: { host: '1 string', ingressRuleValue: '2 IngressRuleValue inline' } },
    IngressRuleValue: { fields: { http: '1 HTTPIngressRuleValue' } },
    HTTPIngressRuleValue: { fields: { paths: '1 repeated HTTPIngressPath' } },
    HTTPIngressPath: { fields: { path: '1 string', backend: '2 IngressBackend', pathType: '3 string' } },
    IngressStatus: { fields: { loadBalancer: '1 IngressLoadBalancerStatus' } },
    IngressLoadBalancerStatus: { fields: { ingress: '1 repeated IngressLoadBalancerIngress' } },
    IngressLoadBalancerIngress: { fields: { ip: '1 string', hostname: '2 string', ports: '4 repeated IngressPortStatus' } },
    IngressPortStatus: { fields: { port: '1 int32', protocol: '2 string', error: '3 string' } },
    IngressClass: { fields: { metadata: '1 ObjectMeta', spec: '2 IngressClassSpec' } },
    IngressClassSpec: { fields: { controller: '1 string', parameters: '2 IngressClassParametersReference' } },
    IngressClassParametersReference: { fields: { apiGroup: '1 string', kind: '2 string', name: '3 string', scope: '4 string', namespace: '5 string' } },
    NetworkPolicy: { fields: { metadata: '1 ObjectMeta', spec: '2 NetworkPolicySpec' } },
    NetworkPolicySpec: {
      fields: { podSelector: '1 LabelSelector', ingress: '2 repeated NetworkPolicyIngressRule', egress: '3 repeated NetworkPolicyEgressRule', policyTypes: '4 repeated string' },
    },
    NetworkPolicyIngressRule: { fields: { ports: '1 repeated NetworkPolicyPort', from: '2 repeated NetworkPolicyPeer' } },
    NetworkPolicyEgressRule: { fields: { ports: '1 repeated NetworkPolicyPort', to: '2 repeated NetworkPolicyPeer' } },
    NetworkPolicyPort: { fields: { protocol: '1 optional string', port: '2 IntOrString', endPort: '3 optional int32' } },
    NetworkPolicyPeer: { fields: { podSelector: '1 LabelSelector', namespaceSelector: '2 LabelSelector', ipBlock: '3 IPBlock' } },
    IPBlock: { fields: { cidr: '1 string', except: '2 repeated string' } },
  },
};

export const STORAGE_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.storage.v1',
  file: 'api/storage/v1/generated.proto',
  groupVersion: 'storage.svc.io/v1',
  kinds: { StorageClass: 'StorageClass', CSIDriver: 'CSIDriver', CSINode: 'CSINode', VolumeAttachment: 'VolumeAttachment' },
  messages: {
    StorageClass: {
      fields: {
        metadata: '1 ObjectMeta',
        provisioner: '2 string',
        parameters: '3 map<string,string>',
        reclaimPolicy: '4 optional string',
        mountOptions: '5 repeated string',
        allowVolumeExpansion: '6 optional bool',
        volumeBindingMode: '7 optional string',
        allowedTopologies: '8 repeated TopologySelectorTerm',
      },
    },
    // core/v1 messages in the established files (names do not reach the wire).
    TopologySelectorTerm: { fields: { matchLabelExpressions: '1 repeated TopologySelectorLabelRequirement' } },
    TopologySelectorLabelRequirement: { fields: { key: '1 string', values: '2 repeated string' } },
    CSIDriver: { fields: { metadata: '1 ObjectMeta', spec: '2 CSIDriverSpec' } },
    CSIDriverSpec: {
      fields: {
        attachRequired: '1 optional bool',
        podInfoOnMount: '2 optional bool',
        volumeLifecycleModes: '3 repeated string',
        storageCapacity: '4 optional bool',
        fsGroupPolicy: '5 optional string',
        tokenRequests: '6 repeated TokenRequest',
        requiresRepublish: '7 optional bool',
        seLinuxMount: '8 optional bool',
      },
    },
    TokenRequest: { fields: { audience: '1 string', expirationSeconds: '2 optional int64' } },
    CSINode: { fields: { metadata: '1 ObjectMeta', spec: '2 CSINodeSpec' } },
    CSINodeSpec: { fields: { drivers: '1 repeated CSINodeDriver' } },
    CSINodeDriver: { fields: { name: '1 string', nodeID: '2 string', topologyKeys: '3 repeated string', allocatable: '4 VolumeNodeResources' } },
    VolumeNodeResources: { fields: { count: '1 optional int32' } },
    VolumeAttachment: { fields: { metadata: '1 ObjectMeta', spec: '2 VolumeAttachmentSpec', status: '3 VolumeAttachmentStatus' } },
    VolumeAttachmentSpec: { fields: { attacher: '1 string', source: '2 VolumeAttachmentSource', nodeName: '3 string' } },
    VolumeAttachmentSource: { fields: { persistentVolumeName: '1 string', inlineVolumeSpec: '2 PersistentVolumeSpec' } },
    VolumeAttachmentStatus: {
      fields: { attached: '1 optional bool', attachmentMetadata: '2 map<string,string>', attachError: '3 VolumeError', detachError: '4 VolumeError' },
    },
    VolumeError: { fields: { time: '1 Time', message: '2 string' } },
  },
};

export const NODE_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.node.v1',
  file: 'api/node/v1/generated.proto',
  groupVersion: 'node.svc.io/v1',
  kinds: { RuntimeClass: 'RuntimeClass' },
  messages: {
    RuntimeClass: { fields: { metadata: '1 ObjectMeta', handler: '2 optional string', overhead: '3 Overhead', scheduling: '4 Scheduling' } },
    Overhead: { fields: { podFixed: '1 map<string,Quantity>' } },
    Scheduling: { fields: { nodeSelector: '1 map<string,string>', tolerations: '2 repeated Toleration' } },
  },
};

/** node v1beta1 RuntimeClasses have v1's field numbers: the messages are v1's. */
export const NODE_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.node.v1beta1',
  file: 'api/node/v1beta1/generated.proto',
  groupVersion: 'node.svc.io/v1beta1',
  kinds: { RuntimeClass: 'RuntimeClass' },
  messages: {},
};

export const EVENTS_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.events.v1',
  file: 'api/events/v1/generated.proto',
  groupVersion: 'events.svc.io/v1',
  kinds: { Event: 'EventsV1Event' },
  messages: {
    // Established name Event; suffixed because core/v1's carries that name here.
    EventsV1Event: {
      fields: {
        metadata: '1 ObjectMeta',
        eventTime: '2 MicroTime',
        series: '3 EventsV1EventSeries',
        reportingController: '4 string',
        reportingInstance: '5 string',
        action: '6 string',
        reason: '7 string',
        regarding: '8 ObjectReference',
        related: '9 ObjectReference',
        note: '10 string',
        type: '11 string',
        deprecatedSource: '12 EventSource',
        deprecatedFirstTimestamp: '13 Time',
        deprecatedLastTimestamp: '14 Time',
        deprecatedCount: '15 int32',
      },
    },
    EventsV1EventSeries: { fields: { count: '1 optional int32', lastObservedTime: '2 MicroTime' } },
  },
};
