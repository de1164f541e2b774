/**
 * Field numbers of apiregistration/v1 and v1beta1 (APIService; v1beta1 has v1's numbers), as the
 * established generated.proto gives them. Message names are unique across packages, so the
 * established `ServiceReference` and `APIServiceCondition` messages carry an APIService prefix here
 * (the name is not on the wire).
 */
import type { ProtoPackageTable } from './table.js';

export const APIREGISTRATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.apiregistration.v1',
  file: 'api/apiregistration/v1/generated.proto',
  groupVersion: 'apiregistration.svc.io/v1',
  kinds: { APIService: 'APIService' },
  messages: {
    APIService: { fields: { metadata: '1 ObjectMeta', spec: '2 APIServiceSpec', status: '3 APIServiceStatus' } },
    APIServiceSpec: {
      fields: {
        service: '1 APIServiceServiceReference',
        group: '2 string',
        version: '3 string',
        insecureSkipTLSVerify: '4 bool',
        caBundle: '5 bytes',
        groupPriorityMinimum: '7 int32',
        versionPriority: '8 int32',
      },
    },
    APIServiceServiceReference: { fields: { namespace: '1 string', name: '2 string', port: '3 optional int32' } },
    APIServiceStatus: { fields: { conditions: '1 repeated APIServiceCondition' } },
    APIServiceCondition: {
      fields: { type: '1 string', status: '2 string', lastTransitionTime: '3 Time', reason: '4 string', message: '5 string' },
      notOnWire: ['lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime', 'observedGeneration'],
    },
  },
};

/** apiregistration v1beta1 APIServices have v1's field numbers: the messages are v1's. */
export const APIREGISTRATION_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.apiregistration.v1beta1',
  file: 'api/apiregistration/v1beta1/generated.proto',
  groupVersion: 'apiregistration.svc.io/v1beta1',
  kinds: { APIService: 'APIService' },
  messages: {},
};
