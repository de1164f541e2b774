/**
 * The audit stage of the request pipeline (src/apiserver/server.ts): after authentication, the
 * policy (./policy.ts) gives each request its level and omitted stages, and a `RequestAudit`
 * follows it to the end, handing events to the backends (./backend.ts):
 *
 * - RequestReceived as soon as the request is authenticated (blocking-strict: if it cannot be
 *   stored, the request fails with a 500 "failed to store audit event", as established);
 * - ResponseStarted when a long-running request (a watch, logs, exec) sends its headers;
 * - ResponseComplete when the response's `end()` is called, which is held until the backends
 *   have stored it (the last bytes wait), so in the blocking modes an answer is never seen before its event is
 *   written; Panic instead when the handler failed unexpectedly;
 * - a request that failed authentication gets one ResponseStarted event (no user), as established.
 *
 * The `Audit-ID` response header carries the request's audit ID (the client's `Audit-ID` header
 * when it sent one). The handlers contribute through the functions at the end of this file (called
 * from src/apiserver/http.ts): the decoded request object, the response object or Status, and
 * annotations (authorization's decision and reason here; admission's via `addAuditAnnotation`).
 * The audit metrics (./metrics.ts) are counted here and by the backends. With audit off none of this exists (`auditOf` finds nothing in an empty WeakMap).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { internalError } from '../../api/status.js';
import type { PipelineRequest, Response } from '../http.js';
import { InProcessRequest } from '../in-process-exchange.js';
import type { RequestInfo } from '../request-info.js';
import type { UserInfo } from '../auth/user.js';
import { type AuditBackend, UnionBackend, wrapBackend } from './backend.js';
import type { AuditConfig } from './config.js';
import { type AuditEvent, type EventUser, microNow, type ResponseStatus, sourceIPs } from './event.js';
import { ensureLogFile, LogBackend } from './log-backend.js';
import { type AuditPolicy, type AuditStage, evaluatePolicy, levelRank, type RequestAuditConfig } from './policy.js';
import { WebhookBackend } from './webhook-backend.js';
import { AuditMetrics } from './metrics.js';
import type { DynamicBackend } from './dynamic-backend.js';
import type { Registry } from 'prom-client';

export const AUDIT_ID_HEADER = 'audit-id';
export const DECISION_ANNOTATION = 'authorization.svc.io/decision';
export const REASON_ANNOTATION = 'authorization.svc.io/reason';

const byRequest = new WeakMap<object, RequestAudit>();
const byResponse = new WeakMap<object, RequestAudit>();

type End = (this: unknown, ...args: unknown[]) => unknown;

export class Auditor {
  readonly backend: AuditBackend;
  private readonly policy: AuditPolicy;

  private readonly metrics: AuditMetrics | undefined;

  constructor(
    config: AuditConfig,
    private readonly logger: Logger,
    registry?: Registry,
    /** --audit-dynamic-configuration: the AuditSinks' backends (./dynamic-backend.ts). */
    private readonly dynamic?: DynamicBackend,
  ) {
    this.policy = config.policy;
    const metrics = (this.metrics = registry ? new AuditMetrics(registry) : undefined);
    const errors = metrics ? (plugin: string, n: number) => metrics.pluginError(plugin, n) : undefined;
    if (errors) dynamic?.countErrors(errors);
    const backends: AuditBackend[] = [];
    if (config.log) {
      const l = config.log;
      ensureLogFile(l.path);
      const sink = new LogBackend({ path: l.path, format: l.format, apiVersion: l.apiVersion, maxAgeDays: l.maxAgeDays, maxBackups: l.maxBackups, maxSizeMB: l.maxSizeMB }, logger);
      backends.push(wrapBackend(sink, { ...l, name: 'log' }, logger, errors));
    }
    if (config.webhook) {
      const w = config.webhook;
      const sink = new WebhookBackend({ client: w.client, apiVersion: w.apiVersion, initialBackoffMs: w.initialBackoffMs }, logger);
      backends.push(wrapBackend(sink, { ...w, name: 'webhook' }, logger, errors));
    }
    this.backend = backends.length === 1 ? backends[0]! : new UnionBackend(backends);
  }

  /** The audit ID (set as the `Audit-ID` response header), and the request's RequestAudit unless its level is None. */
  begin(req: PipelineRequest, res: Response, info: RequestInfo, user: UserInfo, longRunning: boolean): RequestAudit | undefined {
    const auditID = auditIdOf(req);
    setHeader(res, auditID);
    const cfg = evaluatePolicy(this.policy, user, info);
    const dynamic = this.dynamic?.active ? this.dynamic : undefined;
    // With dynamic audit every request is recorded at RequestResponse (the established dynamic policy checker).
    this.metrics?.levels.inc({ level: dynamic ? 'RequestResponse' : cfg.level });
    if (cfg.level === 'None' && !dynamic) return undefined;
    const ra = new RequestAudit(this.backend, cfg, baseEvent(req, info, auditID, cfg, eventUser(user)), longRunning, this.logger, this.metrics, dynamic);
    ra.attach(req, res);
    return ra;
  }

  /** A request whose credentials were refused: one ResponseStarted event with no user, as established. */
  failedAuthentication(req: PipelineRequest, res: Response, info: RequestInfo, attempted: string[]): void {
    const auditID = auditIdOf(req);
    setHeader(res, auditID);
    const cfg = evaluatePolicy(this.policy, undefined, info);
    const dynamic = this.dynamic?.active ? this.dynamic : undefined;
    if (cfg.level === 'None' && !dynamic) return;
    const ev = baseEvent(req, info, auditID, cfg, {});
    const message = attempted.length ? `Authentication failed, attempted: ${attempted.join(', ')}` : 'Authentication failed, no credentials provided';
    const ra = new RequestAudit(this.backend, cfg, ev, true, this.logger, this.metrics, dynamic);
    ra.failedAuthentication(message);
    ra.attach(req, res);
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.backend.shutdown(), this.dynamic?.shutdown()]);
  }
}

