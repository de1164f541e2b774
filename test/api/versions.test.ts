// Conversions between the served versions of one built-in kind (src/api/versions.ts and the
// kinds' hooks): each version's object survives a trip through the storage version, and objects
// stored in an older version read in any version.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  builtinResources, cronJobDefinition, cronJobV1beta1Definition, endpointSliceDefinition, endpointSliceV1beta1Definition, eventDefinition,
  eventsV1EventDefinition, horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition, PDB_V1BETA1_EMPTY_SELECTOR_LABEL,
  podDisruptionBudgetDefinition, podDisruptionBudgetV1beta1Definition, readAs, storageDefinition, writeAs,
  type ResourceDefinition, type SvcObject,
} from '../../src/api/index.js';

const all = builtinResources();
const siblingsOf = (def: ResourceDefinition) => all.filter((d) => storageDefinition(d) === storageDefinition(def));
/** Written through `from`, read through `to` (a private copy each way, as the store does). */
const trip = (from: ResourceDefinition, to: ResourceDefinition, obj: SvcObject): SvcObject =>
  readAs(to, siblingsOf(to))(structuredClone(writeAs(from, obj)));

test('every version served beside a storage version names it, and the storage version is served', () => {
  const converted = all.filter((d) => d.conversion);
  assert.ok(converted.length >= 7);
  for (const d of converted) {
    assert.ok(all.includes(d.conversion!.storage), `${d.group}/${d.version} ${d.kind}`);
    assert.is(d.conversion!.storage.conversion, undefined);
  }
});

test('CronJob: batch/v1beta1 and batch/v1 differ only in apiVersion; the write does not change the request object', () => {
  const beta: SvcObject = { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '@daily', suspend: true } };
  const before = structuredClone(beta);
  const stored = writeAs(cronJobV1beta1Definition, beta);
  assert.equal(beta, before);
  assert.is(stored.apiVersion, 'batch/v1');
  assert.equal(trip(cronJobV1beta1Definition, cronJobDefinition, beta), { ...beta, apiVersion: 'batch/v1' });
  assert.equal(trip(cronJobV1beta1Definition, cronJobV1beta1Definition, beta), beta);
});

test('an object stored in a version other than the storage version (written before the kind had it) reads in every version', () => {
  const legacy: SvcObject = { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'old' }, spec: { schedule: '@hourly' } };
  assert.is(readAs(cronJobDefinition, siblingsOf(cronJobDefinition))(structuredClone(legacy)).apiVersion, 'batch/v1');
  assert.is(readAs(cronJobV1beta1Definition, siblingsOf(cronJobDefinition))(structuredClone(legacy)).apiVersion, 'batch/v1beta1');
});

test('PodDisruptionBudget: an empty v1beta1 selector (no pods) is stored as a requirement no pod meets and reads back empty', () => {
  const beta: SvcObject = { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 1, selector: {} } };
  const stored = writeAs(podDisruptionBudgetV1beta1Definition, beta);
  assert.equal((stored.spec as { selector: unknown }).selector, { matchExpressions: [{ key: PDB_V1BETA1_EMPTY_SELECTOR_LABEL, operator: 'Exists' }] });
  assert.equal(trip(podDisruptionBudgetV1beta1Definition, podDisruptionBudgetV1beta1Definition, beta), beta);
  // In v1 an empty selector selects every pod, and stays empty in v1beta1 only through the marker.
  const v1: SvcObject = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { selector: { matchLabels: { app: 'a' } } } };
  assert.equal(trip(podDisruptionBudgetDefinition, podDisruptionBudgetV1beta1Definition, v1), { ...v1, apiVersion: 'policy/v1beta1' });
});

test('EndpointSlice: v1beta1 topology <-> v1 zone, nodeName and deprecatedTopology, as established', () => {
  const beta: SvcObject = {
    apiVersion: 'discovery.svc.io/v1beta1',
    kind: 'EndpointSlice',
    metadata: { name: 's' },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['10.0.0.1'], nodeName: 'n1', topology: { 'topology.svc.io/zone': 'z1', 'svc.io/hostname': 'n1', rack: 'r' } },
      // A hostname entry that differs from nodeName is kept in deprecatedTopology.
      { addresses: ['10.0.0.2'], nodeName: 'n2', topology: { 'svc.io/hostname': 'other' } },
      { addresses: ['10.0.0.3'] },
    ],
  };
  const v1 = trip(endpointSliceV1beta1Definition, endpointSliceDefinition, beta);
  assert.equal(v1['endpoints'], [
    { addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r' } },
    { addresses: ['10.0.0.2'], nodeName: 'n2', deprecatedTopology: { 'svc.io/hostname': 'other' } },
    { addresses: ['10.0.0.3'] },
  ]);
  assert.equal(trip(endpointSliceDefinition, endpointSliceV1beta1Definition, v1), beta);
});

