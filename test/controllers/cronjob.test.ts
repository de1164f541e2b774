// The cronjob controller against the real API server, with the job controller, the garbage
// collector, the scheduler and simulated nodes: Jobs at each scheduled time (named by it),
// history limits, Forbid, Replace, suspend, an unparseable schedule, times missed for good under
// startingDeadlineSeconds and too many missed; and every state of the CronJob lifecycle chart entered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CronJob, Event, Job } from '../../src/api/generated/kinds.js';
import { rfc3339 } from '../../src/api/time.js';
import { resources } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../helpers/client.js';
import { assertLifecycleCovered } from '../helpers/lifecycle-coverage.js';
import { cronJobLifecycle } from '../../machines/lifecycles/cronjob.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['cronjob', 'job', 'garbagecollector'], nodes: 2 });
});

test.after(async () => {
  await cluster.stop();
});

function cronJob(name: string, schedule: string, runSeconds: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule,
      ...spec,
      jobTemplate: {
        metadata: { labels: { cron: name } },
        spec: { template: { metadata: { annotations: { 'sim.svc.io/run-seconds': runSeconds } }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'tick:1' }] } } },
      },
    },
  };
}

const jobsOf = async (name: string) => (await cluster.client.list<Job>(resources.jobs, { namespace: 'default', labelSelector: `cron=${name}` })).items.filter((j) => !j.metadata.deletionTimestamp);
/** Where the cronjob controller's lifecycle has the CronJob now (what /debug/machines and `svc explain` show). */
const lifecycleOf = (name: string) => cluster.controllers.controllers.find((c) => c.name === 'cronjob')?.activity.lifecycle?.object(`default/${name}`);
/** Sets status.lastScheduleTime as if the last run was `agoMs` ago (a controller that was down, a CronJob suspended for long). */
async function lastRunAgo(name: string, agoMs: number): Promise<void> {
  await eventually(async () => {
    const cj = await cluster.client.get<CronJob>(resources.cronjobs, 'default', name);
    return cluster.client.updateStatus(resources.cronjobs, 'default', { ...cj, status: { ...cj.status, lastScheduleTime: rfc3339(Date.now() - agoMs) } }).then(() => true, () => false);
  }, 10_000, `${name}: status written`);
}
const complete = (j: Job) => j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');

test('a CronJob every second creates Jobs named by their time, keeps 2 finished ones, and records its status', async () => {
  await cluster.client.create(resources.cronjobs, 'default', cronJob('tick', '@every 1s', '0.1', { successfulJobsHistoryLimit: 2 }));
  const names = new Set<string>();
  await eventually(async () => {
    for (const j of await jobsOf('tick')) names.add(j.metadata.name ?? '');
    return names.size >= 4;
  }, 20_000, '4 jobs seen');
  for (const n of names) assert.match(n, /^tick-\d{10}$/, 'seconds since the epoch for a sub-minute @every (minutes otherwise)');
  await eventually(async () => (await jobsOf('tick')).filter(complete).length <= 2 && (await jobsOf('tick')).filter(complete).length > 0, 10_000, 'history pruned to 2');
  const cj = await cluster.client.get<CronJob>(resources.cronjobs, 'default', 'tick');
  assert.ok(cj.status?.lastScheduleTime);
  assert.ok(cj.status?.['lastSuccessfulTime']);
  const j = (await jobsOf('tick'))[0]!;
  assert.is(j.metadata.ownerReferences?.[0]?.kind, 'CronJob');
  assert.ok(j.metadata.annotations?.['batch.svc.io/cronjob-scheduled-timestamp']);
  await cluster.client.patch(resources.cronjobs, 'default', 'tick', 'merge', { spec: { suspend: true } });
});