function auditIdOf(req: PipelineRequest): string {
  const given = req.headers[AUDIT_ID_HEADER];
  const id = Array.isArray(given) ? given[0] : given;
  return id && id.trim() ? id.trim() : randomUUID();
}

function setHeader(res: Response, auditID: string): void {
  if (!res.headersSent) res.setHeader('Audit-ID', auditID);
}

function eventUser(u: UserInfo): EventUser {
  return { username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra ? { extra: u.extra } : {}) };
}

function baseEvent(req: PipelineRequest, info: RequestInfo, auditID: string, cfg: RequestAuditConfig, user: EventUser): AuditEvent {
  const remote = req instanceof InProcessRequest ? '127.0.0.1' : (req.socket?.remoteAddress ?? undefined);
  const ua = req.headers['user-agent'];
  const now = microNow();
  const ev: AuditEvent = {
    level: cfg.level,
    auditID,
    stage: 'RequestReceived',
    requestURI: req.url ?? '/',
    verb: info.verb,
    user,
    sourceIPs: sourceIPs(req.headers, remote),
    ...(ua ? { userAgent: Array.isArray(ua) ? ua.join(', ') : ua } : {}),
    requestReceivedTimestamp: now,
    stageTimestamp: now,
  };
  if (info.isResourceRequest) {
    ev.objectRef = {
      resource: info.resource,
      namespace: info.namespace,
      name: info.name,
      apiGroup: info.group,
      apiVersion: info.version,
      subresource: info.subresource,
    };
  }
  return ev;
}

/** One audited request: its event as it grows, and which stages have been sent. */
export class RequestAudit {
  private annotations: Record<string, string> | undefined;
  private responseStatus: ResponseStatus | undefined;
  private requestJson: unknown;
  private responseBody: Buffer | string | object | readonly Buffer[] | undefined;
  private started = false;
  private finished = false;
  private panic: string | undefined;
  private authFailure: string | undefined;

  constructor(
    private readonly backend: AuditBackend,
    readonly config: RequestAuditConfig,
    private readonly event: AuditEvent,
    private readonly longRunning: boolean,
    private readonly logger: Logger,
    private readonly metrics?: AuditMetrics,
    /** Dynamic audit's sinks: they get every stage at RequestResponse, each enforcing its own policy. */
    private readonly dynamic?: DynamicBackend,
  ) {}

  /** What the static policy asks for. */
  get level(): RequestAuditConfig['level'] {
    return this.config.level;
  }

  /** What is recorded: the static level, or everything when dynamic sinks want it. */
  private get capture(): RequestAuditConfig['level'] {
    return this.dynamic ? 'RequestResponse' : this.config.level;
  }

