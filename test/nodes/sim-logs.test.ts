// The rules of a simulated container's log (src/nodes/sim-logs.ts) and how a pod picks the run a
// log request gets (SimPod.logRun), as the established node agent cuts and picks: the default and
// annotated lines, periodic lines, sinceSeconds/sinceTime, tailLines, limitBytes, timestamps,
// previous, the waiting and not-found messages; and a pod's stop time on deletion.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { logTimestamp, parseLogQuery, podBehaviour, renderLog, SimPod, type ContainerRun, type SimTimings } from '../../src/nodes/index.js';
import { pod } from '../helpers/objects.js';

const T: SimTimings = { imagePullMs: 100, containerStartMs: 50, backoffBaseMs: 1_000, backoffMaxMs: 4_000, containerStopMs: 700 };
const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);

const run = (over: Partial<ContainerRun> = {}): ContainerRun => ({ namespace: 'ns', pod: 'web', container: 'app', image: 'nginx:1.25', restart: 0, startedAt: T0, finishedAt: undefined, ...over });

function sim(annotations: Record<string, string> = {}, spec: Partial<NonNullable<Pod['spec']>> = {}): SimPod {
  const p = pod('p', { nodeName: 'n' }, { metadata: { name: 'p', namespace: 'ns', uid: 'uid-1234-5678', annotations }, spec: { containers: [{ name: 'c', image: 'app' }], ...spec } });
  return new SimPod(p, T, T0, ['10.244.0.2'], '172.16.0.1');
}

test('a container prints one default line per start, naming itself, its image, pod and start', () => {
  const b = podBehaviour({});
  assert.is(renderLog(run(), b, {}, T0 + 60_000), 'svc simulated container app started (image nginx:1.25, pod ns/web, start 1)\n');
  assert.is(renderLog(run({ restart: 2 }), b, {}, T0), 'svc simulated container app started (image nginx:1.25, pod ns/web, start 3)\n');
  assert.is(renderLog(run(), b, {}, T0 - 1), '', 'nothing before it starts');
});

test('sim.svc.io/log gives the lines of each start; log-every-seconds adds a line every N seconds while it runs', () => {
  const b = podBehaviour({ 'sim.svc.io/log': 'hello\nworld\n', 'sim.svc.io/log-every-seconds': '2', 'sim.svc.io/log-line': 'beat {n}' });
  assert.is(renderLog(run(), b, {}, T0 + 1_999), 'hello\nworld\n');
  assert.is(renderLog(run(), b, {}, T0 + 6_000), 'hello\nworld\nbeat 1\nbeat 2\nbeat 3\n');
  assert.is(renderLog(run({ finishedAt: T0 + 4_500 }), b, {}, T0 + 60_000), 'hello\nworld\nbeat 1\nbeat 2\n', 'an exited run prints no more');
  const plain = podBehaviour({ 'sim.svc.io/log-every-seconds': '1' });
  assert.match(renderLog(run(), plain, {}, T0 + 2_000), /started .*\ntick 1\ntick 2\n$/);
});

test('sinceSeconds/sinceTime keep the lines printed since; tailLines the last N of those; limitBytes cuts the bytes', () => {
  const b = podBehaviour({ 'sim.svc.io/log': 'a\nb', 'sim.svc.io/log-every-seconds': '1' });
  const now = T0 + 5_000;
  assert.is(renderLog(run(), b, { sinceMs: T0 + 2_500 }, now), 'tick 3\ntick 4\ntick 5\n');
  assert.is(renderLog(run(), b, { sinceMs: T0 + 3_000 }, now), 'tick 3\ntick 4\ntick 5\n', 'a line printed at the very time is kept');
  assert.is(renderLog(run(), b, { sinceMs: T0 }, now), 'a\nb\ntick 1\ntick 2\ntick 3\ntick 4\ntick 5\n');
  assert.is(renderLog(run(), b, { tailLines: 2 }, now), 'tick 4\ntick 5\n');
  assert.is(renderLog(run(), b, { tailLines: 0 }, now), '');
  assert.is(renderLog(run(), b, { tailLines: 100 }, now).split('\n').length, 8);
  assert.is(renderLog(run(), b, { sinceMs: T0 + 3_500, tailLines: 5 }, now), 'tick 4\ntick 5\n', 'tail within the since window');
  assert.is(renderLog(run(), b, { limitBytes: 5 }, now), 'a\nb\nt', 'the limit may cut a line');
});

test('timestamps: RFC 3339 with the fraction Go prints (trailing zeros dropped), then a space', () => {
  assert.is(logTimestamp(T0), '2026-11-25T10:00:00Z');
  assert.is(logTimestamp(T0 + 120), '2026-11-25T10:00:00.12Z');
  const b = podBehaviour({ 'sim.svc.io/log': 'x', 'sim.svc.io/log-every-seconds': '0.25' });
  assert.is(renderLog(run(), b, { timestamps: true, tailLines: 2 }, T0 + 500), '2026-11-25T10:00:00.25Z tick 1\n2026-11-25T10:00:00.5Z tick 2\n');
});

