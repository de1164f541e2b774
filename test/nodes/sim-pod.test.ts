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
  return new SimPod(p, T, T0, ['10.244.0.2'], '172.16.0.1');
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

test('held for its volumes: Pending in ContainerCreating with nothing scheduled; the pull and start count from when they are ready', () => {
  const s = sim();
  s.holdForVolumes();
  assert.ok(s.waitingForVolumes);
  const held = at(s, 10_000);
  assert.is(held.phase, 'Pending');
  assert.is(container(held).state['waiting']?.['reason'], 'ContainerCreating');
  assert.is(cond(held, 'Initialized'), 'True', 'no init containers: initialized at first sight, as established');
  assert.is(s.nextAt(T0 + 10_000), undefined, 'nothing happens until the volumes are there');
  s.volumesReady(T0 + 10_000);
  assert.not.ok(s.waitingForVolumes);
  assert.is(s.nextAt(T0 + 10_000), T0 + 10_150);
  assert.is(at(s, 10_149).phase, 'Pending');
  assert.is(at(s, 10_150).phase, 'Running');
  // With an init container, the app container waits in PodInitializing and the init one starts after the volumes too.
  const i = sim({}, { initContainers: [{ name: 'init', image: 'tool' }] });
  i.holdForVolumes();
  const initHeld = at(i, 5_000);
  assert.is(cond(initHeld, 'Initialized'), 'False');
  assert.is(container(initHeld).state['waiting']?.['reason'], 'PodInitializing');
  i.volumesReady(T0 + 5_000);
  assert.is(i.nextAt(T0 + 5_000), T0 + 5_100, 'the init container starts after its pull');
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


const probed = (annotations: Record<string, string>, probes: Record<string, unknown>, restartPolicy = 'Always') =>
  sim(annotations, { restartPolicy, containers: [{ name: 'c', image: 'app', ports: [{ name: 'http', containerPort: 8080 }], ...probes }] } as Partial<NonNullable<Pod['spec']>>);
const steps = (s: SimPod, ms: number) => s.advance(T0 + ms);

test('readiness-fails: Running but never Ready, one Unhealthy failure per period; containers without the probe are unaffected', () => {
  const s = probed({ 'sim.svc.io/readiness-fails': 'true' }, { readinessProbe: { periodSeconds: 2, tcpSocket: { port: 'http' } } });
  const first = steps(s, 150);
  assert.equal(first.map((x) => x.type), ['started', 'unhealthy']);
  assert.equal(first[1], { type: 'unhealthy', container: 0, probe: 'Readiness', message: 'dial tcp 10.244.0.2:8080: connect: connection refused' });
  const st = s.status(T0 + 150);
  assert.is(st.phase, 'Running');
  assert.is(container(st).ready, false);
  assert.is(container(st).started, true);
  assert.is(cond(st, 'Ready'), 'False');
  assert.is(st.conditions?.find((c) => c.type === 'ContainersReady')?.reason, 'ContainersNotReady');
  assert.is(s.nextAt(T0 + 150), T0 + 2_150, 'the next run, one period later');
  assert.equal(steps(s, 6_150).map((x) => x.type), ['unhealthy', 'unhealthy', 'unhealthy'], 'catching up: one per missed run');
  assert.is(cond(s.status(T0 + 6_150), 'Ready'), 'False');
  // The annotation means nothing to a container without a readiness probe.
  const plain = sim({ 'sim.svc.io/readiness-fails': 'true' });
  assert.equal(steps(plain, 150).map((x) => x.type), ['started']);
  assert.is(cond(plain.status(T0 + 150), 'Ready'), 'True');
  assert.is(plain.nextAt(T0 + 150), undefined, 'no timer for it');
});

test('ready-after-seconds: the readiness probe fails until then, passing at the first run after (initialDelaySeconds honoured)', () => {
  const s = probed({ 'sim.svc.io/ready-after-seconds': '3' }, { readinessProbe: { initialDelaySeconds: 1, periodSeconds: 1, httpGet: { path: '/', port: 80 } } });
  const started = steps(s, 150);
  assert.equal(started.map((x) => x.type), ['started'], 'nothing probed before the initial delay');
  assert.is(s.nextAt(T0 + 150), T0 + 1_150);
  const failing = steps(s, 2_150);
  assert.equal(failing.map((x) => x.type), ['unhealthy', 'unhealthy'], 'runs at 1 s and 2 s fail');
  assert.is((failing[0] as { message: string }).message, 'HTTP probe failed with statuscode: 503');
  assert.is(cond(s.status(T0 + 2_150), 'Ready'), 'False');
  assert.is(s.nextAt(T0 + 2_150), T0 + 3_150);
  assert.equal(steps(s, 3_150), []);
  const ready = s.status(T0 + 3_150);
  assert.is(cond(ready, 'Ready'), 'True');
  assert.is(ready.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime, new Date(T0 + 3_150).toISOString().replace('.150', ''));
  assert.is(s.nextAt(T0 + 3_150), undefined, 'nothing more to probe');
});

test('liveness-fails-after-seconds: failureThreshold failures a period apart, then the container is killed (137) and restarted with back-off', () => {
  const s = probed({ 'sim.svc.io/liveness-fails-after-seconds': '2' }, { livenessProbe: { periodSeconds: 1, failureThreshold: 3, exec: { command: ['true'] } } });
  steps(s, 150);
  assert.equal(steps(s, 2_000), [], 'healthy before 2 s');
  const dying = steps(s, 4_150);
  assert.equal(dying.map((x) => x.type), ['unhealthy', 'unhealthy', 'unhealthy', 'killed', 'backoff']);
  assert.equal(dying[0], { type: 'unhealthy', container: 0, probe: 'Liveness', message: '' });
  assert.equal(dying[3], { type: 'killed', container: 0, probe: 'Liveness', restart: true });
  const backoff = container(s.status(T0 + 4_150));
  assert.is(backoff.state['waiting']?.['reason'], 'CrashLoopBackOff');
  assert.is(backoff.lastState['terminated']?.['exitCode'], 137);
  assert.is(backoff.lastState['terminated']?.['reason'], 'Error');
  assert.is(backoff.lastState['terminated']?.['finishedAt'], new Date(T0 + 4_150).toISOString().replace('.150', ''));
  const again = steps(s, 5_150);
  assert.equal(again.map((x) => x.type), ['started']);
  assert.is(container(s.status(T0 + 5_150)).restartCount, 1);
  assert.is(s.status(T0 + 5_150).phase, 'Running');
  // restartPolicy Never: killed for good, Failed, no "will be restarted".
  const never = probed({ 'sim.svc.io/liveness-fails-after-seconds': '0' }, { livenessProbe: { periodSeconds: 1, failureThreshold: 1, grpc: { port: 9000 } } }, 'Never');
  const end = steps(never, 1_000);
  assert.equal(end.map((x) => x.type), ['started', 'unhealthy', 'killed', 'exited']);
  assert.is((end[2] as { restart: boolean }).restart, false);
  assert.is(never.status(T0 + 1_000).phase, 'Failed');
});

test('startup probe: started (and readiness, liveness) wait for it; startup-fails kills after failureThreshold runs', () => {
  const s = probed({}, { startupProbe: { initialDelaySeconds: 2, exec: { command: ['true'] } }, readinessProbe: { exec: { command: ['true'] } } });
  steps(s, 150);
  const before = container(s.status(T0 + 150));
  assert.is(before.started, false);
  assert.is(before.ready, false);
  assert.is(s.nextAt(T0 + 150), T0 + 2_150);
  steps(s, 2_150);
  assert.is(container(s.status(T0 + 2_150)).started, true);
  assert.is(container(s.status(T0 + 2_150)).ready, true);
  const failing = probed({ 'sim.svc.io/startup-fails': 'true', 'sim.svc.io/readiness-fails': 'true' }, { startupProbe: { periodSeconds: 1, failureThreshold: 2, httpGet: { port: 80 } }, readinessProbe: { exec: { command: ['true'] } } });
  const out = steps(failing, 1_150);
  assert.equal(out.map((x) => x.type), ['started', 'unhealthy', 'unhealthy', 'killed', 'backoff'], 'readiness is never probed before startup passes');
  assert.ok(out.filter((x) => x.type === 'unhealthy').every((x) => (x as { probe: string }).probe === 'Startup'));
});

test.run();