test('HorizontalPodAutoscaler: v1 target <-> v2 cpu metric; metrics, behavior, current metrics and conditions round-trip v2 -> v1 -> v2', () => {
  const v1: SvcObject = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h' },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 20 },
  };
  const v2 = trip(horizontalPodAutoscalerV1Definition, horizontalPodAutoscalerDefinition, v1);
  assert.equal(v2['spec'], { scaleTargetRef: { kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] });
  assert.equal((v2['status'] as Record<string, unknown>)['currentMetrics'], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 } } }]);
  // As established, v1 keeps the current metrics in an annotation even when the cpu field says it all.
  const v1Again = trip(horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition, v2);
  assert.equal({ ...v1Again, metadata: { name: 'h' } }, v1);
  assert.equal(Object.keys(v1Again.metadata.annotations ?? {}), ['autoscaling.alpha.svc.io/current-metrics']);
  assert.equal(trip(horizontalPodAutoscalerV1Definition, horizontalPodAutoscalerDefinition, v1Again), v2);

  const rich: SvcObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h', annotations: { keep: 'me' } },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'd' },
      maxReplicas: 9,
      metrics: [
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
    },
    status: {
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 30, averageValue: '120m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True' }],
    },
  };
  const asV1 = trip(horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition, rich);
  assert.is((asV1['spec'] as Record<string, unknown>)['targetCPUUtilizationPercentage'], 60);
  assert.is((asV1['status'] as Record<string, unknown>)['currentCPUUtilizationPercentage'], 30);
  assert.equal(Object.keys(asV1.metadata.annotations!).sort(), ['autoscaling.alpha.svc.io/behavior', 'autoscaling.alpha.svc.io/conditions', 'autoscaling.alpha.svc.io/current-metrics', 'autoscaling.alpha.svc.io/metrics', 'keep']);
  const back = trip(horizontalPodAutoscalerV1Definition, horizontalPodAutoscalerDefinition, asV1);
  // The cpu metric comes back first (v1 has it as a field); everything else is as it was.
  const spec = rich['spec'] as Record<string, unknown[]>;
  assert.equal(back, { ...rich, spec: { ...spec, metrics: [spec['metrics']![1], spec['metrics']![0]] } });
});

test('HorizontalPodAutoscaler v2 defaults: the 80% cpu target when no metric is given, and a given behavior filled in', () => {
  const o: SvcObject = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { maxReplicas: 2, behavior: { scaleUp: { stabilizationWindowSeconds: 30 } } } };
  horizontalPodAutoscalerDefinition.defaults!(o);
  const spec = o['spec'] as Record<string, unknown>;
  assert.equal(spec['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  assert.equal(spec['behavior'], {
    scaleUp: { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
});

test('events.svc.io/v1 Event <-> core v1 Event: the renamed fields, stored in the core resource', () => {
  assert.is(storageDefinition(eventsV1EventDefinition), eventDefinition);
  const ev: SvcObject = {
    apiVersion: 'events.svc.io/v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: '2026-11-22T08:03:22.000000Z',
    reportingController: 'svc.io/scheduler',
    reportingInstance: 'i',
    action: 'Binding',
    reason: 'Scheduled',
    regarding: { kind: 'Pod', name: 'p' },
    note: 'assigned',
    type: 'Normal',
    deprecatedCount: 3,
  };
  const core = writeAs(eventsV1EventDefinition, ev);
  assert.equal(core, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: '2026-11-22T08:03:22.000000Z',
    reportingComponent: 'svc.io/scheduler',
    reportingInstance: 'i',
    action: 'Binding',
    reason: 'Scheduled',
    involvedObject: { kind: 'Pod', name: 'p' },
    message: 'assigned',
    type: 'Normal',
    count: 3,
  });
  assert.equal(trip(eventsV1EventDefinition, eventsV1EventDefinition, ev), ev);
  assert.equal(eventsV1EventDefinition.selectableFields(ev)['involvedObject.name'], 'p');
});

test.run();
