/**
 * Dynamic audit (--audit-dynamic-configuration, behind the DynamicAuditing gate): every AuditSink
 * object (src/api/kinds/auditregistration/audit-sink.ts) is a webhook backend of its own, as the
 * established dynamic backend builds them:
 *
 * - the sink's policy is enforced on each event (the established `enforced` backend): a level None
 *   sink gets nothing; a stage not in `stages` is skipped; the event goes at the sink's level,
 *   without the request object below Request and the response object below RequestResponse. For
 *   that the server records every request at RequestResponse once dynamic audit is on (the
 *   established dynamic policy checker), and the static backends enforce the static policy
 *   (./auditor.ts);
 * - each sink is batched as the established default batch configuration (buffer 10000, batches of
 *   up to 400, a partial batch after 30 s) throttled at the sink's `throttle` (qps, burst), and
 *   POSTed as an `audit.k8s.io/v1` EventList to its clientConfig: a URL (http or https), or a
 *   Service reached at a ready endpoint address as admission webhooks are (the TLS name
 *   `<name>.<namespace>.svc`), trusting `caBundle`. A failed call is retried as the static webhook
 *   backend's, then its events are counted lost (`apiserver_audit_error_total{plugin="dynamic"}`);
 * - the sinks are read from the watch cache every second (and at start): a created, changed or
 *   deleted sink counts within a second; a changed or deleted one's buffer is sent before it goes.
 *
 * Sending never holds up a request (always batch mode, as established).
 */
import type { Logger } from 'pino';
import type { SvcObject } from '../../api/types.js';
import { resolveTarget, type ServiceLookups } from '../admission/webhook/client.js';
import { type AuditBackend, BufferedBackend, CountingBackend, type PluginErrors } from './backend.js';
import type { AuditEvent } from './event.js';
import { levelRank, type AuditLevel, type AuditStage } from './policy.js';
import { WebhookBackend } from './webhook-backend.js';

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The established default batch configuration of dynamic sinks (throttle from the sink). */
const BATCH = { bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true } as const;
/** The established dynamic webhook's initial back-off. */
const INITIAL_BACKOFF_MS = 10_000;
const REFRESH_MS = 1000;

export interface DynamicAuditDeps extends ServiceLookups {
  /** Every AuditSink (from the watch cache). */
  sinks(): Promise<readonly SvcObject[]>;
  logger: Logger;
  errors?: PluginErrors;
  /** Milliseconds between two reads of the sinks (default 1000). */
  refreshMs?: number;
}

interface Sink {
  version: string;
  level: AuditLevel;
  stages: ReadonlySet<string>;
  backend: AuditBackend;
}

/** The event as a sink with this level receives it (established EnforcePolicy), or undefined. */
export function enforceSinkPolicy(ev: AuditEvent, level: AuditLevel, stages: ReadonlySet<string>): AuditEvent | undefined {
  if (level === 'None' || !stages.has(ev.stage)) return undefined;
  const out: AuditEvent = { ...ev, level };
  if (levelRank(level) < levelRank('Request')) delete out.requestObject;
  if (levelRank(level) < levelRank('RequestResponse')) delete out.responseObject;
  return out;
}

export class DynamicBackend implements AuditBackend {
  private readonly sinks = new Map<string, Sink>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private stopped = false;
  private errors: PluginErrors | undefined;
  /** Lost events, counted wherever `countErrors` says (set after the sinks may already exist). */
  private readonly lost: PluginErrors = (plugin, n) => this.errors?.(plugin, n);

  constructor(private readonly deps: DynamicAuditDeps) {
    this.errors = deps.errors;
  }

  /** Where lost events are counted from now on (the auditor's metrics). */
  countErrors(errors: PluginErrors): void {
    this.errors = errors;
  }

  /** Reads the sinks now and then every second. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.deps.refreshMs ?? REFRESH_MS);
    this.timer.unref();
  }

  /** Brings the sink backends in line with the AuditSink objects. */
  refresh(): Promise<void> {
    this.refreshing ??= this.sync().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    let objects: readonly SvcObject[];
    try {
      objects = await this.deps.sinks();
    } catch (err) {
      this.deps.logger.warn({ err }, 'dynamic audit: could not read the AuditSinks');
      return;
    }
    const seen = new Set<string>();
    for (const o of objects) {
      const name = o.metadata.name ?? '';
      seen.add(name);
      const version = o.metadata.resourceVersion ?? '';
      const current = this.sinks.get(name);
      if (current?.version === version) continue;
      if (current) void current.backend.shutdown();
      this.sinks.set(name, this.build(o));
      this.deps.logger.info({ sink: name }, current ? 'dynamic audit: sink changed' : 'dynamic audit: sink added');
    }
    for (const [name, s] of this.sinks) {
      if (seen.has(name)) continue;
      this.sinks.delete(name);
      void s.backend.shutdown();
      this.deps.logger.info({ sink: name }, 'dynamic audit: sink removed');
    }
  }

  private build(o: SvcObject): Sink {
    const spec = rec(o['spec']);
    const policy = rec(spec['policy']);
    const webhook = rec(spec['webhook']);
    const throttle = rec(webhook['throttle']);
    const clientConfig = rec(webhook['clientConfig']);
    const name = o.metadata.name ?? '';
    const logger = this.deps.logger.child({ sink: name });
    const sender = new WebhookBackend(
      {
        target: () => resolveTarget(clientConfig, this.deps, undefined),
        apiVersion: 'audit.k8s.io/v1',
        initialBackoffMs: INITIAL_BACKOFF_MS,
      },
      logger,
    );
    const counted = new CountingBackend(sender, 'dynamic', this.lost);
    const qps = typeof throttle['qps'] === 'number' ? throttle['qps'] : 10;
    const burst = typeof throttle['burst'] === 'number' ? throttle['burst'] : 15;
    return {
      version: o.metadata.resourceVersion ?? '',
      level: (typeof policy['level'] === 'string' ? policy['level'] : 'None') as AuditLevel,
      stages: new Set(Array.isArray(policy['stages']) ? (policy['stages'] as AuditStage[]) : []),
      backend: new BufferedBackend(counted, { ...BATCH, throttleQps: qps, throttleBurst: burst }, logger, `dynamic ${name}`, this.lost),
    };
  }

  processEvents(events: readonly AuditEvent[]): boolean {
    for (const s of this.sinks.values()) {
      const mine: AuditEvent[] = [];
      for (const ev of events) {
        const e = enforceSinkPolicy(ev, s.level, s.stages);
        if (e) mine.push(e);
      }
      if (mine.length > 0) void s.backend.processEvents(mine);
    }
    return true;
  }

  /** Whether any sink exists (the pipeline records nothing for dynamic audit without one). */
  get active(): boolean {
    return this.sinks.size > 0;
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
    await Promise.all([...this.sinks.values()].map((s) => s.backend.shutdown()));
    this.sinks.clear();
  }
}
