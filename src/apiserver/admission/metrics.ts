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
 * The histograms find their series by a plain key (KeyedHistogram): the chain observes every plugin
 * of every write.
 */
import { Counter, type Metric, type Registry } from 'prom-client';
import type { AdmissionAttributes, AdmissionObserver } from './chain.js';

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5];

export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

interface Series {
  labels: Record<string, string>;
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram observed tens of times per write: prom-client's checks and hashes its labels at
 * every observation (microseconds each), so series are found here by a key the caller builds, and
 * the registry reads them in the exposition format (prom-client's custom-metric `get()`).
 */
class KeyedHistogram {
  private readonly series = new Map<string, Series>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: labels(), counts: this.bounds.map(() => 0), sum: 0, count: 0 }));
    s.sum += value;
    s.count += 1;
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= this.bounds[i]!) {
        s.counts[i]! += 1;
        break;
      }
    }
  }

  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: { labels: Record<string, string | number>; value: number; metricName: string }[] } {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((b, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { ...s.labels, le: b }, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  reset(): void {
    this.series.clear();
  }
}

export class AdmissionMetrics implements AdmissionObserver {
  private readonly stepLatency: KeyedHistogram;
  private readonly controllerLatency: KeyedHistogram;
  private readonly webhookLatency: KeyedHistogram;
  private readonly rejections: Counter<string>;

  constructor(registry: Registry) {
    this.stepLatency = new KeyedHistogram(
      registry,
      'apiserver_admission_step_admission_duration_seconds',
      'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      BUCKETS,
    );
    this.controllerLatency = new KeyedHistogram(
      registry,
      'apiserver_admission_controller_admission_duration_seconds',
      'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      BUCKETS,
    );
    this.webhookLatency = new KeyedHistogram(
      registry,
      'apiserver_admission_webhook_admission_duration_seconds',
      'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      BUCKETS,
    );
    this.rejections = new Counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      registers: [registry],
    });
  }

  step(type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.stepLatency.observe(`${type}|${a.operation}|${rejected}`, () => ({ type, operation: a.operation, rejected: String(rejected) }), seconds);
  }

  controller(name: string, type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.controllerLatency.observe(`${name}|${type}|${a.operation}|${rejected}`, () => ({ name, type, operation: a.operation, rejected: String(rejected) }), seconds);
  }

  webhook(name: string, type: 'admit' | 'validating', a: AdmissionAttributes, seconds: number, rejected: boolean): void {
    this.webhookLatency.observe(`${name}|${type}|${a.operation}|${rejected}`, () => ({ name, type, operation: a.operation, rejected: String(rejected) }), seconds);
  }

  webhookRejection(name: string, type: 'admit' | 'validating', a: AdmissionAttributes, errorType: WebhookRejectionErrorType, code: number): void {
    this.rejections.inc({ name, type, operation: a.operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) });
  }
}
