// Simulated probes as kubectl 1.35 sees them against `svc up` (real process, HTTPS): a pod whose
// readiness probe always fails (`sim.svc.io/readiness-fails`) is Running 0/1, `describe pod`
// lists the `Unhealthy` Warning with its count; a pod whose liveness probe starts failing
// (`sim.svc.io/liveness-fails-after-seconds`) is killed and restarted (RESTARTS 1, Killing Event).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../helpers/client.js';
import { kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { startSvcUp, type SvcUp } from '../helpers/svc-up.js';

let up: SvcUp;
const v35 = { bin: KUBECTL_V35 };

test.before(async () => {
  up = await startSvcUp('probes', ['--nodes=1', '--image-pull-delay=10ms', '--container-start-delay=10ms', '--crash-loop-back-off=1s']);
});

test.after(async () => {
  await up?.stop();
});

const k = (args: string[]) => kubectl(up.kubeconfig, args, 60_000, v35);

test('readiness probe failing: get pod shows 0/1 Running, describe pod the Unhealthy events; liveness failing: Killing and a restart', async () => {
  const manifest = up.manifest('probes.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: unready
  annotations: { sim.svc.io/readiness-fails: "true" }
spec:
  containers:
    - name: web
      image: nginx:1.25
      readinessProbe: { periodSeconds: 1, httpGet: { path: /healthz, port: 80 } }
---
apiVersion: v1
kind: Pod
metadata:
  name: dying
  annotations: { sim.svc.io/liveness-fails-after-seconds: "1" }
spec:
  containers:
    - name: app
      image: busybox:1.36
      livenessProbe: { periodSeconds: 1, failureThreshold: 2, exec: { command: [cat, /tmp/healthy] } }
`);
  await up.kubectlOk(['apply', '-f', manifest], v35);
  await eventually(async () => /unready\s+0\/1\s+Running\s+0/.test((await k(['get', 'pod', 'unready', '--no-headers'])).stdout), 30_000, 'unready 0/1 Running');
  let described = '';
  await eventually(async () => /Warning\s+Unhealthy\s+\S+ \(x\d+ over \S+\)\s+kubelet\s+spec\.containers\{web\}: Readiness probe failed: HTTP probe failed with statuscode: 503/.test((described = (await k(['describe', 'pod', 'unready'])).stdout)), 30_000, 'the counted Unhealthy event');
  assert.match(described, /Ready:\s+False/);
  assert.match(described, /Readiness:\s+http-get http:\/\/:80\/healthz/);
  assert.match((await up.kubectlOk(['get', 'pod', 'unready', '--no-headers'], v35)), /0\/1\s+Running/, 'still not ready');

  // It is killed 2 s into each run and restarted after a back-off: RESTARTS counts up.
  await eventually(async () => /^dying\s+[01]\/1\s+\S+\s+[1-9]\d*\s/.test((await k(['get', 'pod', 'dying', '--no-headers'])).stdout), 30_000, 'dying restarted');
  const dying = await up.kubectlOk(['describe', 'pod', 'dying'], v35);
  assert.match(dying, /Last State:\s+Terminated\s+Reason:\s+Error\s+Exit Code:\s+137/);
  assert.match(dying, /Warning\s+Unhealthy\s+.*kubelet\s+spec\.containers\{app\}: Liveness probe failed:/);
  assert.match(dying, /Normal\s+Killing\s+.*kubelet\s+spec\.containers\{app\}: Container app failed liveness probe, will be restarted/);
});

test.run();
