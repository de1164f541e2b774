// Simulated pods as kubectl 1.35 sees them against `svc up` (real process, HTTPS): `kubectl logs`
// (default line, annotated lines, --tail, --timestamps, -c, --previous of a crash loop, -f growing),
// the established 400s (waiting to start, several containers), `exec` and `port-forward` answered
// with a Status saying the nodes are simulated, `delete pod` done within 2 s, `scale --replicas=0`
// within 5 s, `describe pod` showing the node's Events, and `get nodes` showing a VERSION.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../helpers/client.js';
import { kubectl, kubectlStream, KUBECTL_V35 } from '../helpers/kubectl.js';
import { startSvcUp, type SvcUp } from '../helpers/svc-up.js';

let up: SvcUp;
const v35 = { bin: KUBECTL_V35 };

test.before(async () => {
  // A 5 s image pull leaves time to see a pod waiting to start (kubectl took over 2 s on a loaded machine); a 1 s back-off makes a crash loop quick.
  up = await startSvcUp('pod-logs', ['--nodes=2', '--image-pull-delay=5s', '--container-start-delay=10ms', '--crash-loop-back-off=1s']);
});

test.after(async () => {
  await up?.stop();
});

const k = (args: string[]) => kubectl(up.kubeconfig, args, 60_000, v35);

async function waitRunning(name: string): Promise<void> {
  await up.kubectlOk(['wait', '--for=condition=Ready', `pod/${name}`, '--timeout=60s'], v35);
}