  /** Hooks the response: its headers (ResponseStarted) and its end (ResponseComplete). */
  attach(req: PipelineRequest, res: Response): void {
    byRequest.set(req, this);
    byResponse.set(res, this);
    const r = res as unknown as { writeHead: End; end: End };
    const writeHead = r.writeHead;
    const end = r.end;
    r.writeHead = function (this: unknown, ...args: unknown[]) {
      audit.headers(args[0] as number);
      return writeHead.apply(this, args);
    };
    const audit = this;
    // A long-running response ends when its client goes (its handler returned long before).
    if (this.longRunning) res.on('close', () => audit.finish(res.statusCode, true));
    r.end = function (this: unknown, ...args: unknown[]) {
      if (audit.finished) return end.apply(this, args);
      const done = audit.complete((res as Response).statusCode);
      if (typeof done === 'boolean') {
        // blocking-strict: an answer whose event could not be written is not given (the client
        // sees the connection fail, as if the server had stopped before answering).
        if (!done) return destroy(res, () => end.apply(this, args));
        return end.apply(this, args);
      }
      void done.then((ok) => (ok ? end.apply(res, args) : destroy(res, () => end.apply(res, args))));
      return res;
    };
  }

  /** RequestReceived; throws the established 500 when a blocking-strict backend could not store it. */
  async received(): Promise<void> {
    const ok = this.emit('RequestReceived');
    if ((typeof ok === 'boolean' ? ok : await ok) === false) {
      this.finished = true;
      this.metrics?.rejected.inc();
      throw internalError('Internal error occurred: failed to store audit event');
    }
  }

  setImpersonatedUser(user: UserInfo): void {
    this.event.impersonatedUser = eventUser(user);
  }

  annotate(key: string, value: string): void {
    this.annotations ??= {};
    // Established: the first value of a key stays.
    if (!(key in this.annotations)) this.annotations[key] = value;
  }

  /** The decoded request body: fills objectRef from its metadata; kept at level Request and above. */
  requestObject(value: unknown): void {
    const ref = this.event.objectRef;
    const meta = (value as { metadata?: Record<string, unknown> } | null)?.metadata;
    if (ref && meta && typeof meta === 'object') {
      if (!ref.namespace && typeof meta['namespace'] === 'string') ref.namespace = meta['namespace'];
      if (!ref.name && typeof meta['name'] === 'string') ref.name = meta['name'];
      if (!ref.uid && typeof meta['uid'] === 'string') ref.uid = meta['uid'];
      if (!ref.resourceVersion && typeof meta['resourceVersion'] === 'string') ref.resourceVersion = meta['resourceVersion'];
    }
    // A snapshot: the handlers default and change the value afterwards.
    if (levelRank(this.capture) >= levelRank('Request') && value !== undefined) this.requestJson = JSON.parse(JSON.stringify(value));
  }

  /** A response body written whole (kept at RequestResponse; a Status also fills responseStatus). */
  responseObject(body: Buffer | string | object | readonly Buffer[]): void {
    if (!Buffer.isBuffer(body) && !Array.isArray(body) && typeof body === 'object' && (body as { kind?: unknown }).kind === 'Status') this.status(body as ResponseStatus);
    if (this.capture === 'RequestResponse' && !this.longRunning) this.responseBody = body;
  }

  /** A Status answer: its bounded fields are recorded, as established. */
  status(s: ResponseStatus): void {
    this.responseStatus = { status: s.status, message: s.message, reason: s.reason, details: s.details, code: s.code };
  }

  /** The handler failed unexpectedly: the event is a Panic instead of ResponseComplete. */
  panicked(message: string): void {
    this.panic = message;
  }

  failedAuthentication(message: string): void {
    this.authFailure = message;
  }

  private headers(code: number): void {
    if (this.started || this.finished) return;
    this.started = true;
    if (this.authFailure !== undefined) {
      this.responseStatus = { message: this.authFailure, code };
      this.emit('ResponseStarted');
      this.finished = true;
      return;
    }
    if (!this.longRunning) return;
    this.responseStatus = { ...this.responseStatus, code };
    void this.emit('ResponseStarted');
  }

