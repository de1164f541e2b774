// The horizontalpodautoscaling controller against the real API server (test cluster: the deployment
// and replicaset controllers, the scheduler, simulated nodes reporting PodMetrics): raising the
// pods' simulated cpu usage scales the Deployment up within a sync period; lowering it scales it
// down only once the (short, by flag) downscale stabilization window has passed; an External
// metric, with no external metrics API, is reported as the established ScalingActive=False.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Deployment, HorizontalPodAutoscaler, Pod } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/index.js';
import { ANNOTATION_CPU_USAGE } from '../../src/nodes/sim-annotations.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { customResourceDefinition } from '../helpers/objects.js';

let cluster: TestCluster;
const SYNC_MS = 1_000;
const STABILIZATION_MS = 8_000;

test.before(async () => {
  cluster = await startTestCluster({
    controllers: ['horizontalpodautoscaling', 'deployment', 'replicaset'],
    nodes: 2,
    controllerConfig: { hpaSyncPeriodMs: SYNC_MS, hpaDownscaleStabilizationMs: STABILIZATION_MS, hpaCpuInitializationPeriodMs: 1_000, hpaInitialReadinessDelayMs: 1_000 },
  });
});

test.after(async () => {
  await cluster.stop();
});

const deployment = (name: string, replicas: number): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1', resources: { requests: { cpu: '100m' } } }] } },
  },
});
const replicasOf = async (name: string) => (await cluster.client.get<Deployment>(resources.deployments, 'default', name)).spec?.replicas ?? 0;
const runningPods = async (app: string) =>
  (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `app=${app}` })).items.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
const setUsage = async (app: string, cpu: string) => {
  for (const p of await runningPods(app)) {
    await cluster.client.patch(resources.pods, 'default', p.metadata.name!, 'merge', { metadata: { annotations: { [ANNOTATION_CPU_USAGE]: cpu } } });
  }
};
const hpaV2 = (name: string) => cluster.client.get<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, 'default', name);

test('cpu up: scales up within a sync period; cpu down: scales down only after the stabilization window', async () => {
  await cluster.client.create(resources.deployments, 'default', deployment('web', 2));
  await eventually(async () => (await runningPods('web')).length === 2, 20_000, 'two pods running');
  await setUsage('web', '50m');
  // autoscaling/v1, the spec's version: a cpu utilization target.
  const v1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 6, targetCPUUtilizationPercentage: 50 } };
  await cluster.client.create(resources['horizontalpodautoscalers.v1.autoscaling'], 'default', v1 as SvcObject);
  await eventually(async () => (await hpaV2('web')).status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 50, 20_000, 'utilization observed at 50%');
  assert.is(await replicasOf('web'), 2, 'at target: no change');
  const active = (await hpaV2('web')).status?.conditions?.find((c) => c.type === 'ScalingActive');
  assert.equal([active?.status, active?.reason, active?.message], ['True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)']);

  // 200% of the request: ratio 4 -> 8, capped by the rate rule (max(2x2, 4) = 4), later by maxReplicas.
  const raisedAt = Date.now();
  await setUsage('web', '200m');
  await eventually(async () => (await replicasOf('web')) === 4, 20_000, 'scaled up to 4');
  const reacted = Date.now() - raisedAt;
  const rescaled = async () => {
    const events = (await cluster.client.list(resources.events, { namespace: 'default' })).items as unknown as { reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } }[];
    return events.some((e) => e.involvedObject?.kind === 'HorizontalPodAutoscaler' && e.reason === 'SuccessfulRescale' && e.message === 'New size: 4; reason: cpu resource utilization (percentage of request) above target');
  };
  await eventually(rescaled, 10_000, 'the SuccessfulRescale Event');
  const v1Read = await cluster.client.get(resources['horizontalpodautoscalers.v1.autoscaling'], 'default', 'web');
  assert.ok(typeof (v1Read.status as { currentCPUUtilizationPercentage?: number }).currentCPUUtilizationPercentage === 'number', 'v1 shows the current utilization');
  await eventually(async () => (await replicasOf('web')) === 6, 20_000, 'scaled up to the maximum');
  await eventually(async () => (await runningPods('web')).length === 6, 20_000, 'six pods running');

  // Down: every pod at 10m (10%): desired 2 (ceil(0.2 x 6)); held at 6 during the window.
  // The window runs from the last high recommendation: at worst the last sync before the first
  // pod's usage fell, at most one sync period before the lowering began.
  const loweredAt = Date.now();
  await setUsage('web', '10m');
  await eventually(async () => (await hpaV2('web')).status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 10, 20_000, 'low usage observed');
  const held = (await hpaV2('web')).status?.conditions?.find((c) => c.type === 'AbleToScale');
  assert.is(await replicasOf('web'), 6, 'no scale-down within the stabilization window');
  assert.is(held?.reason, 'ScaleDownStabilized');
  await eventually(async () => (await replicasOf('web')) < 6, 30_000, 'scaled down after the window');
  const after = Date.now() - loweredAt;
  assert.ok(after >= STABILIZATION_MS - SYNC_MS, `scaled down after ${after} ms, before the ${STABILIZATION_MS} ms window`);
  // The usage falls one pod at a time: a sync that saw some pods still high recommended more than 2,
  // and the window keeps that recommendation for one more sync (6 -> 5 -> 2 is right too).
  await eventually(async () => (await replicasOf('web')) === 2, 2 * SYNC_MS + 10_000, 'scaled down to 2');
  console.log(`hpa e2e: scale-up ${reacted} ms after the usage rose (sync period ${SYNC_MS} ms); scale-down ${after} ms after it fell (window ${STABILIZATION_MS} ms)`);
});

