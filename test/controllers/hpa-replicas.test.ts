// The HPA's replica calculation and normalization (controllers/horizontalpodautoscaling): tolerance,
// missing and unready pods, cpu initialization and readiness delay, the downscale stabilization
// window, behavior policies (Pods/Percent, selectPolicy, stabilization windows) and the conditions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ScalingHistory, withDefaults } from '../../controllers/horizontalpodautoscaling/normalize.js';
import { MetricError, replicasForAverageValue, replicasForUtilization, type MetricSample, type PodForMetrics } from '../../controllers/horizontalpodautoscaling/replica-calculator.js';

const NOW = 10_000_000;
const S = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 };
const started = NOW - 3_600_000;
const podN = (name: string, over: Partial<PodForMetrics> = {}): PodForMetrics => ({
  name, phase: 'Running', deleting: false, startTime: started, ready: true, readyTransition: started + 5_000, request: 1000, ...over,
});
const samples = (values: Record<string, number>, timestamp = NOW - 1_000): Map<string, MetricSample> => new Map(Object.entries(values).map(([k, v]) => [k, { value: v, timestamp, windowMs: 30_000 }]));

test('utilization: scale by ratio; within tolerance the count stays', () => {
  const pods = [podN('a'), podN('b'), podN('c')];
  // 900m of 1000m each = 90% vs 50% target: ratio 1.8 -> ceil(5.4) = 6.
  assert.equal(replicasForUtilization(3, 50, 'cpu', pods, samples({ a: 900, b: 900, c: 900 }), S, NOW), { replicas: 6, utilization: 90, rawAverage: 900 });
  // 53% vs 50%: ratio 1.06, within 0.1.
  assert.is(replicasForUtilization(3, 50, 'cpu', pods, samples({ a: 530, b: 530, c: 530 }), S, NOW).replicas, 3);
  // With tolerance 0.01 it scales: ceil(1.06*3) = 4.
  assert.is(replicasForUtilization(3, 50, 'cpu', pods, samples({ a: 530, b: 530, c: 530 }), { ...S, tolerance: 0.01 }, NOW).replicas, 4);
  // 10% vs 50%: ceil(0.2*3) = 1.
  assert.is(replicasForUtilization(3, 50, 'cpu', pods, samples({ a: 100, b: 100, c: 100 }), S, NOW).replicas, 1);
});

test('missing pods: 100% of request on a scale-down, 0 on a scale-up; direction flips keep the count', () => {
  const pods = [podN('a'), podN('b'), podN('c'), podN('d')];
  // Up: a,b at 100% vs 50% (ratio 2); c,d missing count 0 -> 200/4 = 50% -> ratio 1.0 -> stays.
  assert.is(replicasForUtilization(4, 50, 'cpu', pods, samples({ a: 1000, b: 1000 }), S, NOW).replicas, 4);
  // Down: a,b at 10% (ratio 0.2); c,d as 100%: (10+10+100+100)/4 = 55% vs 50% -> ratio 1.1 flips -> stays.
  assert.is(replicasForUtilization(4, 50, 'cpu', pods, samples({ a: 100, b: 100 }), S, NOW).replicas, 4);
  // Down with target 80: (10+10+100+100)/4=55% vs 80 -> 0.6875 -> ceil(2.75) = 3.
  assert.is(replicasForUtilization(4, 80, 'cpu', pods, samples({ a: 100, b: 100 }), S, NOW).replicas, 3);
});

test('unready pods: within cpu initialization only Ready pods with a later sample count; unready are idle on a scale-up', () => {
  const young = NOW - 60_000;
  const pods = [podN('a'), podN('b', { startTime: young, ready: false, readyTransition: young })];
  // b is unready (initializing, not Ready): a alone at 150% vs 50% = ratio 3; b counts as 0 -> 75% -> 1.5 -> ceil(3) = 3.
  assert.is(replicasForUtilization(2, 50, 'cpu', pods, samples({ a: 1500, b: 1500 }), S, NOW).replicas, 3);
  // Ready but its sample predates readiness + window: still unready.
  const c = podN('c', { startTime: young, ready: true, readyTransition: NOW - 10_000 });
  assert.is(replicasForUtilization(2, 50, 'cpu', [podN('a'), c], samples({ a: 1500, c: 1500 }), S, NOW).replicas, 3);
  // With a short initialization period c is initialized and counts: (150+150)/2 = 150% -> 6.
  assert.is(replicasForUtilization(2, 50, 'cpu', [podN('a'), c], samples({ a: 1500, c: 1500 }), { ...S, cpuInitializationPeriodMs: 1_000 }, NOW).replicas, 6);
  // Initialized, not Ready, readiness changed within the initial delay of start (never ready): unready.
  const d = podN('d', { ready: false, readyTransition: started + 10_000 });
  assert.is(replicasForUtilization(2, 50, 'cpu', [podN('a'), d], samples({ a: 1500, d: 1500 }), S, NOW).replicas, 3);
  // Not Ready long after start (it was ready once): its sample counts.
  const e = podN('e', { ready: false, readyTransition: started + 600_000 });
  assert.is(replicasForUtilization(2, 50, 'cpu', [podN('a'), e], samples({ a: 1500, e: 1500 }), S, NOW).replicas, 6);
});

