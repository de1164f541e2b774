/**
 * The scheduling decision alone, without the API server: SchedulingBasic's shapes (5,000 nodes,
 * 1,000 background pods) and the default profile; M pods are scheduled and assumed one after the
 * other, as the scheduler's cycle does. Prints µs per pod (cycle: snapshot update + schedule +
 * assume). For profiling: N=5000 M=10000 node --cpu-prof dist/bench/try-schedule-cycle.js
 */
import { SchedulerCache } from '../src/scheduler/cache.js';
import { defaultConfiguration } from '../src/scheduler/config/defaults.js';
import { CycleState } from '../src/scheduler/framework/cycle-state.js';
import type { FrameworkHandle } from '../src/scheduler/framework/interfaces.js';
import type { Node, Pod } from '../src/scheduler/framework/objects.js';
import { newPodInfo } from '../src/scheduler/framework/pod-info.js';
import { Snapshot } from '../src/scheduler/framework/snapshot.js';
import { buildFramework } from '../src/scheduler/profile.js';
import { PodScheduler } from '../src/scheduler/schedule-one.js';

const N = Number(process.env['N'] ?? 5000);
const BG = Number(process.env['BG'] ?? 1000);
const M = Number(process.env['M'] ?? 10000);

const node = (i: number): Node => ({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } },
  status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' }, capacity: { cpu: '4', memory: '32Gi', pods: '110' } },
} as Node);
const pod = (i: number): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: `pod-${i}`, namespace: 'default', uid: `uid-${i}` },
  spec: { containers: [{ name: 'pause', image: 'registry.example/pause:3.2', resources: { requests: { cpu: '100m', memory: '500Mi' } } }] },
} as Pod);

const cache = new SchedulerCache(() => Date.now());
for (let i = 0; i < N; i++) cache.addNode(node(i));
const snapshot = new Snapshot();
const handle = {
  filters: () => fwk, snapshot: () => snapshot, now: () => Date.now(), nominatedPodsFor: () => [], event: () => {}, schedulerName: 'default-scheduler',
  listers: { services: () => [], replicaSets: () => [], statefulSets: () => [], replicationControllers: () => [], persistentVolumeClaim: () => undefined, persistentVolume: () => undefined, persistentVolumes: () => [], storageClass: () => undefined, namespaceLabels: () => undefined, podDisruptionBudgets: () => [], node: () => undefined },
  client: undefined,
} as unknown as FrameworkHandle;
const fwk = buildFramework(defaultConfiguration().profiles[0]!, handle);
const ps = new PodScheduler({ percentageOfNodesToScore: 0 });

function scheduleMany(from: number, count: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = from; i < from + count; i++) {
    const pi = newPodInfo(pod(i));
    cache.updateSnapshot(snapshot);
    const out = ps.schedule(fwk, new CycleState(), pi, snapshot);
    if (out.kind !== 'scheduled') throw new Error(`pod ${i}: ${out.kind}`);
    cache.assume(pi, out.nodeName);
    cache.finishBinding(pi.uid);
  }
  return Number(process.hrtime.bigint() - t0) / 1000 / count;
}

scheduleMany(0, BG);
const us = scheduleMany(BG, M);
console.log(JSON.stringify({ nodes: N, pods: M, usPerPod: Math.round(us), podsPerSecond: Math.round(1e6 / us) }));