test('get nodes shows each node\'s VERSION (status.nodeInfo.kubeletVersion)', async () => {
  const out = await up.kubectlOk(['get', 'nodes', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,V:.status.nodeInfo.kubeletVersion'], v35);
  assert.match(out, /sim-node-0\s+v\d+\.\d+\.\d+/);
  const table = await up.kubectlOk(['get', 'nodes'], v35);
  assert.match(table, /VERSION/);
  assert.match(table.split('\n').find((l) => l.startsWith('sim-node-0')) ?? '', /\sv\d+\.\d+\.\d+/, table);
});

test('logs: waiting to start is the established 400; then the default line; annotated lines, --tail, --timestamps', async () => {
  await up.kubectlOk(['run', 'web', '--image=nginx:1.25', '--annotations=sim.svc.io/log=hello\nworld', '--annotations=sim.svc.io/log-every-seconds=0.5'], v35);
  await eventually(async () => (await k(['get', 'pod', 'web', '-o', 'jsonpath={.spec.nodeName}'])).stdout !== '', 20_000, 'web bound');
  const waiting = await k(['logs', 'web']);
  assert.is(waiting.code, 1);
  assert.match(waiting.stderr, /Error from server \(BadRequest\): container "web" in pod "web" is waiting to start: ContainerCreating/);
  await waitRunning('web');
  await eventually(async () => (await k(['logs', 'web'])).stdout.includes('tick 2'), 20_000, 'two periodic lines');
  const all = await up.kubectlOk(['logs', 'web'], v35);
  assert.ok(all.startsWith('hello\nworld\ntick 1\ntick 2\n'), all);
  assert.is(await up.kubectlOk(['logs', 'web', '--tail=1'], v35).then((o) => o.split('\n').length), 2, 'one line and the final newline');
  const stamped = await up.kubectlOk(['logs', 'web', '--timestamps', '--tail=2'], v35);
  for (const line of stamped.trim().split('\n')) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z tick \d+$/);
  const limited = await up.kubectlOk(['logs', 'web', '--limit-bytes=3'], v35);
  assert.is(limited, 'hel');

  await up.kubectlOk(['run', 'plain', '--image=busybox:1.36'], v35);
  await waitRunning('plain');
  assert.is(await up.kubectlOk(['logs', 'plain'], v35), 'svc simulated container plain started (image busybox:1.36, pod default/plain, start 1)\n');
});

test('logs -f shows lines as the container prints them', async () => {
  const follow = kubectlStream(up.kubeconfig, ['logs', '-f', 'web'], KUBECTL_V35);
  try {
    await eventually(() => /tick \d+/.test(follow.output()), 20_000, 'the first lines');
    const count = () => (follow.output().match(/tick \d+/g) ?? []).length;
    const before = count();
    await eventually(() => count() >= before + 3, 20_000, `more lines than ${before}: ${follow.output()}`);
    assert.is(follow.child.exitCode, null, 'still following');
  } finally {
    follow.child.kill('SIGTERM');
  }
});

test('several containers: -c picks one, none given is the established 400 listing them', async () => {
  const manifest = up.manifest('two.yaml', `apiVersion: v1
kind: Pod
metadata: { name: two }
spec:
  containers:
    - { name: a, image: busybox:1.36 }
    - { name: b, image: busybox:1.36 }
`);
  await up.kubectlOk(['apply', '-f', manifest], v35);
  await waitRunning('two');
  assert.match(await up.kubectlOk(['logs', 'two', '-c', 'b'], v35), /container b started/);
  const raw = await k(['get', '--raw', '/api/v1/namespaces/default/pods/two/log']);
  assert.is(raw.code, 1);
  assert.match(raw.stderr, /a container name must be specified for pod two, choose one of: \[a b\]/);
});

test('logs --previous of a crash-looping container; none yet is the established 400', async () => {
  await up.kubectlOk(['run', 'crash', '--image=busybox:1.36', '--annotations=sim.svc.io/run-seconds=1', '--annotations=sim.svc.io/exit-code=1'], v35);
  await waitRunning('crash');
  const none = await k(['logs', 'crash', '--previous']);
  assert.match(none.stderr, /previous terminated container "crash" in pod "crash" not found/);
  await eventually(async () => Number((await k(['get', 'pod', 'crash', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout) >= 2, 60_000, 'two restarts');
  const previous = await up.kubectlOk(['logs', 'crash', '--previous'], v35);
  assert.match(previous, /^svc simulated container crash started \(image busybox:1\.36, pod default\/crash, start \d\)\n$/);
  const events = await up.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=crash,reason=BackOff', '-o', 'jsonpath={.items[*].type}'], v35);
  assert.match(events, /Warning/);
});

test('exec and port-forward answer a Status that says the nodes are simulated', async () => {
  const exec = await k(['exec', 'plain', '--', 'ls']);
  assert.is(exec.code, 1);
  assert.match(exec.stderr, /Error from server \(BadRequest\): cannot run a command in pod plain: its node sim-node-\d is simulated/);
  const pf = await k(['port-forward', 'pod/plain', '0:80']);
  assert.is(pf.code, 1);
  assert.match(pf.stderr, /cannot forward a port to pod plain: its node sim-node-\d is simulated/);
  const attach = await k(['attach', 'plain']);
  assert.match(attach.stderr, /cannot attach to pod plain: its node sim-node-\d is simulated/);
});

test('describe pod shows the node\'s Events; delete pod is done in seconds, not the 30 s grace period', async () => {
  const described = await up.kubectlOk(['describe', 'pod', 'plain'], v35);
  for (const reason of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']) assert.match(described, new RegExp(`Normal\\s+${reason}\\s`), `${reason} in\n${described}`);
  assert.match(described, /kubelet\s+.*Started container plain/);
  const t = Date.now();
  await up.kubectlOk(['delete', 'pod', 'plain'], v35);
  const took = Date.now() - t;
  // The container stops in 1 s (the nodes' default stop time); a loaded 2-core machine adds kubectl's
  // own start-up, so the bound only separates "stopped when its container did" from the 30 s grace period.
  console.log(`[figure] kubectl delete pod returned after ${took} ms`);
  assert.ok(took >= 900 && took < 10_000, `kubectl delete pod took ${took} ms (stop time 1 s, grace period 30 s)`);
  assert.is((await k(['get', 'pod', 'plain'])).code, 1, 'gone');
  const killing = await up.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=plain,reason=Killing', '-o', 'jsonpath={.items[*].message}'], v35);
  assert.is(killing, 'Stopping container plain');
});

test('scale --replicas=0: the pods are gone in seconds, not the 30 s grace period', async () => {
  await up.kubectlOk(['create', 'deployment', 'fleet', '--image=nginx:1.25', '--replicas=3'], v35);
  await up.kubectlOk(['rollout', 'status', 'deployment/fleet', '--timeout=90s'], v35);
  const t = Date.now();
  await up.kubectlOk(['scale', 'deployment/fleet', '--replicas=0'], v35);
  await eventually(async () => (await up.kubectlOk(['get', 'pods', '-l', 'app=fleet', '-o', 'name'], v35)).trim() === '', 20_000, 'no fleet pods');
  const took = Date.now() - t;
  console.log(`[figure] scale --replicas=0: the pods went in ${took} ms`);
  assert.ok(took < 15_000, `the pods went in ${took} ms (stop time 1 s, grace period 30 s)`);
});

test.run();
