import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { persistentVolumeDefinition, podDefinition, priorityClassDefinition, type FieldError, type SvcObject } from '../../src/api/index.js';

const fields = (errs: FieldError[]) => errs.map((e) => `${e.field} ${e.type}`);

function podWith(spec: Record<string, unknown>): SvcObject {
  const p: SvcObject = { metadata: { name: 'p', namespace: 'd' }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } };
  podDefinition.defaults!(p);
  return p;
}

const errsOf = (spec: Record<string, unknown>) => fields(podDefinition.validate!(podWith(spec)));

test('node affinity: operators, values and terms as established', () => {
  assert.equal(errsOf({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{
            matchExpressions: [{ key: 'zone', operator: 'In', values: [] }, { key: 'a', operator: 'Exists', values: ['x'] }, { key: 'n', operator: 'Gt', values: ['x'] }, { key: 'b', operator: 'Near' }],
            matchFields: [{ key: 'metadata.labels', operator: 'In', values: ['x'] }],
          }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }],
      },
    },
  }), [
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values FieldValueRequired',
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values FieldValueInvalid',
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values[0] FieldValueInvalid',
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator FieldValueNotSupported',
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key FieldValueNotSupported',
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight FieldValueInvalid',
  ]);
  assert.equal(errsOf({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }), [
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms FieldValueRequired',
  ]);
});

test('inter-pod affinity terms need a topology key; weights are 1-100', () => {
  assert.equal(errsOf({
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } } }],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, podAffinityTerm: { topologyKey: 'zone' } }],
      },
    },
  }), [
    'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey FieldValueRequired',
    'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight FieldValueInvalid',
  ]);
});

test('topology spread: positive skew, known policy, no duplicate key and policy; preemption policy is known', () => {
  assert.equal(errsOf({
    topologySpreadConstraints: [
      { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
      { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'Sometimes' },
      { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
    ],
    preemptionPolicy: 'Always',
  }), [
    'spec.topologySpreadConstraints[0].maxSkew FieldValueInvalid',
    'spec.topologySpreadConstraints[1].whenUnsatisfiable FieldValueNotSupported',
    'spec.topologySpreadConstraints[2] FieldValueDuplicate',
    'spec.preemptionPolicy FieldValueNotSupported',
  ]);
  assert.equal(errsOf({ topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { a: 'b' } } }] }), []);
});

test('a persistent volume node affinity is a node selector', () => {
  const pv: SvcObject = {
    metadata: { name: 'pv' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In' }] }] } } },
  };
  persistentVolumeDefinition.defaults!(pv);
  assert.equal(fields(persistentVolumeDefinition.validate!(pv)), ['spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values FieldValueRequired']);
});

function pc(name: string, value: unknown, extra: Record<string, unknown> = {}): SvcObject {
  const o: SvcObject = { metadata: { name }, value, ...extra };
  priorityClassDefinition.defaults!(o);
  return o;
}

test('priority classes: a value is required, user values are capped, the system- prefix is reserved', () => {
  assert.equal(fields(priorityClassDefinition.validate!(pc('high', 1000))), []);
  assert.is(pc('high', 1)['preemptionPolicy'], 'PreemptLowerPriority');
  assert.equal(fields(priorityClassDefinition.validate!(pc('none', undefined))), ['value FieldValueRequired']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('huge', 1_000_000_001))), ['value FieldValueInvalid']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('system-mine', 5))), ['metadata.name FieldValueForbidden']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('system-node-critical', 2_000_001_000))), []);
  assert.equal(fields(priorityClassDefinition.validate!(pc('system-node-critical', 5))), ['value FieldValueInvalid']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('p', 1, { preemptionPolicy: 'Sometimes' }))), ['preemptionPolicy FieldValueNotSupported']);
});

test('priority classes: value and preemption policy are fixed once written', () => {
  const old = pc('p', 10);
  assert.equal(fields(priorityClassDefinition.validate!(pc('p', 11), old)), ['value FieldValueForbidden']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('p', 10, { preemptionPolicy: 'Never' }), old)), ['preemptionPolicy FieldValueInvalid']);
  assert.equal(fields(priorityClassDefinition.validate!(pc('p', 10, { description: 'changed' }), old)), []);
});

test.run();
