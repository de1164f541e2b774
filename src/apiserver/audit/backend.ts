/**
 * Audit backends and the established wrappers around them, composed as the established options do
 * (innermost first): the sink (./log-backend.ts, ./webhook-backend.ts) -> its mode -> truncation.
 *
 * - mode `blocking-strict`: the sink itself; a failure is reported (false), and the pipeline fails
 *   the request when its RequestReceived event could not be stored;
 * - mode `blocking`: the sink with failures ignored (logged by the sink);
 * - mode `batch`: a buffer of --audit-*-batch-buffer-size events (a full buffer drops the event and
 *   logs it, never blocking the request), sent in batches of at most --audit-*-batch-max-size, a
 *   partial batch after --audit-*-batch-max-wait, at most --audit-*-batch-throttle-qps batches per
 *   second (burst --audit-*-batch-throttle-burst) when throttling is on; shutdown sends what is left;
 * - truncation (--audit-*-truncate-enabled): an event over --audit-*-truncate-max-event-size bytes
 *   loses its request and response objects (annotated `audit.svc.io/truncated: "true"`), and is
 *   dropped if still too large; a batch over --audit-*-truncate-max-batch-size bytes is split.
 *
 * Lost events are counted by plugin (`log`, `webhook`, `buffered`, `truncate`; ./metrics.ts).
 *
 * `processEvents` returns a boolean, or a promise of one when the sink writes asynchronously (the
 * log's group commit, the webhook): in the blocking modes the pipeline holds the response's end
 * until it settles.
 */
import type { Logger } from 'pino';
import { type AuditEvent, encodeEventJson } from './event.js';

export interface AuditBackend {
  /** Hands events over: false when they could not be stored (only a blocking-strict sink says so). */
  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean>;
  /** Sends what is buffered and releases the sink. */
  shutdown(): Promise<void>;
}

export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';

export interface BatchOptions {
  bufferSize: number;
  maxBatchSize: number;
  /** 0: a batch goes as soon as it has an event (the log's default). */
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
}

export interface TruncateOptions {
  enabled: boolean;
  maxBatchSize: number;
  maxEventSize: number;
}

export const TRUNCATED_ANNOTATION = 'audit.svc.io/truncated';

/** Where lost events are counted (apiserver_audit_error_total{plugin}, ./metrics.ts). */
export type PluginErrors = (plugin: string, events: number) => void;

/** A sink whose failures (false, or a failed promise) are counted under its plugin name. */
export class CountingBackend implements AuditBackend {
  constructor(
    private readonly sink: AuditBackend,
    private readonly plugin: string,
    private readonly errors: PluginErrors,
  ) {}

  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const r = this.sink.processEvents(events);
    if (typeof r === 'boolean') {
      if (!r) this.errors(this.plugin, events.length);
      return r;
    }
    return r.then(
      (ok) => {
        if (!ok) this.errors(this.plugin, events.length);
        return ok;
      },
      (err: unknown) => {
        this.errors(this.plugin, events.length);
        throw err;
      },
    );
  }

  shutdown(): Promise<void> {
    return this.sink.shutdown();
  }
}

/** Every backend in turn (the log and the webhook); false if any said false. */
export class UnionBackend implements AuditBackend {
  constructor(private readonly backends: readonly AuditBackend[]) {}

  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    let ok = true;
    const pending: Promise<boolean>[] = [];
    for (const b of this.backends) {
      const r = b.processEvents(events);
      if (typeof r === 'boolean') ok = r && ok;
      else pending.push(r);
    }
    if (pending.length === 0) return ok;
    return Promise.all(pending).then((all) => all.every(Boolean) && ok);
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.backends.map((b) => b.shutdown()));
  }
}

/** `blocking`: the sink's failures do not fail requests. */
export class IgnoreErrorsBackend implements AuditBackend {
  constructor(private readonly sink: AuditBackend) {}

  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const r = this.sink.processEvents(events);
    return typeof r === 'boolean' ? true : r.then(() => true, () => true);
  }

  shutdown(): Promise<void> {
    return this.sink.shutdown();
  }
}

/** `batch`: buffered, batched, throttled; never blocks or fails a request. */
export class BufferedBackend implements AuditBackend {
  private queue: AuditEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private tokens: number;
  private lastRefill = Date.now();
  private dropped = 0;
  private stopped = false;

  constructor(
    private readonly sink: AuditBackend,
    private readonly opts: BatchOptions,
    private readonly logger: Logger,
    private readonly name: string,
    private readonly errors?: PluginErrors,
  ) {
    this.tokens = Math.max(1, opts.throttleBurst);
  }

