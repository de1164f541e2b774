// The job controller against the real API server with the scheduler and simulated nodes (pods end
// by their sim.svc.io/run-seconds and exit-code annotations): completions with a parallelism cap,
// the work-queue form, backoffLimit and activeDeadlineSeconds, the back-off before a failed pod is
// replaced, a lowered parallelism; and every state of the Job lifecycle chart entered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Job, Pod } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { jobLifecycle } from '../../machines/lifecycles/job.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['job'], nodes: 2 });
});

test.after(async () => {
  await cluster.stop();
});

function job(name: string, spec: Partial<NonNullable<Job['spec']>>, run: { seconds?: string; exitCode?: string } = {}): Job {
  const annotations: Record<string, string> = {};
  if (run.seconds !== undefined) annotations['sim.svc.io/run-seconds'] = run.seconds;
  if (run.exitCode !== undefined) annotations['sim.svc.io/exit-code'] = run.exitCode;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: { ...spec, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'work:1' }] } } },
  };
}

const getJob = (name: string) => cluster.client.get<Job>(resources.jobs, 'default', name);
const condition = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type);
/** Where the job controller's lifecycle has the Job now (what /debug/machines and `svc explain` show). */
const lifecycleOf = (name: string) => cluster.controllers.controllers.find((c) => c.name === 'job')?.activity.lifecycle?.object(`default/${name}`);
const podsOf = async (name: string) => (await cluster.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: `job-name=${name}` })).items;

test('5 completions, 2 at a time: Complete with 5 succeeded, never more than 2 running', async () => {
  let maxActive = 0;
  const live = new Map<string, boolean>();
  const sub = cluster.client.watch<Pod>(resources.pods, { namespace: 'default', labelSelector: 'job-name=five' }).subscribe({
    error: () => {},
    next: (ev) => {
      const p = ev.object;
      live.set(p.metadata.name ?? '', ev.type !== 'DELETED' && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp);
      maxActive = Math.max(maxActive, [...live.values()].filter(Boolean).length);
    },
  });
  try {
    await cluster.client.create(resources.jobs, 'default', job('five', { completions: 5, parallelism: 2 }, { seconds: '0.3' }));
    await eventually(async () => condition(await getJob('five'), 'Complete')?.status === 'True', 20_000, 'five: Complete');
  } finally {
    sub.unsubscribe();
  }
  const j = await getJob('five');
  assert.equal([j.status?.succeeded, j.status?.failed, j.status?.active], [5, 0, 0]);
  assert.ok(j.status?.startTime && j.status.completionTime);
  assert.is((await podsOf('five')).filter((p) => p.status?.phase === 'Succeeded').length, 5);
  assert.ok(maxActive <= 2, `up to ${maxActive} pods ran at once`);
});

test('without completions (a work queue): done once a pod succeeded and none still runs', async () => {
  await cluster.client.create(resources.jobs, 'default', job('queue', { parallelism: 3, completions: undefined }, { seconds: '0.2' }));
  await eventually(async () => condition(await getJob('queue'), 'Complete')?.status === 'True', 20_000, 'queue: Complete');
  assert.is((await getJob('queue')).status?.succeeded, 3);
});

test('backoffLimit 0: the first failed pod fails the Job (BackoffLimitExceeded)', async () => {
  await cluster.client.create(resources.jobs, 'default', job('crash', { backoffLimit: 0 }, { seconds: '0.2', exitCode: '3' }));
  await eventually(async () => condition(await getJob('crash'), 'Failed')?.status === 'True', 20_000, 'crash: Failed');
  const j = await getJob('crash');
  assert.is(condition(j, 'Failed')?.reason, 'BackoffLimitExceeded');
  assert.is(j.status?.failed, 1);
  assert.is((await podsOf('crash')).length, 1, 'no replacement after the limit');
});

test('activeDeadlineSeconds: a Job running too long fails (DeadlineExceeded) and its pods are deleted', async () => {
  await cluster.client.create(resources.jobs, 'default', job('slow', { activeDeadlineSeconds: 1, parallelism: 2, completions: 2 }));
  await eventually(async () => condition(await getJob('slow'), 'Failed')?.reason === 'DeadlineExceeded', 10_000, 'slow: DeadlineExceeded');
  await eventually(async () => (await podsOf('slow')).length === 0, 10_000, 'its pods deleted');
  assert.is((await getJob('slow')).status?.active, 0);
});

test('a failed pod is replaced only after the back-off (10 s for the first failure)', async () => {
  await cluster.client.create(resources.jobs, 'default', job('flaky', { backoffLimit: 3 }, { seconds: '0.2', exitCode: '1' }));
  await eventually(async () => lifecycleOf('flaky')?.state === 'active.backingOff', 15_000, 'flaky: backing off');
  assert.match(lifecycleOf('flaky')?.holds ?? '', /^1 failed of backoffLimit 3: replacing in \d+ s; 0 of 1 running$/);
  await new Promise((r) => setTimeout(r, 1_000));
  const pods = await podsOf('flaky');
  assert.equal(pods.map((p) => p.status?.phase), ['Failed'], 'no replacement during the back-off');
  assert.is((await getJob('flaky')).status?.failed, 1);
  await cluster.client.delete(resources.jobs, 'default', 'flaky', { propagationPolicy: 'Background' });
});

test('parallelism lowered: the surplus pods are deleted', async () => {
  await cluster.client.create(resources.jobs, 'default', job('wide', { parallelism: 3, completions: 3 }, { seconds: '60' }));
  await eventually(async () => (await getJob('wide')).status?.active === 3, 15_000, 'wide: 3 active');
  await cluster.client.patch(resources.jobs, 'default', 'wide', 'merge', { spec: { parallelism: 1 } });
  await eventually(async () => (await getJob('wide')).status?.active === 1, 15_000, 'wide: 1 active');
  await eventually(async () => lifecycleOf('wide')?.state === 'active.running', 10_000, 'wide: running');
  assert.ok(lifecycleOf('wide')?.transitions.some((t) => t.to === 'active.removingSurplus'), 'went through removingSurplus');
  assert.is((await podsOf('wide')).filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded').length, 1);
  await cluster.client.delete(resources.jobs, 'default', 'wide', { propagationPolicy: 'Background' });
});

test('every state of the Job lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, jobLifecycle);
});

test.run();
