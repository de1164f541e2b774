// The workload controllers through `svc up` (a real process) and a real kubectl: a Deployment of 10
// becomes Available; an image change rolls out without ever dropping below replicas -
// maxUnavailable available pods (a watcher counts them throughout); scale to 0 and back; a Job of 5
// completions completes; a CronJob on a short schedule creates Jobs and prunes its history;
// foreground deletion of a Deployment removes its ReplicaSets and pods first; deleting the
// namespace removes everything in it and then the namespace.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import type { Subscription } from 'rxjs';
import type { Job, Pod } from '../../src/api/generated/kinds.js';
import { resources, type Connection, type ResourceRef } from '../../src/client/index.js';
import { eventually } from '../helpers/client.js';
import { kubectl } from '../helpers/kubectl.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

let up: SvcUp;
let kubeconfig = '';
let api: Connection;

test.before(async () => {
  up = await startSvcUp('svc-up-workloads', ['--nodes=3', '--image-pull-delay=50ms', '--container-start-delay=20ms']);
  ({ kubeconfig, api } = up);
});

test.after(async () => {
  await up?.stop();
});

const k = (...args: string[]): Promise<string> => up.kubectlOk(args);
const manifest = (name: string, text: string): string => up.manifest(name, text);

test('a Deployment of 10: 10 pods Running, Available; a rolling update never below 8 available; rollout history and undo; scale to 0 and back', async () => {
  await k('create', 'namespace', 'shop');
  await k('-n', 'shop', 'create', 'deployment', 'web', '--image=nginx:1', '--replicas=10');
  await k('-n', 'shop', 'rollout', 'status', 'deployment/web', '--timeout=60s');
  await k('-n', 'shop', 'wait', '--for=condition=Available', 'deployment/web', '--timeout=30s');
  const running = (await api.client.list<Pod>(resources.pods, { namespace: 'shop', labelSelector: 'app=web' })).items.filter((p) => p.status?.phase === 'Running');
  assert.is(running.length, 10);

  // The watcher: pods Ready and not being deleted, at every event.
  const ready = new Map<string, boolean>();
  let min = Infinity;
  const sub: Subscription = api.client.watch<Pod>(resources.pods, { namespace: 'shop', labelSelector: 'app=web' }).subscribe({
    error: () => {},
    next: (ev) => {
      const p = ev.object;
      ready.set(p.metadata.name ?? '', ev.type !== 'DELETED' && !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
      if (ready.size >= 10) min = Math.min(min, [...ready.values()].filter(Boolean).length);
    },
  });
  try {
    await eventually(async () => [...ready.values()].filter(Boolean).length === 10, 10_000, 'the watcher sees 10 ready');
    await k('-n', 'shop', 'patch', 'deployment', 'web', '--type=merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}}');
    await k('-n', 'shop', 'rollout', 'status', 'deployment/web', '--timeout=90s');
  } finally {
    sub.unsubscribe();
  }
  assert.ok(min >= 8, `available pods went down to ${min} during the rollout`);
  const images = (await api.client.list<Pod>(resources.pods, { namespace: 'shop', labelSelector: 'app=web' })).items.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.spec?.containers?.[0]?.image);
  assert.equal(new Set(images), new Set(['nginx:2']));

  // kubectl's own rollout history and undo (they read the revision annotations the controller writes).
  const history = await k('-n', 'shop', 'rollout', 'history', 'deployment/web');
  assert.match(history, /^1\s/m);
  assert.match(history, /^2\s/m);
  await k('-n', 'shop', 'rollout', 'undo', 'deployment/web');
  await k('-n', 'shop', 'rollout', 'status', 'deployment/web', '--timeout=90s');
  assert.is(await k('-n', 'shop', 'get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1');
  assert.is(await k('-n', 'shop', 'get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.svc\\.io/revision}'), '3');

  await k('-n', 'shop', 'scale', 'deployment/web', '--replicas=0');
  await eventually(async () => (await k('-n', 'shop', 'get', 'deployment', 'web', '-o', 'jsonpath={.status.replicas}')).trim() === '0', 30_000, 'scaled to 0');
  await k('-n', 'shop', 'scale', 'deployment/web', '--replicas=10');
  await k('-n', 'shop', 'rollout', 'status', 'deployment/web', '--timeout=60s');
});

test('a Job of 5 completions reaches Complete', async () => {
  const file = manifest('job.yaml', `apiVersion: batch/v1
kind: Job
metadata:
  name: five
spec:
  completions: 5
  parallelism: 2
  template:
    metadata:
      annotations:
        sim.svc.io/run-seconds: "0.5"
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
`);
  await k('-n', 'shop', 'create', '-f', file);
  await k('-n', 'shop', 'wait', '--for=condition=Complete', 'job/five', '--timeout=60s');
  assert.is((await k('-n', 'shop', 'get', 'job', 'five', '-o', 'jsonpath={.status.succeeded}')).trim(), '5');
});

test('a CronJob on a short schedule creates Jobs and keeps its history limit', async () => {
  const file = manifest('cronjob.yaml', `apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: tick
spec:
  schedule: "@every 1s"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    metadata:
      labels:
        cron: tick
    spec:
      template:
        metadata:
          annotations:
            sim.svc.io/run-seconds: "0.1"
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 0
          containers:
          - name: tick
            image: busybox
`);
  await k('-n', 'shop', 'create', '-f', file);
  const seen = new Set<string>();
  await eventually(async () => {
    for (const j of (await api.client.list<Job>(resources.jobs, { namespace: 'shop', labelSelector: 'cron=tick' })).items) seen.add(j.metadata.name ?? '');
    return seen.size >= 4;
  }, 30_000, '4 jobs created');
  await eventually(async () => {
    const done = (await api.client.list<Job>(resources.jobs, { namespace: 'shop', labelSelector: 'cron=tick' })).items.filter((j) => !j.metadata.deletionTimestamp && j.status?.conditions?.some((c) => c.type === 'Complete'));
    return done.length > 0 && done.length <= 2;
  }, 20_000, 'history kept at 2');
  await k('-n', 'shop', 'patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":true}}');
});

test('foreground deletion of a Deployment removes its ReplicaSets and pods first', async () => {
  await k('-n', 'shop', 'delete', 'deployment', 'web', '--cascade=foreground', '--timeout=90s');
  assert.equal((await api.client.list(resources.replicasets, { namespace: 'shop', labelSelector: 'app=web' })).items, []);
  assert.equal((await api.client.list(resources.pods, { namespace: 'shop', labelSelector: 'app=web' })).items, []);
});

test('deleting the namespace removes everything in it, then the namespace', async () => {
  await k('delete', 'namespace', 'shop', '--timeout=120s');
  const left = await kubectl(kubeconfig, ['get', 'namespace', 'shop']);
  assert.is(left.code, 1);
  assert.match(left.stderr, 'not found');
  for (const ref of [resources.pods, resources.jobs, resources.cronjobs, resources.deployments, resources.replicasets] as ResourceRef[]) {
    assert.equal((await api.client.list(ref, { namespace: 'shop' })).items, [], ref.resource);
  }
});

test.run();
