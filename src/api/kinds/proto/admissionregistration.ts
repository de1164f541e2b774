/**
 * Field numbers of admissionregistration v1 and v1beta1 (Mutating- and
 * ValidatingWebhookConfiguration), the established ones. v1beta1's messages have v1's numbers.
 * Message names carry an `Admission` prefix where the established name (Rule, ServiceReference)
 * would collide with another package's here (names are unique across packages).
 */
import type { ProtoPackageTable } from './table.js';

const WEBHOOK_COMMON = {
  name: '1 string',
  clientConfig: '2 AdmissionWebhookClientConfig',
  rules: '3 repeated AdmissionRuleWithOperations',
  failurePolicy: '4 optional string',
  namespaceSelector: '5 LabelSelector',
  sideEffects: '6 optional string',
  timeoutSeconds: '7 optional int32',
  admissionReviewVersions: '8 repeated string',
  matchPolicy: '9 optional string',
} as const;

export const ADMISSIONREGISTRATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.admissionregistration.v1',
  file: 'api/admissionregistration/v1/generated.proto',
  groupVersion: 'admissionregistration.svc.io/v1',
  kinds: { MutatingWebhookConfiguration: 'MutatingWebhookConfiguration', ValidatingWebhookConfiguration: 'ValidatingWebhookConfiguration' },
  messages: {
    MutatingWebhookConfiguration: { fields: { metadata: '1 ObjectMeta', webhooks: '2 repeated MutatingWebhook' } },
    ValidatingWebhookConfiguration: { fields: { metadata: '1 ObjectMeta', webhooks: '2 repeated ValidatingWebhook' } },
    MutatingWebhook: { fields: { ...WEBHOOK_COMMON, reinvocationPolicy: '10 optional string', objectSelector: '11 LabelSelector' } },
    ValidatingWebhook: { fields: { ...WEBHOOK_COMMON, objectSelector: '10 LabelSelector' } },
    AdmissionRuleWithOperations: { fields: { operations: '1 repeated string', rule: '2 AdmissionRule inline' } },
    AdmissionRule: { fields: { apiGroups: '1 repeated string', apiVersions: '2 repeated string', resources: '3 repeated string', scope: '4 optional string' } },
    AdmissionWebhookClientConfig: { fields: { service: '1 AdmissionServiceReference', caBundle: '2 bytes', url: '3 optional string' } },
    AdmissionServiceReference: { fields: { namespace: '1 string', name: '2 string', path: '3 optional string', port: '4 optional int32' } },
  },
};

export const ADMISSIONREGISTRATION_V1BETA1_PROTO: ProtoPackageTable = {
  package: 'svc.api.admissionregistration.v1beta1',
  file: 'api/admissionregistration/v1beta1/generated.proto',
  groupVersion: 'admissionregistration.svc.io/v1beta1',
  kinds: { MutatingWebhookConfiguration: 'MutatingWebhookConfiguration', ValidatingWebhookConfiguration: 'ValidatingWebhookConfiguration' },
  messages: {},
};
