/**
 * The established audit metrics, on the server's registry (/metrics):
 *
 * - apiserver_audit_event_total: events handed to the backends (each stage of each audited
 *   request that the policy does not omit);
 * - apiserver_audit_error_total{plugin}: events that could not be audited, by the backend that
 *   failed: `log` or `webhook` (the sink could not store them), `buffered` (a full batch buffer
 *   dropped them), `truncate` (too large even without their objects);
 * - apiserver_audit_level_total{level}: the policy's level, one per request;
 * - apiserver_audit_requests_rejected_total: requests failed because their RequestReceived event
 *   could not be stored (blocking-strict).
 */
import { Counter, type Registry } from 'prom-client';

export class AuditMetrics {
  readonly events: Counter<string>;
  readonly errors: Counter<string>;
  readonly levels: Counter<string>;
  readonly rejected: Counter<string>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.events = new Counter({ name: 'apiserver_audit_event_total', help: 'Counter of audit events generated and sent to the audit backend.', registers });
    this.errors = new Counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      registers,
    });
    this.levels = new Counter({ name: 'apiserver_audit_level_total', help: 'Counter of policy levels for audit events (1 per request).', labelNames: ['level'], registers });
    this.rejected = new Counter({ name: 'apiserver_audit_requests_rejected_total', help: 'Counter of apiserver requests rejected due to an error in audit logging backend.', registers });
  }

  /** `n` events of `plugin` were lost. */
  pluginError(plugin: string, n: number): void {
    if (n > 0) this.errors.inc({ plugin }, n);
  }
}
