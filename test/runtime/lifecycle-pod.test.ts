// The simulated pod's lifecycle (machines/lifecycles/pod.ts): its decision order over the facts a
// SimPod reports, and that the state decides the status (pure, on a fixed clock).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { podLifecycle, type PodFacts } from '../../machines/lifecycles/pod.js';
import { DEFAULT_SIM_TIMINGS, SimPod } from '../../src/nodes/sim-pod.js';

const base: PodFacts = { heldForVolumes: false, initContainers: 0, initsDone: 0, running: false, containers: 1, ready: 0, backingOff: false, backoffLeftMs: 0, restarts: 0, finished: false, exitCode: undefined, image: 'app', startsInMs: 700 };
const state = (f: Partial<PodFacts>) => evaluateLifecycle(podLifecycle, { ...base, ...f });

test('the chart draws the container states', () => {
  assert.equal(lifecycleStates(podLifecycle), ['waiting.volumes', 'waiting.initializing', 'waiting.creating', 'running.starting', 'running.ready', 'restarting', 'terminated.succeeded', 'terminated.failed']);
});

test('finished first, then back-off, running (ready or not), then the waiting steps', () => {
  assert.is(state({ finished: true, exitCode: 0 }).state, 'terminated.succeeded');
  assert.equal(state({ finished: true, exitCode: 137 }), { state: 'terminated.failed', holds: 'exit code 137' });
  assert.equal(state({ backingOff: true, backoffLeftMs: 9_500, restarts: 2 }), { state: 'restarting', holds: 'CrashLoopBackOff: restart 3 in 10 s' });
  assert.is(state({ running: true, ready: 1 }).state, 'running.ready');
  assert.equal(state({ running: true, containers: 2, ready: 1 }), { state: 'running.starting', holds: '1 of 2 containers ready' });
  assert.is(state({ heldForVolumes: true, initContainers: 1 }).state, 'waiting.volumes');
  assert.equal(state({ initContainers: 2, initsDone: 1 }), { state: 'waiting.initializing', holds: '1 of 2 init containers completed' });
  assert.equal(state({}), { state: 'waiting.creating', holds: 'pulling app and starting: runs in 1 s' });
});

test('a SimPod\'s status follows its state: waiting (ContainerCreating), running, CrashLoopBackOff', () => {
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u-1', annotations: { 'sim.svc.io/run-seconds': '1', 'sim.svc.io/exit-code': '1' } }, spec: { containers: [{ name: 'c', image: 'app' }] } };
  const sim = new SimPod(pod, DEFAULT_SIM_TIMINGS, 0, ['10.0.0.2'], '172.16.0.1');
  const reason = (now: number) => (sim.status(now).containerStatuses![0] as { state: Record<string, { reason?: string }> }).state;
  assert.is(sim.lifecycle(0).state, 'waiting.creating');
  assert.is(reason(0)['waiting']?.reason, 'ContainerCreating');
  sim.advance(700);
  assert.is(sim.lifecycle(700).state, 'running.ready');
  assert.ok(reason(700)['running']);
  sim.advance(1_700);
  assert.is(sim.lifecycle(1_700).state, 'restarting');
  assert.is(reason(1_700)['waiting']?.reason, 'CrashLoopBackOff');
  assert.is(sim.phase(), 'Running');
});

test.run();