  processEvents(events: readonly AuditEvent[]): boolean {
    for (const ev of events) {
      if (this.queue.length >= this.opts.bufferSize || this.stopped) {
        // Established: the request is not held up by a full buffer; the event is lost and said so.
        if (this.dropped++ % 1000 === 0) this.logger.error({ backend: this.name, dropped: this.dropped }, 'audit buffer queue blocked: event dropped');
        this.errors?.('buffered', 1);
        continue;
      }
      this.queue.push(ev);
    }
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (this.sending || this.queue.length === 0) return;
    if (this.queue.length >= this.opts.maxBatchSize || this.opts.maxBatchWaitMs <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.sending = this.sendBatches().finally(() => {
        this.sending = undefined;
        this.schedule();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.sending = this.sendBatches(true).finally(() => {
        this.sending = undefined;
        this.schedule();
      });
    }, this.opts.maxBatchWaitMs);
  }

  /** Sends full batches (and one partial batch when `partial`, or all when stopping). */
  private async sendBatches(partial = false): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.queue.length >= this.opts.maxBatchSize || ((partial || this.stopped || this.opts.maxBatchWaitMs <= 0) && this.queue.length > 0)) {
      const batch = this.queue.splice(0, this.opts.maxBatchSize);
      partial = false;
      await this.throttle();
      try {
        await this.sink.processEvents(batch);
      } catch (err) {
        this.logger.error({ err, backend: this.name, events: batch.length }, 'audit backend failed to store a batch');
      }
    }
  }

  /** A token bucket: qps batches per second, bursts of `burst`. */
  private async throttle(): Promise<void> {
    if (!this.opts.throttleEnable || this.stopped) return;
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.opts.throttleBurst, this.tokens + ((now - this.lastRefill) / 1000) * this.opts.throttleQps);
      this.lastRefill = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.tokens) / this.opts.throttleQps) * 1000)));
    }
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.sending || this.queue.length > 0) {
      if (this.sending) await this.sending;
      else {
        this.sending = this.sendBatches(true).finally(() => (this.sending = undefined));
      }
    }
    await this.sink.shutdown();
  }
}

/** Truncation of events and batches (--audit-*-truncate-*). */
export class TruncateBackend implements AuditBackend {
  constructor(
    private readonly delegate: AuditBackend,
    private readonly opts: TruncateOptions,
    private readonly apiVersion: string,
    private readonly logger: Logger,
    private readonly errors?: PluginErrors,
  ) {}

  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const kept: { ev: AuditEvent; size: number }[] = [];
    for (const ev of events) {
      let e = ev;
      let size = Buffer.byteLength(encodeEventJson(e, this.apiVersion));
      if (size > this.opts.maxEventSize) {
        e = { ...ev, annotations: { ...ev.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
        delete e.requestObject;
        delete e.responseObject;
        size = Buffer.byteLength(encodeEventJson(e, this.apiVersion));
        if (size > this.opts.maxEventSize) {
          this.logger.error({ auditID: ev.auditID, stage: ev.stage, size, max: this.opts.maxEventSize }, 'audit event larger than --audit-*-truncate-max-event-size even without its objects: dropped');
          this.errors?.('truncate', 1);
          continue;
        }
      }
      kept.push({ ev: e, size });
    }
    // Batches over the limit go as several calls (each within it).
    const batches: AuditEvent[][] = [];
    let cur: AuditEvent[] = [];
    let curSize = 0;
    for (const { ev, size } of kept) {
      if (cur.length > 0 && curSize + size > this.opts.maxBatchSize) {
        batches.push(cur);
        cur = [];
        curSize = 0;
      }
      cur.push(ev);
      curSize += size;
    }
    if (cur.length) batches.push(cur);
    let ok = true;
    const pending: Promise<boolean>[] = [];
    for (const b of batches) {
      const r = this.delegate.processEvents(b);
      if (typeof r === 'boolean') ok = r && ok;
      else pending.push(r);
    }
    if (pending.length === 0) return ok;
    return Promise.all(pending).then((all) => all.every(Boolean) && ok);
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
}

/** A sink with its mode and truncation, composed as established. */
export function wrapBackend(
  sink: AuditBackend,
  o: { mode: AuditMode; batch: BatchOptions; truncate: TruncateOptions; apiVersion: string; name: string },
  logger: Logger,
  errors?: PluginErrors,
): AuditBackend {
  const counted = errors ? new CountingBackend(sink, o.name, errors) : sink;
  let b: AuditBackend =
    o.mode === 'blocking-strict' ? counted : o.mode === 'blocking' ? new IgnoreErrorsBackend(counted) : new BufferedBackend(counted, o.batch, logger, o.name, errors);
  if (o.truncate.enabled) b = new TruncateBackend(b, o.truncate, o.apiVersion, logger, errors);
  return b;
}
