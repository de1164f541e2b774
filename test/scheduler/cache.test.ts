// Scheduler cache rules: an assumed pod counts on its node at once; forget restores the node;
// the informer's copy confirms an assumption; expired assumptions are dropped; snapshots copy only changed nodes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { newPodInfo } from '../../src/scheduler/framework/pod-info.js';
import { Snapshot } from '../../src/scheduler/framework/snapshot.js';
import { node, pod } from '../helpers/objects.js';

function setup() {
  let now = 0;
  const cache = new SchedulerCache(() => now, 30_000);
  cache.addNode(node('n1'));
  cache.addNode(node('n2'));
  return { cache, advance: (ms: number) => (now += ms) };
}

test('an assumed pod counts on its node in the next snapshot; forget restores it', () => {
  const { cache } = setup();
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  assert.is(snap.get('n1')!.requested.milliCPU, 0);
  const p = newPodInfo(pod('p', { requests: { cpu: '500m', memory: '1Gi' } }));
  cache.assume(p, 'n1');
  cache.updateSnapshot(snap);
  assert.is(snap.get('n1')!.requested.milliCPU, 500);
  assert.is(snap.get('n1')!.requested.memory, 1024 ** 3);
  assert.is(snap.get('n1')!.pods.length, 1);
  cache.forget(p.uid);
  cache.updateSnapshot(snap);
  assert.is(snap.get('n1')!.requested.milliCPU, 0);
  assert.is(snap.get('n1')!.pods.length, 0);
});

test('the informer copy confirms the assumption (counted once)', () => {
  const { cache } = setup();
  const p = pod('p', { requests: { cpu: '1' } });
  cache.assume(newPodInfo(p), 'n1');
  cache.finishBinding(p.metadata.uid!);
  cache.addPod({ ...p, spec: { ...p.spec, nodeName: 'n1' } });
  assert.not.ok(cache.isAssumed(p.metadata.uid!));
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  assert.is(snap.get('n1')!.requested.milliCPU, 1000);
  assert.is(snap.get('n1')!.pods.length, 1);
});

test('an assumed pod whose binding finished but never shows up expires after the TTL', () => {
  const { cache, advance } = setup();
  const p = newPodInfo(pod('p', { requests: { cpu: '1' } }));
  cache.assume(p, 'n2');
  advance(60_000);
  assert.equal(cache.cleanupExpiredAssumed(), [], 'binding still running: kept');
  cache.finishBinding(p.uid);
  advance(29_999);
  assert.equal(cache.cleanupExpiredAssumed(), []);
  advance(1);
  assert.equal(cache.cleanupExpiredAssumed(), ['default/p']);
  assert.is(cache.nodeOf(p.uid), undefined);
});

test('snapshots copy only nodes changed since, and keep node order stable', () => {
  const { cache } = setup();
  const snap = new Snapshot();
  cache.updateSnapshot(snap);
  const n1 = snap.get('n1');
  const n2 = snap.get('n2');
  cache.assume(newPodInfo(pod('p')), 'n2');
  cache.updateSnapshot(snap);
  assert.ok(snap.get('n1') === n1, 'unchanged node not copied');
  assert.ok(snap.get('n2') !== n2, 'changed node copied');
  assert.equal(snap.nodeInfoList.map((n) => n.name), ['n1', 'n2']);
  assert.is(n2!.pods.length, 0, 'the old copy is untouched');
  cache.addNode(node('n3'));
  cache.removeNode(node('n1'));
  cache.updateSnapshot(snap);
  assert.equal(snap.nodeInfoList.map((n) => n.name), ['n2', 'n3']);
});

test('init containers and overhead count as established', () => {
  const p = pod('p', { requests: { cpu: '100m', memory: '100Mi' } }, {
    spec: {
      containers: [
        { name: 'a', resources: { requests: { cpu: '100m', memory: '100Mi' } } },
        { name: 'b', resources: { requests: { cpu: '200m' } } },
      ],
      initContainers: [{ name: 'i', resources: { requests: { cpu: '500m', memory: '50Mi' } } }],
      overhead: { cpu: '10m', memory: '1Mi' },
    },
  });
  const info = newPodInfo(p);
  assert.is(info.requests.milliCPU, 510, 'max(300 of containers, 500 of the init container) + 10 overhead');
  assert.is(info.requests.memory, 101 * 1024 * 1024);
});

test.run();