  /** ResponseComplete (or Panic) once; the result of the backends. */
  complete(code: number): boolean | Promise<boolean> {
    if (this.finished) return true;
    this.finished = true;
    if (this.panic !== undefined) {
      this.responseStatus = { status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${this.panic}`, code: 500 };
      return this.emit('Panic');
    }
    this.responseStatus = { ...this.responseStatus, code };
    return this.emit('ResponseComplete');
  }

  private emit(stage: AuditStage): boolean | Promise<boolean> {
    const recorded = this.config.level !== 'None' && !this.config.omitStages.has(stage);
    if (!recorded && !this.dynamic) return true;
    const ev: AuditEvent = { ...this.event, stage, stageTimestamp: microNow() };
    if (this.event.objectRef) ev.objectRef = { ...this.event.objectRef };
    let response: unknown;
    if (stage !== 'RequestReceived') {
      if (this.responseStatus) ev.responseStatus = { ...this.responseStatus };
      if (this.annotations) ev.annotations = { ...this.annotations };
      if (stage === 'ResponseComplete' && this.responseBody !== undefined) response = parseBody(this.responseBody);
    }
    if (this.dynamic) {
      // The sinks get the whole event (each enforces its own level and stages); never blocking.
      const full: AuditEvent = { ...ev, level: 'RequestResponse', ...(this.requestJson !== undefined && stage !== 'RequestReceived' ? { requestObject: this.requestJson } : {}), ...(response !== undefined ? { responseObject: response } : {}) };
      this.metrics?.events.inc();
      this.dynamic.processEvents([full]);
      if (!recorded) return true;
    }
    // The static backends' event, at the static policy's level (established `enforced` backend when dynamic audit is on).
    ev.level = this.config.level;
    if (stage !== 'RequestReceived' && this.requestJson !== undefined && levelRank(this.config.level) >= levelRank('Request')) ev.requestObject = this.omitManaged(this.requestJson);
    if (response !== undefined && this.config.level === 'RequestResponse') ev.responseObject = this.omitManaged(response);
    this.metrics?.events.inc();
    try {
      return this.backend.processEvents([ev]);
    } catch (err) {
      this.logger.error({ err, auditID: ev.auditID, stage }, 'audit backend failed');
      return false;
    }
  }

  private omitManaged(value: unknown): unknown {
    if (!this.config.omitManagedFields || typeof value !== 'object' || value === null) return value;
    const v = value as { metadata?: Record<string, unknown>; items?: unknown[] };
    if (v.metadata && 'managedFields' in v.metadata) {
      const { managedFields: _drop, ...rest } = v.metadata;
      return { ...v, metadata: rest, ...(Array.isArray(v.items) ? { items: v.items.map((i) => this.omitManaged(i)) } : {}) };
    }
    if (Array.isArray(v.items)) return { ...v, items: v.items.map((i) => this.omitManaged(i)) };
    return value;
  }

  /**
   * The handler returned (or, for a long-running request, the connection closed) without the
   * response's end(): ResponseComplete now. A long-running request's handler returns while it
   * still streams, so only its 'close' counts.
   */
  finish(code: number, closed = false): void {
    if (this.longRunning && !closed) return;
    if (!this.finished) void this.complete(code);
  }
}

function parseBody(body: Buffer | string | object | readonly Buffer[]): unknown {
  try {
    if (Buffer.isBuffer(body)) return JSON.parse(body.toString('utf8'));
    if (Array.isArray(body)) return JSON.parse(Buffer.concat(body as Buffer[]).toString('utf8'));
    if (typeof body === 'string') return JSON.parse(body);
    return JSON.parse(JSON.stringify(body));
  } catch {
    return undefined;
  }
}

/**
 * A response whose ResponseComplete event a blocking-strict backend could not store: the stream
 * (HTTP/2) or connection (HTTP/1.1) is reset instead of answering, so no client takes it for an
 * acknowledgement. In-process calls have no connection to reset: they get their answer.
 */
function destroy(res: Response, answer: () => unknown): unknown {
  const r = res as { stream?: { close?: (code: number) => void }; socket?: { destroy?: () => void } | null };
  if (r.stream?.close) r.stream.close(2 /* NGHTTP2_INTERNAL_ERROR */);
  else if (r.socket?.destroy) r.socket.destroy();
  else return answer();
  return res;
}

// ---------------------------------------------------------------------------------------------
// What the handlers contribute (cheap lookups in an empty WeakMap when audit is off).

export function requestAuditOf(req: PipelineRequest): RequestAudit | undefined {
  return byRequest.get(req);
}

/** Called with a request body once decoded (src/apiserver/http.ts). */
export function auditRequestObject(req: PipelineRequest, value: unknown): void {
  byRequest.get(req)?.requestObject(value);
}

/** Called with a response body written whole (src/apiserver/http.ts). */
export function auditResponseObject(res: Response, body: Buffer | string | object | readonly Buffer[]): void {
  byResponse.get(res)?.responseObject(body);
}

/** Called with a Status answer (src/apiserver/http.ts). */
export function auditResponseStatus(res: Response, status: ResponseStatus): void {
  const ra = byResponse.get(res);
  if (!ra) return;
  ra.status(status);
  ra.responseObject(status as object);
}

/**
 * An annotation on the request's audit events (admission plugins and webhooks: keys such as
 * `<plugin>.admission.svc.io/<name>`). The first value of a key stays. No effect when the request
 * is not audited.
 */
export function addAuditAnnotation(req: PipelineRequest, key: string, value: string): void {
  byRequest.get(req)?.annotate(key, value);
}
