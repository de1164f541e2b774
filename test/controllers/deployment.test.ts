// The deployment controller against the real API server, with the replicaset controller, the
// garbage collector, the scheduler and simulated nodes: a Deployment becomes Available; a rolling
// update never drops below replicas - maxUnavailable available pods (watched throughout); scale to
// 0 and back; back to an older template under a new revision; Recreate; pause; progress deadline.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { deploymentLifecycle } from '../../machines/lifecycles/deployment.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['deployment', 'replicaset', 'garbagecollector'], nodes: 3 });
});

test.after(async () => {
  await cluster.stop();
});

function deployment(name: string, replicas: number, image: string, extra: Partial<NonNullable<Deployment['spec']>> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image }] } },
      ...extra,
    },
  };
}

const getD = (name: string) => cluster.client.get<Deployment>(resources.deployments, 'default', name);
const condition = (d: Deployment, type: string) => d.status?.conditions?.find((c) => c.type === type);
const setsOf = async (name: string) => (await cluster.client.list<ReplicaSet>(resources.replicasets, { namespace: 'default', labelSelector: `app=${name}` })).items;
const revision = (o: { metadata: { annotations?: Record<string, string> } }) => o.metadata.annotations?.['deployment.svc.io/revision'];
const image = (p: { spec?: { containers?: { image?: string }[] } }) => p.spec?.containers?.[0]?.image;

async function rolledOut(name: string, replicas: number, timeoutMs = 20_000): Promise<Deployment> {
  await eventually(async () => {
    const d = await getD(name);
    return (
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.updatedReplicas === replicas &&
      d.status?.availableReplicas === replicas &&
      d.status?.replicas === replicas &&
      condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable'
    );
  }, timeoutMs, `${name}: rolled out to ${replicas}`);
  return getD(name);
}

test('a Deployment of 10 gets a ReplicaSet named by its template hash, 10 running pods, and becomes Available', async () => {
  await cluster.client.create(resources.deployments, 'default', deployment('web', 10, 'app:1'));
  const d = await rolledOut('web', 10);
  assert.is(condition(d, 'Available')?.status, 'True');
  assert.is(condition(d, 'Available')?.reason, 'MinimumReplicasAvailable');
  assert.is(revision(d), '1');
  const [rs] = await setsOf('web');
  assert.match(rs!.metadata.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.is(rs!.metadata.labels?.['pod-template-hash'], rs!.metadata.name!.slice(4));
  assert.is(revision(rs!), '1');
  assert.is(rs!.metadata.ownerReferences?.[0]?.kind, 'Deployment');
});

test('a rolling update never has fewer than replicas - maxUnavailable pods available, and ends on the new template', async () => {
  let minAvailable = Infinity;
  const ready = new Map<string, boolean>();
  const sub = cluster.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' }).subscribe({
    error: () => {},
    next: (ev) => {
      const p = ev.object;
      const ok = ev.type !== 'DELETED' && !p.metadata.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      ready.set(p.metadata.name ?? '', ok);
      if (ready.size >= 10) minAvailable = Math.min(minAvailable, [...ready.values()].filter(Boolean).length);
    },
  });
  try {
    await eventually(async () => [...ready.values()].filter(Boolean).length === 10, 5_000, 'the watcher sees 10 ready pods');
    await cluster.client.patch(resources.deployments, 'default', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'app:2' }] } } } });
    const d = await rolledOut('web', 10, 30_000);
    assert.is(revision(d), '2');
  } finally {
    sub.unsubscribe();
  }
  assert.ok(minAvailable >= 8, `available pods went down to ${minAvailable} (replicas 10, maxUnavailable 25% = 2)`);
  const sets = await setsOf('web');
  assert.is(sets.length, 2);
  const current = sets.find((s) => revision(s) === '2')!;
  assert.is(image(current.spec!.template!), 'app:2');
  assert.is(sets.find((s) => s !== current)!.spec?.replicas, 0);
});

