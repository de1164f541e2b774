// Simulated usage: where a pod's usage comes from (annotations, else the node's fraction of its
// requests, else nothing), how it is shared among containers, and how it is written.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { formatCpu, formatMemory, nodeMetricsObject, podMetricsObject, podUsage } from '../../src/nodes/sim-usage.js';
import { groupFromFlags, NodeProfileError, parseNodeProfile } from '../../src/nodes/index.js';

function usagePod(annotations: Record<string, string>, requests: Record<string, string>[]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', annotations, labels: { app: 'a' } },
    spec: { containers: requests.map((r, i) => ({ name: `c${i}`, image: 'x', resources: { requests: r } })) },
  };
}

test('no annotation and no fraction: nothing is reported', () => {
  assert.is(podUsage(usagePod({}, [{ cpu: '1' }]), 0), undefined);
});

test('annotations are the whole pod usage, shared in proportion to requests, evenly without requests', () => {
  const u = podUsage(usagePod({ 'sim.svc.io/cpu-usage': '900m', 'sim.svc.io/memory-usage': '3Gi' }, [{ cpu: '100m', memory: '1Gi' }, { cpu: '200m', memory: '2Gi' }]), 0)!;
  assert.equal(u.map((c) => [c.name, formatCpu(c.cpu), formatMemory(c.memory)]), [['c0', '300m', '1048576Ki'], ['c1', '600m', '2097152Ki']]);
  const even = podUsage(usagePod({ 'sim.svc.io/cpu-usage': '1' }, [{}, {}]), 0)!;
  assert.equal(even.map((c) => formatCpu(c.cpu)), ['500m', '500m']);
  assert.equal(even.map((c) => c.memory), [0, 0], 'memory not annotated and no fraction: 0');
});

test('without annotations the node fraction of each request is used; a bad annotation counts as absent', () => {
  const u = podUsage(usagePod({ 'sim.svc.io/cpu-usage': 'lots' }, [{ cpu: '500m', memory: '100Mi' }]), 0.5)!;
  assert.equal([formatCpu(u[0]!.cpu), formatMemory(u[0]!.memory)], ['250m', '51200Ki']);
});

test('cpu below a millicore is written in nanocores', () => {
  assert.is(formatCpu(0.0000125), '12500n');
  assert.is(formatCpu(2), '2000m');
});

test('PodMetrics carry the pod name, labels and an owner reference; NodeMetrics the sum', () => {
  const p = usagePod({ 'sim.svc.io/cpu-usage': '100m' }, [{}]);
  const u = podUsage(p, 0)!;
  const m = podMetricsObject(p, u, Date.UTC(2026, 0, 1));
  assert.is(m.metadata.name, 'p');
  assert.equal(m.metadata.labels, { app: 'a' });
  assert.is(m.timestamp, '2026-01-01T00:00:00Z');
  assert.equal(m.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' }]);
  assert.equal(nodeMetricsObject('n', [u, u], 0).usage, { cpu: '200m', memory: '0Ki' });
});

test('podUsage in a profile and from flags is checked', () => {
  assert.is(parseNodeProfile('nodes: [{count: 1, podUsage: 0.25}]')[0]!.podUsage, 0.25);
  assert.throws(() => parseNodeProfile('nodes: [{count: 1, podUsage: "half"}]'), (e: unknown) => e instanceof NodeProfileError && /podUsage: must be a number/.test((e as Error).message));
  assert.throws(() => groupFromFlags({ podUsage: -1 }), /podUsage/);
});

test.run();