test('Forbid: no new Job while one still runs; suspend: none at all', async () => {
  await cluster.client.create(resources.cronjobs, 'default', cronJob('lonely', '@every 1s', '30', { concurrencyPolicy: 'Forbid' }));
  await eventually(async () => (await jobsOf('lonely')).length === 1, 10_000, 'the first job');
  await new Promise((r) => setTimeout(r, 2_500));
  assert.is((await jobsOf('lonely')).length, 1, 'Forbid kept it at one');
  const cj = await cluster.client.get<CronJob>(resources.cronjobs, 'default', 'lonely');
  assert.is(cj.status?.active?.length, 1);

  await cluster.client.patch(resources.cronjobs, 'default', 'lonely', 'merge', { spec: { suspend: true, concurrencyPolicy: 'Allow' } });
  await new Promise((r) => setTimeout(r, 2_500));
  assert.is((await jobsOf('lonely')).length, 1, 'suspended: nothing new');
});

test('Replace: the running Job is deleted and a new one starts', async () => {
  await cluster.client.create(resources.cronjobs, 'default', cronJob('swap', '@every 2s', '30', { concurrencyPolicy: 'Replace' }));
  let first = '';
  await eventually(async () => {
    first = (await jobsOf('swap'))[0]?.metadata.name ?? '';
    return first !== '';
  }, 10_000, 'the first job');
  await eventually(async () => {
    const now = await jobsOf('swap');
    return now.length === 1 && now[0]!.metadata.name !== first;
  }, 10_000, 'replaced');
  await cluster.client.patch(resources.cronjobs, 'default', 'swap', 'merge', { spec: { suspend: true } });
});

test('an unparseable schedule (a value out of range) runs nothing and says why', async () => {
  await cluster.client.create(resources.cronjobs, 'default', cronJob('bad', '99 * * * *', '0.1'));
  await eventually(async () => lifecycleOf('bad')?.state === 'invalidSchedule', 10_000, 'bad: invalidSchedule');
  assert.match(lifecycleOf('bad')?.holds ?? '', /"99" is outside 0-59/);
  await eventually(async () => (await cluster.client.list<Event>(resources.events, { namespace: 'default' })).items.some((e) => e.reason === 'InvalidSchedule' && e.involvedObject?.name === 'bad'), 10_000, 'InvalidSchedule event');
  assert.equal(await jobsOf('bad'), []);
});

test('startingDeadlineSeconds: a time missed by more than it is not run; too many missed is warned about and the latest runs', async () => {
  // Daily, last run two days ago, 10 s to start: yesterday's midnight is missed for good.
  await cluster.client.create(resources.cronjobs, 'default', cronJob('late', '0 0 * * *', '0.1', { startingDeadlineSeconds: 10 }));
  await eventually(async () => lifecycleOf('late')?.state === 'waiting', 10_000, 'late: waiting');
  await lastRunAgo('late', 2 * 86_400_000);
  await eventually(async () => lifecycleOf('late')?.state === 'missed', 10_000, 'late: missed');
  assert.match(lifecycleOf('late')?.holds ?? '', /^missed: not started within startingDeadlineSeconds 10 of its time; next at \S+ \(in \d+ s\)$/);
  assert.equal(await jobsOf('late'), []);

  // Every second, last run 5 minutes ago, no deadline: 300 missed; the most recent runs.
  await cluster.client.create(resources.cronjobs, 'default', cronJob('behind', '@every 1s', '0.1', { suspend: true }));
  await eventually(async () => lifecycleOf('behind')?.state === 'suspended', 10_000, 'behind: suspended');
  await lastRunAgo('behind', 300_000);
  await cluster.client.patch(resources.cronjobs, 'default', 'behind', 'merge', { spec: { suspend: false } });
  await eventually(async () => (await cluster.client.list<Event>(resources.events, { namespace: 'default' })).items.some((e) => e.reason === 'TooManyMissedTimes' && e.involvedObject?.name === 'behind'), 10_000, 'TooManyMissedTimes event');
  await eventually(async () => (await jobsOf('behind')).length > 0, 10_000, 'behind: a job');
  await cluster.client.patch(resources.cronjobs, 'default', 'behind', 'merge', { spec: { suspend: true } });
});

test('every state of the CronJob lifecycle chart was entered by the tests above, and no other', () => {
  assertLifecycleCovered(cluster.controllers.controllers, cronJobLifecycle);
});

test.run();
