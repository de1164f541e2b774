/**
 * The established apiserver_flowcontrol_* metrics, on the server's registry (/metrics): requests
 * dispatched and rejected (by reason), waiting and executing now, each level's concurrency limit,
 * time waited in queue and time executing, queue length after enqueue.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const FS_PL = ['flow_schema', 'priority_level'];

export class FlowControlMetrics {
  readonly dispatched: Counter<string>;
  readonly rejected: Counter<string>;
  readonly inQueue: Gauge<string>;
  readonly executing: Gauge<string>;
  readonly concurrencyLimit: Gauge<string>;
  readonly waitDuration: Histogram<string>;
  readonly executionSeconds: Histogram<string>;
  readonly queueLengthAfterEnqueue: Histogram<string>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.dispatched = new Counter({ name: 'apiserver_flowcontrol_dispatched_requests_total', help: 'Number of requests released by API Priority and Fairness system for service', labelNames: FS_PL, registers });
    this.rejected = new Counter({ name: 'apiserver_flowcontrol_rejected_requests_total', help: 'Number of requests rejected by API Priority and Fairness system', labelNames: [...FS_PL, 'reason'], registers });
    this.inQueue = new Gauge({ name: 'apiserver_flowcontrol_current_inqueue_requests', help: 'Number of requests currently pending in queues of the API Priority and Fairness system', labelNames: FS_PL, registers });
    this.executing = new Gauge({ name: 'apiserver_flowcontrol_current_executing_requests', help: 'Number of requests currently executing in the API Priority and Fairness system', labelNames: FS_PL, registers });
    this.concurrencyLimit = new Gauge({ name: 'apiserver_flowcontrol_request_concurrency_limit', help: 'Shared concurrency limit in the API Priority and Fairness system', labelNames: ['priority_level'], registers });
    this.waitDuration = new Histogram({
      name: 'apiserver_flowcontrol_request_wait_duration_seconds',
      help: 'Length of time a request spent waiting in its queue',
      labelNames: [...FS_PL, 'execute'],
      buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
      registers,
    });
    this.executionSeconds = new Histogram({
      name: 'apiserver_flowcontrol_request_execution_seconds',
      help: 'Duration of stage execution in the API Priority and Fairness system',
      labelNames: FS_PL,
      buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.queueLengthAfterEnqueue = new Histogram({
      name: 'apiserver_flowcontrol_request_queue_length_after_enqueue',
      help: 'Length of queue in the API Priority and Fairness system, as seen by each request after it is enqueued',
      labelNames: FS_PL,
      buckets: [0, 10, 25, 50, 100, 250, 500, 1000],
      registers,
    });
  }
}
