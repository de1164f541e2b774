/**
 * The established admission metrics, on the server's registry (/metrics):
 *
 * - apiserver_admission_step_admission_duration_seconds{type,operation,rejected}: each phase
 *   (`admit` = mutating, both runs of a reinvoked one together; `validate`);
 * - apiserver_admission_controller_admission_duration_seconds{name,type,operation,rejected}: each
 *   built-in plugin's mutate or validate (the webhook plugins included, as established);
 * - apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected}: each
 *   webhook call (type `admit` for mutating hooks, `validating` for validating ones, as established);
 * - apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code}: a
 *   webhook that refused (`no_error`, its code, over 600 counted as 600), a failed call under
 *   failurePolicy Fail (`calling_webhook_error`, 0), anything else (`apiserver_internal_error`, 0).
 *
 * Label children are cached: the chain observes every plugin of every write.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AdmissionAttributes, AdmissionObserver } from './chain.js';

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5];

export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

type Observe = { observe(v: number): void };

export class AdmissionMetrics implements AdmissionObserver {
  private readonly stepLatency: Histogram<string>;
  private readonly controllerLatency: Histogram<string>;
  private readonly webhookLatency: Histogram<string>;
  private readonly rejections: Counter<string>;
  private readonly children = new Map<string, Observe>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.stepLatency = new Histogram({
      name: 'apiserver_admission_step_admission_duration_seconds',
      help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      labelNames: ['type', 'operation', 'rejected'],
      buckets: BUCKETS,
      registers,
    });
    this.controllerLatency = new Histogram({
      name: 'apiserver_admission_controller_admission_duration_seconds',
      help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: BUCKETS,
      registers,
    });
    this.webhookLatency = new Histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: BUCKETS,
      registers,
    });
    this.rejections = new Counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      registers,
    });
  }

  private child(h: Histogram<string>, tag: string, labels: Record<string, string>): Observe {
    const key = `${tag}|${Object.values(labels).join('|')}`;
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = h.labels(labels)));
    return c;
  }

  step(type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.child(this.stepLatency, 's', { type, operation: a.operation, rejected: String(rejected) }).observe(seconds);
  }

  controller(name: string, type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.child(this.controllerLatency, 'c', { name, type, operation: a.operation, rejected: String(rejected) }).observe(seconds);
  }

  webhook(name: string, type: 'admit' | 'validating', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.child(this.webhookLatency, 'w', { name, type, operation: a.operation, rejected: String(rejected) }).observe(seconds);
  }

  webhookRejection(name: string, type: 'admit' | 'validating', a: AdmissionAttributes, errorType: WebhookRejectionErrorType, code: number): void {
    this.rejections.inc({ name, type, operation: a.operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) });
  }
}
