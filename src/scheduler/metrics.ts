/**
 * The scheduler's metrics on /metrics (prom-client), named as the established scheduler's:
 * attempts by result, end-to-end scheduling latency (queue entry to binding stored), the
 * algorithm's latency, pending pods per queue, preemption attempts and victims.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  attempts: Counter<'result' | 'profile'>;
  e2eLatency: Histogram<'result' | 'profile'>;
  algorithmLatency: Histogram;
  bindingLatency: Histogram;
  pendingPods: Gauge<'queue'>;
  /** Where `scheduler_pending_pods` reads the queue lengths at each scrape. */
  readQueueLengthsFrom(source: () => { active: number; backoff: number; unschedulable: number }): void;
  preemptionAttempts: Counter;
  preemptionVictims: Histogram;
}

/** Buckets from 1 ms to ~16 s, doubling (latency of one pod). */
const LATENCY_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export function schedulerMetrics(registry: Registry): SchedulerMetrics {
  let queueLengths: (() => { active: number; backoff: number; unschedulable: number }) | undefined;
  return {
    attempts: new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. "unschedulable" means a pod could not be scheduled, while "error" means an internal scheduler problem.',
      labelNames: ['result', 'profile'],
      registers: [registry],
    }),
    e2eLatency: new Histogram({
      name: 'scheduler_e2e_scheduling_duration_seconds',
      help: 'E2e scheduling latency in seconds (from the pod entering the queue to its binding being stored), by the result of the last attempt.',
      labelNames: ['result', 'profile'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    algorithmLatency: new Histogram({
      name: 'scheduler_scheduling_algorithm_duration_seconds',
      help: 'Scheduling algorithm latency in seconds (filter and score of one pod).',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    bindingLatency: new Histogram({
      name: 'scheduler_binding_duration_seconds',
      help: 'Binding latency in seconds (pre-bind and bind of one pod).',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    pendingPods: new Gauge({
      name: 'scheduler_pending_pods',
      help: 'Number of pending pods, by the queue type. "active" means the active queue; "backoff" the back-off queue; "unschedulable" the unschedulable pods.',
      labelNames: ['queue'],
      registers: [registry],
      collect() {
        const l = queueLengths?.();
        if (!l) return;
        this.set({ queue: 'active' }, l.active);
        this.set({ queue: 'backoff' }, l.backoff);
        this.set({ queue: 'unschedulable' }, l.unschedulable);
      },
    }),
    readQueueLengthsFrom: (source) => {
      queueLengths = source;
    },
    preemptionAttempts: new Counter({ name: 'scheduler_preemption_attempts_total', help: 'Total preemption attempts in the cluster till now.', registers: [registry] }),
    preemptionVictims: new Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of selected preemption victims.',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
  };
}