test('scale to 0 and back to 10', async () => {
  await cluster.client.patch(resources.deployments, 'default', 'web', 'merge', { spec: { replicas: 0 } });
  await eventually(async () => (await getD('web')).status?.replicas === 0, 20_000, 'scaled to 0');
  await cluster.client.patch(resources.deployments, 'default', 'web', 'merge', { spec: { replicas: 10 } });
  await rolledOut('web', 10);
});

test('going back to the older template reuses its ReplicaSet as revision 3', async () => {
  await cluster.client.patch(resources.deployments, 'default', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'app:1' }] } } } });
  const d = await rolledOut('web', 10, 30_000);
  assert.is(revision(d), '3');
  const sets = await setsOf('web');
  assert.is(sets.length, 2, 'no third ReplicaSet');
  const back = sets.find((s) => image(s.spec!.template!) === 'app:1')!;
  assert.is(revision(back), '3');
  assert.is(back.metadata.annotations?.['deployment.svc.io/revision-history'], '1');
});

test('Recreate: the old pods are all gone before a new one is created', async () => {
  await cluster.client.create(resources.deployments, 'default', deployment('batch', 3, 'job:1', { strategy: { type: 'Recreate' } }));
  await rolledOut('batch', 3);
  let oldGoneAt = 0;
  let firstNewAt = 0;
  const live = new Map<string, string>();
  const sub = cluster.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=batch' }).subscribe({
    error: () => {},
    next: (ev) => {
      const name = ev.object.metadata.name ?? '';
      if (ev.type === 'DELETED') live.delete(name);
      else live.set(name, image(ev.object) ?? '');
      if (!oldGoneAt && ![...live.values()].includes('job:1') && live.size < 4) oldGoneAt = Date.now();
      if (!firstNewAt && [...live.values()].includes('job:2')) firstNewAt = Date.now();
    },
  });
  try {
    await new Promise((r) => setTimeout(r, 300));
    await cluster.client.patch(resources.deployments, 'default', 'batch', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'job:2' }] } } } });
    await rolledOut('batch', 3, 30_000);
  } finally {
    sub.unsubscribe();
  }
  assert.ok(oldGoneAt > 0 && firstNewAt >= oldGoneAt, `old gone at ${oldGoneAt}, first new pod at ${firstNewAt}`);
});

test('paused: a template change waits; resumed: it rolls out', async () => {
  await cluster.client.patch(resources.deployments, 'default', 'batch', 'merge', { spec: { paused: true } });
  await eventually(async () => condition(await getD('batch'), 'Progressing')?.reason === 'DeploymentPaused', 5_000, 'paused condition');
  await cluster.client.patch(resources.deployments, 'default', 'batch', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'job:3' }] } } } });
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await setsOf('batch')).length, 2, 'no new ReplicaSet while paused');
  await cluster.client.patch(resources.deployments, 'default', 'batch', 'merge', { spec: { paused: false } });
  await rolledOut('batch', 3, 30_000);
  assert.is(revision(await getD('batch')), '3');
});

test('a rollout that cannot progress is marked ProgressDeadlineExceeded after progressDeadlineSeconds', async () => {
  const stuck = deployment('stuck', 2, 'x:1', { progressDeadlineSeconds: 1 });
  stuck.spec!.template!.spec!.nodeSelector = { 'no-such-label': 'anywhere' };
  await cluster.client.create(resources.deployments, 'default', stuck);
  await eventually(async () => condition(await getD('stuck'), 'Progressing')?.reason === 'ProgressDeadlineExceeded', 10_000, 'deadline exceeded');
  const d = await getD('stuck');
  assert.is(condition(d, 'Progressing')?.status, 'False');
  assert.is(condition(d, 'Available')?.status, 'False');
});

test('foreground deletion of a Deployment removes its ReplicaSets and pods first', async () => {
  await cluster.client.delete(resources.deployments, 'default', 'web', { propagationPolicy: 'Foreground' });
  await eventually(async () => (await getD('web').then(() => false, () => true)), 30_000, 'deployment gone');
  assert.equal(await setsOf('web'), []);
  const pods = (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
  assert.equal(pods, []);
});

test('every state of the Deployment lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, deploymentLifecycle);
});

test.run();
