// The networking, storage and node kinds (and the PDB, HPA and EndpointSlice columns): the established validation messages, defaults and
// Table cells (Ingress, IngressClass, NetworkPolicy, StorageClass, CSIDriver, CSINode,
// VolumeAttachment, RuntimeClass).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  csiDriverDefinition, csiNodeDefinition, endpointSliceDefinition, endpointSliceV1beta1Definition, horizontalPodAutoscalerDefinition,
  horizontalPodAutoscalerV1Definition, podDisruptionBudgetDefinition, ingressClassDefinition, ingressDefinition, networkPolicyDefinition, runtimeClassDefinition,
  storageClassDefinition, volumeAttachmentDefinition, type FieldError, type ResourceDefinition, type SvcObject,
} from '../../src/api/index.js';

const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.message}`);
const check = (def: ResourceDefinition, o: SvcObject, old?: SvcObject) => {
  def.defaults?.(o);
  return messages(def.validate!(o, old));
};
const created = '2026-01-01T00:00:00Z';
const now = Date.parse(created) + 5 * 60_000;

const ingress = (spec: Record<string, unknown>): SvcObject => ({ apiVersion: 'networking.svc.io/v1', kind: 'Ingress', metadata: { name: 'i', namespace: 'd', creationTimestamp: created }, spec });
const backend = { service: { name: 'web', port: { number: 80 } } };

test('Ingress: a valid one passes; rules or a default backend are required', () => {
  assert.equal(check(ingressDefinition, ingress({ rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] })), []);
  assert.equal(check(ingressDefinition, ingress({ defaultBackend: backend })), []);
  assert.equal(check(ingressDefinition, ingress({})), ['spec.rules: Invalid value: []: either `defaultBackend` or `rules` must be specified']);
});

test('Ingress paths: pathType required and supported, absolute paths, one backend with a port', () => {
  const errs = check(ingressDefinition, ingress({
    rules: [{
      host: '10.0.0.1',
      http: {
        paths: [
          { path: '/', backend },
          { path: '/', pathType: 'Regex', backend },
          { path: 'rel', pathType: 'Exact', backend },
          { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: {} } } },
          { path: '/', pathType: 'Prefix', backend: { ...backend, resource: { kind: 'Bucket', name: 'b' } } },
          { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http', number: 80 } } } },
        ],
      },
    }],
  }));
  assert.equal(errs, [
    'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    'spec.rules[0].http.paths[1].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    'spec.rules[0].http.paths[2].path: Invalid value: "rel": must be an absolute path',
    'spec.rules[0].http.paths[3].backend.service.port: Required value: port name or number is required',
    'spec.rules[0].http.paths[4].backend: Invalid value: "": cannot set both resource and service backends',
    'spec.rules[0].http.paths[5].backend.service.port: Invalid value: {"name":"http","number":80}: cannot set both port name & port number',
  ]);
});

test('Ingress cells: class, hosts (or *), address, ports (443 with TLS)', () => {
  const i = ingress({ ingressClassName: 'nginx', tls: [{ hosts: ['a.example.com'] }], rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }] });
  i['status'] = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.com' }] } };
  assert.equal(ingressDefinition.tableColumns!.cells(i, now), ['i', 'nginx', 'a.example.com,b.example.com', '192.0.2.1,lb.example.com', '80, 443', '5m']);
  assert.equal(ingressDefinition.tableColumns!.cells(ingress({ defaultBackend: backend }), now), ['i', '<none>', '*', '', '80', '5m']);
});

test('IngressClass: controller required and immutable; parameters scope rules', () => {
  const ic = (spec: Record<string, unknown>): SvcObject => ({ metadata: { name: 'c' }, spec });
  assert.equal(check(ingressClassDefinition, ic({ controller: 'example.com/ingress' })), []);
  assert.equal(check(ingressClassDefinition, ic({})), ['spec.controller: Required value']);
  assert.equal(check(ingressClassDefinition, ic({ controller: 'example.com/other' }), ic({ controller: 'example.com/ingress' })), ['spec.controller: Invalid value: "example.com/other": field is immutable']);
  assert.equal(check(ingressClassDefinition, ic({ controller: 'example.com/i', parameters: { kind: 'P', name: 'p', scope: 'Namespace' } })), [
    'spec.parameters.namespace: Required value: `parameters.scope` is set to "Namespace"',
  ]);
});

test('NetworkPolicy: defaults (TCP, policyTypes from the rules) and validation', () => {
  const np: SvcObject = { metadata: { name: 'n', namespace: 'd', creationTimestamp: created }, spec: { egress: [{ ports: [{ port: 53 }] }] } };
  assert.equal(check(networkPolicyDefinition, np), []);
  assert.equal(np['spec'], { egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  assert.equal(networkPolicyDefinition.tableColumns!.cells(np, now), ['n', '<none>', '5m']);
  const bad: SvcObject = {
    metadata: { name: 'n', namespace: 'd' },
    spec: { podSelector: {}, ingress: [{ from: [{}, { ipBlock: { cidr: '10.0.0.0/40' } }, { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }], ports: [{ port: 80, endPort: 70 }] }], policyTypes: ['Sideways'] },
  };
  assert.equal(check(networkPolicyDefinition, bad), [
    'spec.ingress[0].ports[0].endPort: Invalid value: 70: must be greater than or equal to `port`',
    'spec.ingress[0].from[0]: Required value: must specify a peer',
    'spec.ingress[0].from[1].ipBlock.cidr: Invalid value: "10.0.0.0/40": must be a valid CIDR (e.g. 10.0.0.0/16)',
    'spec.ingress[0].from[2]: Forbidden: may not specify both ipBlock and another peer',
    'spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
  ]);
});

test('StorageClass: defaults, provisioner required, policies supported, parameters not updatable; the default class in its cells', () => {
  const sc: SvcObject = { metadata: { name: 'fast', creationTimestamp: created, annotations: { 'storageclass.svc.io/is-default-class': 'true' } }, provisioner: 'example.com/csi' };
  assert.equal(check(storageClassDefinition, sc), []);
  assert.is(sc['reclaimPolicy'], 'Delete');
  assert.is(sc['volumeBindingMode'], 'Immediate');
  assert.equal(storageClassDefinition.tableColumns!.cells(sc, now), ['fast (default)', 'example.com/csi', 'Delete', 'Immediate', 'false', '5m']);
  assert.equal(check(storageClassDefinition, { metadata: { name: 's' }, reclaimPolicy: 'Recycle' }), [
    'provisioner: Required value',
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
  ]);
  const changed = { ...sc, parameters: { type: 'ssd' } };
  assert.equal(check(storageClassDefinition, changed, sc), ['parameters: Forbidden: updates to parameters are forbidden.']);
});

test('CSIDriver defaults and modes; CSINode drivers need a node ID; VolumeAttachment needs one source and a node', () => {
  const d: SvcObject = { metadata: { name: 'csi.example.com' }, spec: {} };
  assert.equal(check(csiDriverDefinition, d), []);
  assert.equal(d['spec'], { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false, seLinuxMount: false, volumeLifecycleModes: ['Persistent'] });
  assert.equal(check(csiDriverDefinition, { metadata: { name: 'csi.example.com' }, spec: { volumeLifecycleModes: ['Forever'] } }), [
    'spec.volumeLifecycleModes[0]: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"',
  ]);
  assert.equal(check(csiNodeDefinition, { metadata: { name: 'n1' }, spec: { drivers: [{ name: 'csi.example.com' }] } }), ['spec.drivers[0].nodeID: Required value']);
  assert.equal(check(volumeAttachmentDefinition, { metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', source: {} } }), [
    'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    'spec.nodeName: Required value',
  ]);
});

test('RuntimeClass: the handler is a DNS label, required and immutable', () => {
  assert.equal(check(runtimeClassDefinition, { metadata: { name: 'g' }, handler: 'runsc' }), []);
  assert.equal(check(runtimeClassDefinition, { metadata: { name: 'g' } }), ['handler: Required value']);
  assert.is(check(runtimeClassDefinition, { metadata: { name: 'g' }, handler: 'Run_SC' }).length, 1);
  assert.equal(check(runtimeClassDefinition, { metadata: { name: 'g' }, handler: 'kata' }, { metadata: { name: 'g' }, handler: 'runsc' }), ['handler: Invalid value: "kata": field is immutable']);
});

test('PodDisruptionBudget, HorizontalPodAutoscaler (every version) and EndpointSlice cells, as kubectl shows them', () => {
  const meta = { name: 'web', namespace: 'd', creationTimestamp: created };
  assert.equal(podDisruptionBudgetDefinition.tableColumns!.cells({ metadata: meta, spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }, now), ['web', '50%', 'N/A', 1, '5m']);
  const hpa: SvcObject = {
    apiVersion: 'autoscaling/v2',
    metadata: meta,
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      ],
    },
    status: { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } }] },
  };
  assert.equal(horizontalPodAutoscalerDefinition.tableColumns!.cells(hpa, now), ['web', 'Deployment/web', 'cpu: 40%/80%, memory: <unknown>/500Mi', '1', 5, 2, '5m']);
  // v1 has its own fields; it prints the same columns from the object converted to v2.
  const v1: SvcObject = { apiVersion: 'autoscaling/v1', metadata: meta, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 70 } };
  assert.equal(horizontalPodAutoscalerV1Definition.tableColumns!.cells(v1, now), ['web', 'Deployment/web', 'cpu: <unknown>/70%', '<unset>', 3, 0, '5m']);
  const slice: SvcObject = { metadata: meta, addressType: 'IPv4', ports: [{ port: 80 }, { port: 443 }], endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }] };
  assert.equal(endpointSliceDefinition.tableColumns!.cells(slice, now), ['web', 'IPv4', '80,443', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...', '5m']);
  assert.equal(endpointSliceV1beta1Definition.tableColumns!.columns.map((c) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
});

test.run();
