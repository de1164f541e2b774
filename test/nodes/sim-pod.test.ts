// A simulated pod's life, driven by explicit times (no clock, no server): start delays, readiness
// probes, run-seconds and exit codes under each restart policy, crash-loop back-off.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { SimPod, type ContainerStatus, type SimTimings } from '../../src/nodes/index.js';
import { pod } from '../helpers/objects.js';

const T: SimTimings = { imagePullMs: 100, containerStartMs: 50, backoffBaseMs: 1_000, backoffMaxMs: 4_000, containerStopMs: 500 };
const T0 = Date.UTC(2026, 10, 25);

function sim(annotations: Record<string, string> = {}, spec: Partial<NonNullable<Pod['spec']>> = {}): SimPod {
  const p = pod('p', { nodeName: 'n' }, { metadata: { name: 'p', uid: 'uid-1234-5678', annotations }, spec: { containers: [{ name: 'c', image: 'app' }], ...spec } });
  return new SimPod(p, T, T0, '10.244.0.2', '172.16.0.1');
}

const at = (s: SimPod, ms: number) => {
  s.advance(T0 + ms);
  return s.status(T0 + ms);
};
const container = (status: ReturnType<SimPod['status']>) => (status.containerStatuses as unknown as ContainerStatus[])[0]!;
const cond = (status: ReturnType<SimPod['status']>, type: string) => status.conditions?.find((c) => c.type === type)?.status;

test('Pending while the image is pulled and the container starts, then Running and Ready', () => {
  const s = sim();
  const pending = at(s, 0);
  assert.is(pending.phase, 'Pending');
  assert.is(container(pending).state['waiting']?.['reason'], 'ContainerCreating');
  assert.is(pending.podIP, undefined, 'no IP before the sandbox exists');
  assert.is(s.nextAt(T0), T0 + 150);
  const running = at(s, 150);
  assert.is(running.phase, 'Running');
  assert.is(running.podIP, '10.244.0.2');
  assert.is(running.hostIP, '172.16.0.1');
  assert.is(cond(running, 'Ready'), 'True');
  assert.is(container(running).ready, true);
  assert.is(s.nextAt(T0 + 150), undefined, 'runs until deleted');
});

test('the status is the same text until something happens (no write per look)', () => {
  const s = sim();
  const a = JSON.stringify(at(s, 200));
  const b = JSON.stringify(at(s, 60_000));
  assert.is(a, b);
});

test('a readiness probe keeps the pod not Ready for its initialDelaySeconds', () => {
  const s = sim({}, { containers: [{ name: 'c', image: 'app', readinessProbe: { initialDelaySeconds: 2 } }] });
  assert.is(cond(at(s, 150), 'Ready'), 'False');
  assert.is(s.nextAt(T0 + 150), T0 + 2_150);
  assert.is(cond(at(s, 2_150), 'Ready'), 'True');
});

test('run-seconds and exit-code under each restart policy', () => {
  const cases: Array<[string, string, string, string]> = [
    // restartPolicy, exit code, phase after the run, what the container shows
    ['Never', '0', 'Succeeded', 'terminated'],
    ['Never', '3', 'Failed', 'terminated'],
    ['OnFailure', '0', 'Succeeded', 'terminated'],
    ['OnFailure', '1', 'Running', 'waiting'],
    ['Always', '0', 'Running', 'waiting'],
  ];
  for (const [restartPolicy, code, phase, state] of cases) {
    const s = sim({ 'sim.svc.io/run-seconds': '1', 'sim.svc.io/exit-code': code }, { restartPolicy });
    const st = at(s, 1_150);
    assert.is(st.phase, phase, `${restartPolicy}/${code}`);
    assert.ok(container(st).state[state], `${restartPolicy}/${code}: ${JSON.stringify(container(st).state)}`);
    if (state === 'terminated') {
      assert.is(container(st).state['terminated']?.['exitCode'], Number(code));
      assert.is(container(st).state['terminated']?.['reason'], code === '0' ? 'Completed' : 'Error');
      assert.ok(s.finished);
    }
  }
});

test('init containers run one after the other before the app containers; Initialized once the last completes', () => {
  const s = sim({}, { initContainers: [{ name: 'i1', image: 'init' }, { name: 'i2', image: 'init' }] });
  const inits = (st: ReturnType<SimPod['status']>) => (st.initContainerStatuses as unknown as ContainerStatus[]).map((c) => Object.keys(c.state)[0]);
  const first = at(s, 0);
  assert.is(first.phase, 'Pending');
  assert.is(cond(first, 'Initialized'), 'False');
  assert.equal(inits(first), ['waiting', 'waiting']);
  assert.is(container(first).state['waiting']?.['reason'], 'PodInitializing');
  const times: number[] = [];
  for (let t = T0, i = 0; i < 10; i++) {
    const next = s.nextAt(t);
    if (next === undefined) break;
    times.push(next - T0);
    t = next;
    s.advance(t);
  }
  assert.equal(times, [100, 150, 250, 300, 450], 'each init container starting and completing, then the app starting');
  const s2 = sim({}, { initContainers: [{ name: 'i1', image: 'init' }, { name: 'i2', image: 'init' }] });
  assert.equal(inits(at(s2, 120)), ['running', 'waiting']);
  const initialized = at(s2, 300);
  assert.is(cond(initialized, 'Initialized'), 'True');
  assert.equal(inits(initialized), ['terminated', 'terminated']);
  assert.is(container(initialized).state['waiting']?.['reason'], 'ContainerCreating');
  const running = at(s2, 450);
  assert.is(running.phase, 'Running');
  assert.is((running.initContainerStatuses as unknown as ContainerStatus[])[1]!.state['terminated']?.['reason'], 'Completed');
});

test('crash loop: back-off doubles to its cap, restartCount grows, the last exit is kept', () => {
  const s = sim({ 'sim.svc.io/run-seconds': '1', 'sim.svc.io/exit-code': '2' });
  // start 150, exit 1150, back-off 1000 -> restart 2150, exit 3150, back-off 2000 -> 5150, exit 6150, back-off 4000 -> 10150, exit 11150, back-off 4000 (cap)
  const backoff = at(s, 1_200);
  assert.is(container(backoff).state['waiting']?.['reason'], 'CrashLoopBackOff');
  assert.match(String(container(backoff).state['waiting']?.['message']), /^back-off 1s restarting failed container=c pod=p_default\(uid-1234-5678\)$/);
  assert.is(container(backoff).lastState['terminated']?.['exitCode'], 2);
  assert.is(container(backoff).restartCount, 0);
  assert.is(container(at(s, 2_200)).restartCount, 1);
  assert.match(String(container(at(s, 3_200)).state['waiting']?.['message']), /back-off 2s/);
  assert.is(container(at(s, 5_200)).restartCount, 2);
  assert.match(String(container(at(s, 11_200)).state['waiting']?.['message']), /back-off 4s/, 'capped');
  const late = at(s, 60_000);
  assert.ok(container(late).restartCount >= 6, 'several steps taken in one look');
  assert.is(late.phase, 'Running');
});

test.run();