test('errors: no samples, missing requests; AverageValue targets', () => {
  assert.throws(() => replicasForUtilization(1, 50, 'cpu', [podN('a')], new Map(), S, NOW), (e: unknown) => e instanceof MetricError && /no metrics returned from resource metrics API/.test(e.message));
  assert.throws(() => replicasForUtilization(1, 50, 'cpu', [podN('a', { request: undefined })], samples({ a: 1 }), S, NOW), /missing request for cpu/);
  // 2 pods at 300Mi average vs 100Mi target: ratio 3 -> 6.
  const mi = 1024 * 1024 * 1000;
  assert.is(replicasForAverageValue(2, 100 * mi, 'memory', [podN('a'), podN('b')], samples({ a: 300 * mi, b: 300 * mi }), S, NOW).replicas, 6);
});

test('without a behavior: downscale stabilization window, max(2x, 4) rate, min/max conditions', () => {
  const h = new ScalingHistory();
  let n = h.normalize('k', 2, 10, 1, 20, 300_000, NOW);
  assert.equal([n.replicas, n.scalingLimited.reason, n.scalingLimited.status], [4, 'ScaleUpLimit', 'True']);
  n = h.normalize('k', 4, 2, 1, 20, 300_000, NOW + 15_000);
  // The recent 10 holds (stabilized), then the rate rule caps it at 2 x 4.
  assert.equal([n.replicas, n.ableToScale.reason, n.scalingLimited.reason], [8, 'ScaleDownStabilized', 'ScaleUpLimit'], 'a recent higher recommendation holds');
  // After the window the low recommendation wins (the old sample is replaced).
  n = h.normalize('k', 4, 2, 1, 20, 300_000, NOW + 400_000);
  assert.equal([n.replicas, n.ableToScale.reason, n.scalingLimited.reason], [2, 'ReadyForNewScale', 'DesiredWithinRange']);
  n = new ScalingHistory().normalize('x', 3, 30, 1, 5, 0, NOW);
  assert.equal([n.replicas, n.scalingLimited.reason], [5, 'TooManyReplicas']);
  n = new ScalingHistory().normalize('y', 3, 0, 2, 5, 0, NOW);
  assert.equal([n.replicas, n.scalingLimited.reason], [2, 'TooFewReplicas']);
});

test('behavior policies: Pods/Percent with selectPolicy, periods, stabilization windows', () => {
  const b = withDefaults({ scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }, { type: 'Percent', value: 50, periodSeconds: 60 }], selectPolicy: 'Max' }, scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } }, 300_000);
  const h = new ScalingHistory();
  // From 4: Pods +2 = 6, Percent 50% = 6 -> 6.
  let n = h.normalizeWithBehavior('k', 4, 20, 1, 100, b, NOW);
  assert.equal([n.replicas, n.scalingLimited.reason], [6, 'ScaleUpLimit']);
  h.recordScale('k', 4, 6, b, NOW);
  // Within the period the budget is spent: the limit starts from 4 again -> 6 -> no more than current 6.
  n = h.normalizeWithBehavior('k', 6, 20, 1, 100, b, NOW + 15_000);
  assert.is(n.replicas, 6);
  // After the period: from 6, max(8, 9) = 9.
  n = h.normalizeWithBehavior('k', 6, 20, 1, 100, b, NOW + 75_000);
  assert.is(n.replicas, 9);
  const min = withDefaults({ scaleUp: { selectPolicy: 'Min', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }, { type: 'Percent', value: 100, periodSeconds: 60 }] } }, 0);
  assert.is(new ScalingHistory().normalizeWithBehavior('m', 10, 40, 1, 100, min, NOW).replicas, 12, 'Min picks the smaller step');
  // Scale down one pod per period.
  n = new ScalingHistory().normalizeWithBehavior('d', 10, 2, 1, 100, b, NOW);
  assert.equal([n.replicas, n.scalingLimited.reason], [9, 'ScaleDownLimit']);
  const disabled = withDefaults({ scaleDown: { selectPolicy: 'Disabled' } }, 0);
  assert.is(new ScalingHistory().normalizeWithBehavior('z', 10, 2, 1, 100, disabled, NOW).replicas, 10);
  // A scale-up stabilization window holds the lowest recent recommendation.
  const slow = withDefaults({ scaleUp: { stabilizationWindowSeconds: 60 } }, 0);
  const hs = new ScalingHistory();
  hs.normalizeWithBehavior('s', 3, 3, 1, 100, slow, NOW);
  n = hs.normalizeWithBehavior('s', 3, 8, 1, 100, slow, NOW + 10_000);
  assert.equal([n.replicas, n.ableToScale.reason], [3, 'ScaleUpStabilized']);
  // The default scale-down window is the flag's.
  assert.is(withDefaults({}, 120_000).scaleDown.stabilizationWindowSeconds, 120);
});

test.run();
