/**
 * Work-queue metrics with client-go's names, one set per prom-client registry, every series
 * labelled with the queue's (controller's) `name`:
 *
 * - `workqueue_depth` (gauge): keys waiting to be handed to a worker.
 * - `workqueue_adds_total` (counter): keys added (deduplicated adds are not counted).
 * - `workqueue_retries_total` (counter): rate-limited re-adds (back-off retries).
 * - `workqueue_queue_duration_seconds` (histogram): time a key waited in the queue before a worker
 *   took it (the reconcile latency a change sees).
 * - `workqueue_work_duration_seconds` (histogram): time from a worker taking a key to `done`
 *   (how long a reconcile takes).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** client-go's buckets: 10^-8 .. 10^1 seconds. */
const BUCKETS = Array.from({ length: 10 }, (_, i) => 10 ** (i - 8));

export interface WorkQueueMetrics {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  retries: Counter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
}

const byRegistry = new WeakMap<Registry, WorkQueueMetrics>();

/** The work-queue metric set of `registry`, registered on first use (several controllers share it). */
export function workQueueMetrics(registry: Registry): WorkQueueMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    const registers = [registry];
    m = {
      depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers }),
      adds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers }),
      retries: new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers }),
      queueDuration: new Histogram({
        name: 'workqueue_queue_duration_seconds',
        help: 'How long in seconds an item stays in workqueue before being requested',
        labelNames: ['name'],
        buckets: BUCKETS,
        registers,
      }),
      workDuration: new Histogram({
        name: 'workqueue_work_duration_seconds',
        help: 'How long in seconds processing an item from workqueue takes',
        labelNames: ['name'],
        buckets: BUCKETS,
        registers,
      }),
    };
    byRegistry.set(registry, m);
  }
  return m;
}
