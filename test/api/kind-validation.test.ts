import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  builtinResources, configMapDefinition, cronJobDefinition, deploymentDefinition, horizontalPodAutoscalerDefinition, leaseDefinition,
  podDefinition, roleBindingDefinition, roleDefinition, secretDefinition, serviceDefinition, type FieldError, type SvcObject,
} from '../../src/api/index.js';

const fields = (errs: FieldError[]) => errs.map((e) => `${e.field} ${e.type}`);

function podWith(spec: Record<string, unknown>): SvcObject {
  const p: SvcObject = { metadata: { name: 'p', namespace: 'd' }, spec };
  podDefinition.defaults!(p);
  return p;
}

test('a pod needs at least one container', () => {
  assert.equal(fields(podDefinition.validate!(podWith({ containers: [] }))), ['spec.containers FieldValueRequired']);
});

test('container names are DNS labels and unique; image is required', () => {
  const errs = podDefinition.validate!(podWith({ containers: [{ name: 'Web', image: 'x' }, { name: 'a', image: '' }, { name: 'a', image: 'y' }] }));
  assert.equal(fields(errs), [
    'spec.containers[0].name FieldValueInvalid',
    'spec.containers[1].image FieldValueRequired',
    'spec.containers[2].name FieldValueDuplicate',
  ]);
});

test('container ports are in range with a supported protocol', () => {
  const errs = podDefinition.validate!(podWith({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 70000 }, { containerPort: 80, protocol: 'ICMP' }] }] }));
  assert.equal(fields(errs), ['spec.containers[0].ports[0].containerPort FieldValueInvalid', 'spec.containers[0].ports[1].protocol FieldValueNotSupported']);
  assert.is(errs[0]!.message, 'Invalid value: 70000: must be between 1 and 65535, inclusive');
  assert.is(errs[1]!.message, 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"');
});

test('a volume mount must name a declared volume', () => {
  const errs = podDefinition.validate!(podWith({ containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'data', mountPath: '/d' }] }] }));
  assert.equal(fields(errs), ['spec.containers[0].volumeMounts[0].name FieldValueNotFound']);
});

test('a pod update may change images but not other spec fields; binding may set nodeName once', () => {
  const old = podWith({ containers: [{ name: 'c', image: 'x:1' }] });
  const img = structuredClone(old);
  ((img.spec as Record<string, unknown>)['containers'] as Record<string, unknown>[])[0]!['image'] = 'x:2';
  assert.equal(podDefinition.validate!(img, old), []);
  const bound = structuredClone(old);
  (bound.spec as Record<string, unknown>)['nodeName'] = 'n1';
  assert.equal(podDefinition.validate!(bound, old), []);
  const changed = structuredClone(old);
  (changed.spec as Record<string, unknown>)['restartPolicy'] = 'Never';
  assert.equal(fields(podDefinition.validate!(changed, old)), ['spec FieldValueForbidden']);
});

