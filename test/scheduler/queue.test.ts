// Scheduling queue rules: priority then arrival; back-off doubling to the cap; unschedulable pods
// move back on events their refusing plugins declared, or after 60 s; a move during a cycle sends a failed pod to back-off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newPodInfo } from '../../src/scheduler/framework/pod-info.js';
import { less } from '../../src/scheduler/plugins/priority-sort/index.js';
import { SchedulingQueue } from '../../src/scheduler/queue.js';
import type { ClusterEvent } from '../../src/scheduler/framework/interfaces.js';
import { pod } from '../helpers/objects.js';

function setup(events: Record<string, ClusterEvent[]> = {}) {
  let now = 1_000_000;
  const q = new SchedulingQueue({ now: () => now, less, pluginEvents: new Map(Object.entries(events)) });
  return { q, advance: (ms: number) => (now += ms) };
}

test('pops by priority, then in arrival order', () => {
  const { q, advance } = setup();
  q.add(newPodInfo(pod('low', { priority: 1 })));
  advance(1);
  q.add(newPodInfo(pod('high', { priority: 10 })));
  advance(1);
  q.add(newPodInfo(pod('low2', { priority: 1 })));
  assert.equal([q.pop()?.podInfo.key, q.pop()?.podInfo.key, q.pop()?.podInfo.key, q.pop()], ['default/high', 'default/low', 'default/low2', undefined]);
});

test('an error sends the pod to back-off: 1 s, then 2 s, ... capped at 10 s', () => {
  const { q, advance } = setup();
  q.add(newPodInfo(pod('p')));
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 6; attempt++) {
    const got = q.pop()!;
    q.requeueFailed(got, q.schedulingCycle, 'error');
    let waited = 0;
    while (q.lengths().active === 0) {
      advance(250);
      waited += 250;
      q.flushBackoffCompleted();
    }
    waits.push(waited);
  }
  assert.equal(waits, [1000, 2000, 4000, 8000, 10000, 10000]);
});

test('an unschedulable pod moves back only on an event its refusing plugin declared', () => {
  const { q, advance } = setup({ NodeResourcesFit: [{ resource: 'Node', actions: ['Add'] }, { resource: 'Pod', actions: ['Delete'] }] });
  q.add(newPodInfo(pod('p')));
  const got = q.pop()!;
  got.unschedulablePlugins = new Set(['NodeResourcesFit']);
  q.requeueFailed(got, q.schedulingCycle, 'unschedulable');
  assert.equal(q.lengths(), { active: 0, backoff: 0, unschedulable: 1 });
  assert.is(q.moveOnEvent('Service', 'Add'), 0);
  assert.is(q.moveOnEvent('Node', 'Update'), 0);
  advance(5_000);
  assert.is(q.moveOnEvent('Node', 'Add'), 1);
  assert.equal(q.lengths(), { active: 1, backoff: 0, unschedulable: 0 });
});

test('a pod moved back while still backing off waits in back-off first', () => {
  const { q } = setup();
  q.add(newPodInfo(pod('p')));
  const got = q.pop()!;
  got.unschedulablePlugins = new Set(['X']);
  q.requeueFailed(got, q.schedulingCycle, 'unschedulable');
  q.moveOnEvent('Node', 'Add');
  assert.equal(q.lengths(), { active: 0, backoff: 1, unschedulable: 0 });
});

test('an event during the cycle sends the failed pod to back-off, not unschedulable', () => {
  const { q } = setup({ NodeResourcesFit: [{ resource: 'Node', actions: ['Add'] }] });
  q.add(newPodInfo(pod('p')));
  const got = q.pop()!;
  const cycle = q.schedulingCycle;
  q.moveOnEvent('Node', 'Add');
  q.requeueFailed(got, cycle, 'unschedulable');
  assert.equal(q.lengths(), { active: 0, backoff: 1, unschedulable: 0 });
});

test('pods parked for 60 s are retried without any event', () => {
  const { q, advance } = setup({ NodeResourcesFit: [{ resource: 'Node', actions: ['Add'] }] });
  q.add(newPodInfo(pod('p')));
  const got = q.pop()!;
  got.unschedulablePlugins = new Set(['NodeResourcesFit']);
  q.requeueFailed(got, q.schedulingCycle, 'unschedulable');
  advance(59_000);
  assert.is(q.flushUnschedulableLeftover(), 0);
  advance(1_000);
  assert.is(q.flushUnschedulableLeftover(), 1);
  assert.is(q.lengths().active, 1);
});

test('an update of a parked pod gives it another attempt; delete removes it everywhere', () => {
  const { q, advance } = setup();
  const p = pod('p');
  q.add(newPodInfo(p));
  const got = q.pop()!;
  got.unschedulablePlugins = new Set(['X']);
  q.requeueFailed(got, q.schedulingCycle, 'unschedulable');
  advance(20_000);
  q.update(newPodInfo({ ...p, metadata: { ...p.metadata, labels: { a: 'b' } } }));
  assert.is(q.lengths().active, 1);
  q.delete('default/p');
  assert.equal(q.lengths(), { active: 0, backoff: 0, unschedulable: 0 });
});

test('onActive fires when the active queue goes from empty to non-empty', () => {
  const { q } = setup();
  let n = 0;
  q.onActive = () => n++;
  q.add(newPodInfo(pod('a')));
  q.add(newPodInfo(pod('b')));
  assert.is(n, 1);
  q.pop();
  q.pop();
  q.add(newPodInfo(pod('c')));
  assert.is(n, 2);
});

test.run();
