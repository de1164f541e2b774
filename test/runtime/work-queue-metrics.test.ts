// Work-queue metrics: client-go's names with a `name` label, in the registry passed in.
import { Registry } from 'prom-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { WorkQueue } from '../../src/runtime/work-queue.js';

async function value(reg: Registry, metric: string, name: string, suffix = ''): Promise<number | undefined> {
  const m = await reg.getSingleMetric(metric)!.get();
  return m.values.find((v) => v.labels['name'] === name && ((v as { metricName?: string }).metricName ?? metric) === metric + suffix)?.value;
}

test('depth, adds, retries, queue and work duration are recorded per queue name', async () => {
  const reg = new Registry();
  const clock = new SimulatedClock();
  const q = new WorkQueue({ name: 'configmaps', clock, registry: reg });
  q.add('a');
  q.add('a');
  q.add('b');
  assert.is(await value(reg, 'workqueue_depth', 'configmaps'), 2);
  assert.is(await value(reg, 'workqueue_adds_total', 'configmaps'), 2);
  clock.increment(1500);
  q.tryGet();
  clock.increment(250);
  q.done('a');
  q.addRateLimited('a');
  assert.is(await value(reg, 'workqueue_retries_total', 'configmaps'), 1);
  assert.is(await value(reg, 'workqueue_queue_duration_seconds', 'configmaps', '_sum'), 1.5);
  assert.is(await value(reg, 'workqueue_work_duration_seconds', 'configmaps', '_sum'), 0.25);
  assert.is(await value(reg, 'workqueue_depth', 'configmaps'), 1);
});

test('two queues share one registry and are told apart by name', async () => {
  const reg = new Registry();
  const a = new WorkQueue({ name: 'one', clock: new SimulatedClock(), registry: reg });
  const b = new WorkQueue({ name: 'two', clock: new SimulatedClock(), registry: reg });
  a.add('x');
  b.add('x');
  b.add('y');
  assert.is(await value(reg, 'workqueue_adds_total', 'one'), 1);
  assert.is(await value(reg, 'workqueue_adds_total', 'two'), 2);
  const text = await reg.metrics();
  assert.match(text, /workqueue_depth\{name="two"\} 2/);
});

test.run();