test('query options as the node agent reads them; bad values are messages for a 400', () => {
  const now = T0 + 10_000;
  const ok = parseLogQuery(new URLSearchParams('follow=true&previous=false&timestamps=true&tailLines=3&limitBytes=10&sinceSeconds=4'), now);
  assert.equal(ok, { follow: true, previous: false, cuts: { sinceMs: T0 + 6_000, tailLines: 3, limitBytes: 10, timestamps: true } });
  const since = parseLogQuery(new URLSearchParams('sinceTime=2026-11-25T10:00:05Z'), now);
  assert.ok(!('error' in since) && since.cuts.sinceMs === T0 + 5_000);
  assert.equal(parseLogQuery(new URLSearchParams('tailLines=-1'), now), { error: 'tailLines: Invalid value: "-1": must be greater than or equal to 0' });
  assert.equal(parseLogQuery(new URLSearchParams('limitBytes=0'), now), { error: 'limitBytes: Invalid value: "0": must be greater than 0' });
  assert.equal(parseLogQuery(new URLSearchParams('sinceSeconds=5&sinceTime=2026-11-25T10:00:05Z'), now), { error: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
});

test('the run a request gets: waiting to start, running, previous of a crash loop, not found', () => {
  const s = sim({ 'sim.svc.io/run-seconds': '1', 'sim.svc.io/exit-code': '1' });
  s.advance(T0);
  assert.is(s.logRun('c', false, T0), 'container "c" in pod "p" is waiting to start: ContainerCreating');
  assert.is(s.logRun('c', true, T0), 'previous terminated container "c" in pod "p" not found');
  s.advance(T0 + 150);
  const first = s.logRun('c', false, T0 + 150);
  assert.equal(first, { namespace: 'ns', pod: 'p', container: 'c', image: 'app', restart: 0, startedAt: T0 + 150, finishedAt: undefined });
  assert.is(s.logRun('c', true, T0 + 150), 'previous terminated container "c" in pod "p" not found', 'no previous run yet');
  // Exits at +1150, backs off 1 s: both the log and the previous log are the exited run.
  s.advance(T0 + 1_500);
  assert.equal(s.logRun('c', false, T0 + 1_500), { ...(first as ContainerRun), finishedAt: T0 + 1_150 });
  assert.equal(s.logRun('c', true, T0 + 1_500), { ...(first as ContainerRun), finishedAt: T0 + 1_150 });
  // Restarted at +2150: the log is the new run, the previous the first.
  s.advance(T0 + 2_200);
  assert.equal(s.logRun('c', false, T0 + 2_200), { ...(first as ContainerRun), restart: 1, startedAt: T0 + 2_150 });
  assert.equal(s.logRun('c', true, T0 + 2_200), { ...(first as ContainerRun), finishedAt: T0 + 1_150 });
  assert.is(s.logRun('nope', false, T0 + 2_200), 'container "nope" not found in pod "p"');
});

test('init containers: waiting in PodInitializing, then their completed run', () => {
  const s = sim({}, { initContainers: [{ name: 'setup', image: 'tool' }] });
  s.advance(T0);
  assert.is(s.logRun('c', false, T0), 'container "c" in pod "p" is waiting to start: PodInitializing');
  assert.is(s.logRun('setup', false, T0), 'container "setup" in pod "p" is waiting to start: PodInitializing');
  assert.equal(s.logRun('setup', false, T0 + 200), { namespace: 'ns', pod: 'p', container: 'setup', image: 'tool', restart: 0, startedAt: T0 + 100, finishedAt: T0 + 150 });
});

test('stop time on deletion: the node default, the annotation, SIGTERM ignored (whole grace period), at most the grace period', () => {
  const running = (a: Record<string, string> = {}) => {
    const s = sim(a);
    s.advance(T0 + 150);
    return s;
  };
  assert.is(sim().stopDelayMs(30_000), 0, 'nothing runs yet: at once');
  assert.is(running().stopDelayMs(30_000), 700);
  assert.is(running({ 'sim.svc.io/stop-seconds': '3' }).stopDelayMs(30_000), 3_000);
  assert.is(running({ 'sim.svc.io/stop-seconds': '45' }).stopDelayMs(30_000), 30_000, 'killed at the end of the grace period');
  assert.is(running({ 'sim.svc.io/ignore-sigterm': 'true' }).stopDelayMs(30_000), 30_000);
  assert.is(running().stopDelayMs(0), 0);
});

test.run();