function deployment(selector: unknown, labels: Record<string, string>): SvcObject {
  const d: SvcObject = { metadata: { name: 'd', namespace: 'n' }, spec: { selector, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
  deploymentDefinition.defaults!(d);
  return d;
}

test('a deployment selector must match the template labels', () => {
  const errs = deploymentDefinition.validate!(deployment({ matchLabels: { app: 'a' } }, { app: 'b' }));
  assert.equal(errs, [{ field: 'spec.template.metadata.labels', type: 'FieldValueInvalid', message: 'Invalid value: {"app":"b"}: `selector` does not match template `labels`' }]);
  assert.equal(deploymentDefinition.validate!(deployment({ matchLabels: { app: 'a' } }, { app: 'a', x: 'y' })), []);
});

test('a deployment selector is required, non-empty and immutable', () => {
  assert.equal(fields(deploymentDefinition.validate!(deployment(undefined, { app: 'a' }))), ['spec.selector FieldValueRequired']);
  assert.equal(fields(deploymentDefinition.validate!(deployment({}, { app: 'a' }))), ['spec.selector FieldValueInvalid']);
  const old = deployment({ matchLabels: { app: 'a' } }, { app: 'a', v: '1' });
  const next = deployment({ matchLabels: { app: 'a', v: '1' } }, { app: 'a', v: '1' });
  assert.equal(fields(deploymentDefinition.validate!(next, old)), ['spec.selector FieldValueInvalid']);
});

test('a deployment template must restart Always and maxUnavailable/maxSurge may not both be 0', () => {
  const d = deployment({ matchLabels: { app: 'a' } }, { app: 'a' });
  const spec = d.spec as { template: { spec: Record<string, unknown> }; strategy: { rollingUpdate: Record<string, unknown> } };
  spec.template.spec['restartPolicy'] = 'Never';
  spec.strategy.rollingUpdate = { maxUnavailable: 0, maxSurge: '0%' };
  assert.equal(fields(deploymentDefinition.validate!(d)), ['spec.template.spec.restartPolicy FieldValueNotSupported', 'spec.strategy.rollingUpdate.maxUnavailable FieldValueInvalid']);
});

test('service ports: required, in range, named when several', () => {
  const s: SvcObject = { metadata: { name: 's', namespace: 'd' }, spec: { ports: [{ port: 0 }, { port: 80 }] } };
  serviceDefinition.defaults!(s);
  assert.equal(fields(serviceDefinition.validate!(s)), ['spec.ports[0].name FieldValueRequired', 'spec.ports[0].port FieldValueInvalid', 'spec.ports[0].targetPort FieldValueInvalid', 'spec.ports[1].name FieldValueRequired']);
  const none: SvcObject = { metadata: { name: 's' }, spec: {} };
  serviceDefinition.defaults!(none);
  assert.equal(fields(serviceDefinition.validate!(none)), ['spec.ports FieldValueRequired']);
});

test('configmap and secret keys are valid config keys; secret data is base64', () => {
  assert.equal(fields(configMapDefinition.validate!({ metadata: { name: 'c' }, data: { 'a/b': 'x', ok: 'y' } })), ['data[a/b] FieldValueInvalid']);
  assert.equal(fields(secretDefinition.validate!({ metadata: { name: 's' }, type: 'Opaque', data: { k: 'not base64!' } })), ['data[k] FieldValueInvalid']);
  assert.equal(secretDefinition.validate!({ metadata: { name: 's' }, type: 'Opaque', data: { k: 'aGk=' } }), []);
});

test('lease duration must be positive and transitions non-negative', () => {
  const errs = leaseDefinition.validate!({ metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 0, leaseTransitions: -1, renewTime: 'yesterday' } });
  assert.equal(fields(errs), ['spec.leaseDurationSeconds FieldValueInvalid', 'spec.leaseTransitions FieldValueInvalid', 'spec.renewTime FieldValueInvalid']);
  assert.equal(leaseDefinition.validate!({ metadata: { name: 'l' }, spec: { leaseDurationSeconds: 15, renewTime: '2024-01-02T03:04:05.123456Z' } }), []);
});

test('rbac: role rules need verbs and api groups; bindings need a valid roleRef that never changes', () => {
  assert.equal(fields(roleDefinition.validate!({ metadata: { name: 'r' }, rules: [{ resources: ['pods'] }] })), ['rules[0].verbs FieldValueRequired', 'rules[0].apiGroups FieldValueRequired']);
  const rb: SvcObject = { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'u' }] };
  assert.equal(roleBindingDefinition.validate!(rb), []);
  const changed = { ...rb, roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'other' } };
  assert.equal(fields(roleBindingDefinition.validate!(changed, rb)), ['roleRef FieldValueInvalid']);
});

test('hpa: maxReplicas required and not below minReplicas', () => {
  const h: SvcObject = { metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, minReplicas: 3, maxReplicas: 2 } };
  assert.equal(fields(horizontalPodAutoscalerDefinition.validate!(h)), ['spec.maxReplicas FieldValueInvalid']);
});

test('cronjob: a schedule is required and parsed', () => {
  const c: SvcObject = { metadata: { name: 'c' }, spec: { schedule: 'every day', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'x' }] } } } } } };
  cronJobDefinition.defaults!(c);
  assert.equal(fields(cronJobDefinition.validate!(c)), ['spec.schedule FieldValueInvalid']);
  (c.spec as Record<string, unknown>)['schedule'] = '*/5 * * * *';
  assert.equal(cronJobDefinition.validate!(c), []);
});

test('every built-in kind has the established shape: selectable metadata fields, scale mappings with scale', () => {
  for (const d of builtinResources()) {
    const f = d.selectableFields({ metadata: { name: 'x', namespace: 'y' } });
    assert.is(f['metadata.name'], 'x', d.plural);
    assert.is(f['metadata.namespace'], d.namespaced ? 'y' : undefined, d.plural);
    assert.is(d.subresources.includes('scale'), d.scale !== undefined, d.plural);
    assert.is(d.hasStatus, d.subresources.includes('status'), d.plural);
  }
  assert.is(builtinResources().length, 66);
});

test.run();