test('an External metric without an external metrics API: ScalingActive=False FailedGetExternalMetric, no scaling', async () => {
  await cluster.client.create(resources.deployments, 'default', deployment('ext', 1));
  const hpa = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'ext', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'ext' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'AverageValue', averageValue: '5' } } }] },
  } as HorizontalPodAutoscaler;
  await cluster.client.create(resources.horizontalpodautoscalers, 'default', hpa);
  await eventually(async () => (await hpaV2('ext')).status?.conditions?.some((c) => c.type === 'ScalingActive') === true, 20_000, 'status written');
  const c = (await hpaV2('ext')).status!.conditions!.find((x) => x.type === 'ScalingActive')!;
  assert.equal([c.status, c.reason], ['False', 'FailedGetExternalMetric']);
  assert.match(c.message ?? '', /unable to get external metric queue_depth/);
  assert.is(await replicasOf('ext'), 1);
});

test('a custom resource with a scale subresource is scaled through it (below minReplicas: raised to it)', async () => {
  const group = 'hpa.example.com';
  const ref = { group, version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };
  const crd = customResourceDefinition(group, 'widgets', 'Widget');
  crd.spec!.versions![0]!.subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
  await cluster.client.create(resources.customresourcedefinitions, '', crd);
  await eventually(async () => cluster.client.list(ref).then(() => true, () => false), 10_000, 'widgets served');
  await cluster.client.create(ref, 'default', { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 1 } } as SvcObject);
  const hpa = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'w', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: `${group}/v1`, kind: 'Widget', name: 'w' }, minReplicas: 3, maxReplicas: 5 },
  } as HorizontalPodAutoscaler;
  await cluster.client.create(resources.horizontalpodautoscalers, 'default', hpa);
  await eventually(async () => ((await cluster.client.get(ref, 'default', 'w')).spec as { replicas?: number }).replicas === 3, 20_000, 'widget scaled to 3');
  await eventually(async () => (await hpaV2('w')).status?.desiredReplicas === 3, 10_000, 'status written');
  // The Event is its own write, recorded beside the status's: it may land just after it.
  await eventually(async () => {
    const events = (await cluster.client.list(resources.events, { namespace: 'default' })).items as unknown as { reason?: string; message?: string; involvedObject?: { name?: string } }[];
    return events.some((e) => e.involvedObject?.name === 'w' && e.reason === 'SuccessfulRescale' && e.message === 'New size: 3; reason: Current number of replicas below Spec.MinReplicas');
  }, 10_000, 'the SuccessfulRescale Event');
});

test.run();
