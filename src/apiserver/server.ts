/**
 * The HTTPS listener (HTTP/1.1 and HTTP/2 on one port) and the request pipeline, in one place:
 *
 *   TLS -> authentication -> audit -> impersonation -> authorization -> flow control (the in-flight
 *       limits, or API Priority and Fairness: ./flowcontrol/) -> route (decode, admission,
 *       validation, storage, encode) -> metrics
 *
 * Audit (./audit/auditor.ts) sits where the established server has it: after authentication (a
 * refused client gets its own event), before impersonation (events name both users) and
 * authorization (whose decision and reason become annotations).
 *
 * In-process calls (./in-process-transport.ts) enter at `serve()`, after TLS, and take every other
 * stage: authentication gives them the identity their transport was made with.
 *
 * Authentication (./auth/authentication.ts) and authorization (./auth/authorization.ts) run before
 * a request's body is read or a slot is taken, so a refused client costs the server nothing more.
 */
import { createSecureServer, type Http2SecureServer, type Http2Session, type SecureServerOptions } from 'node:http2';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { internalError, serviceUnavailable, StatusError } from '../api/status.js';
import type { ResourceRegistry } from '../api/index.js';
import type { ApiServerConfig } from './config.js';
import type { Discovery } from './discovery.js';
import type { OpenApiDocuments } from './openapi.js';
import type { HealthEndpoint } from './health.js';
import { type PipelineRequest, prefetchBody, type Request, type Response, writeDocument, writeJson, writeStatus, writeText } from './http.js';
import { InProcessRequest } from './in-process-exchange.js';
import { answerMalformedRequest } from './malformed-request.js';
import { InflightLimiter } from './inflight.js';
import type { FlowControl } from './flowcontrol/flow-control.js';
import type { ApiServerMetrics } from './metrics.js';
import { isMutating, parseRequestInfo, type RequestInfo } from './request-info.js';
import { RequestDeadlines } from './request-deadlines.js';
import { routeResource } from './resource-router.js';
import type { ApiServices } from './scope.js';
import { storageErrorStatus } from './resource-store.js';
import { compileLinearRegExp, type LinearRegExp } from '../api/validation/linear-regexp.js';
import { type AuthenticationRequest, authenticationRequest, setRequestUser } from './auth/authentication.js';
import { listenerClientCA } from './auth/x509.js';
import { impersonatedUser } from './auth/impersonation.js';
import type { AccessAttributes, AccessDecision } from './auth/authorization.js';
import { withListSelector } from './auth/selector-attributes.js';
import { DECISION_ANNOTATION, REASON_ANNOTATION } from './audit/auditor.js';
import type { UserInfo } from './auth/user.js';
import type { Auditor, RequestAudit } from './audit/auditor.js';
import type { Aggregator } from './aggregator/aggregator.js';
import { ProbabilisticGoaway } from './goaway.js';
import { memoryReleased } from './memory-reclaimer.js';
import { watchSessionLiveness } from './session-liveness.js';
import { throttledResponse } from './connection-throttle.js';

/** Where requests enter the pipeline: the HTTPS listener, and in-process calls. */
export interface RequestPipeline {
  /** Serves one request; never rejects (failures are written to `res` as a Status). */
  serve(req: PipelineRequest, res: Response): Promise<void>;
}

export interface PipelineParts {
  config: ApiServerConfig;
  registry: ResourceRegistry;
  services: ApiServices;
  discovery: Discovery;
  openapi: OpenApiDocuments;
  health: HealthEndpoint[];
  metrics: ApiServerMetrics;
  version: object;
  logger: Logger;
  /** The audit stage; absent when audit is off (no policy or no backend). */
  auditor?: Auditor;
  /** The aggregation layer: requests under a service-backed APIService's group/version are proxied. */
  aggregator?: Aggregator;
  /** API Priority and Fairness, when on (it then replaces the in-flight limits). */
  flowControl?: FlowControl;
}

/**
 * The listen queue: as long as the kernel allows (it caps the value at net.core.somaxconn), as the
 * established server's Go runtime asks for. Node's default of 511 overflowed when a thousand clients
 * connected at once (2x the in-flight limits): the kernel dropped their handshakes and later reset
 * them, and requests that had been sent got ECONNRESET instead of an answer or a 429.
 */
const LISTEN_BACKLOG = 65_535;

/**
 * An answer still queued for its connection beyond this many bytes keeps its in-flight slot until
 * it is handed over: at most (connections x this) of small answers can be queued at once.
 */
const SMALL_ANSWER_BYTES = 64 * 1024;

/** Subresources whose requests may stream for as long as the client wants. */
const LONG_RUNNING_SUBRESOURCES = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);

export class ApiHttpServer implements RequestPipeline {
  readonly server: Http2SecureServer;
  private readonly limiter: InflightLimiter;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<Http2Session>();
  private inflight = 0;
  private drained: (() => void) | undefined;
  /** Set by close(): in-process calls are refused from then on (the listener refuses connections). */
  private closing = false;
  private readonly corsOrigins: LinearRegExp[];
  private readonly deadlines: RequestDeadlines;
  private readonly goaway: ProbabilisticGoaway;

  constructor(private readonly parts: PipelineParts) {
    const { config } = parts;
    const opts: SecureServerOptions = {
      allowHTTP1: true,
      key: config.tls.key,
      cert: config.tls.cert,
      minVersion: config.tls.minVersion,
      ciphers: config.tls.ciphers,
      SNICallback: config.tls.sniCallback,
      settings: config.http2MaxStreamsPerConnection > 0 ? { maxConcurrentStreams: config.http2MaxStreamsPerConnection } : {},
    };
    if (!opts.SNICallback) delete opts.SNICallback;
    // With a client CA (or a request-header CA) configured, every client is asked for a certificate
    // naming those authorities (Go clients send theirs only when its issuer is named), and the
    // handshake succeeds whatever it sends: the authentication methods verify the chain themselves
    // (./auth/x509.ts), so a bad certificate is a 401 Status and a client without one reaches the
    // other methods.
    const clientCA = listenerClientCA(config.authentication);
    if (clientCA) {
      Object.assign(opts, { requestCert: true, rejectUnauthorized: false, ca: clientCA });
      if (config.tls.sniCallbackWithClientCA) opts.SNICallback = config.tls.sniCallbackWithClientCA(clientCA);
    }
    this.server = createSecureServer(opts, (req, res) => void this.serve(req, res as unknown as Response));
    this.server.on('secureConnection', (sock: Socket) => {
      this.sockets.add(sock);
      sock.setNoDelay(true);
      sock.on('close', () => this.sockets.delete(sock));
    });
    this.server.on('session', (session: Http2Session) => {
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
      watchSessionLiveness(session, {
        onDead: (s) => {
          parts.logger.info({ remote: s.socket?.remoteAddress, port: s.socket?.remotePort }, 'HTTP/2 session of a client that is gone (GOAWAY with streams left open, or no answer to a PING): destroying it and its streams');
          memoryReleased();
        },
      });
    });
    this.server.on('tlsClientError', () => {});
    // HTTP/1.1 requests node's parser refuses get a Status too (node's own answer has no body).
    this.server.on('clientError', answerMalformedRequest);
    this.limiter = new InflightLimiter({ readOnly: config.maxRequestsInflight, mutating: config.maxMutatingRequestsInflight });
    // RE2 (linear time): the Origin header is the client's, and a backtracking engine can stall on it.
    this.corsOrigins = config.corsAllowedOrigins.map((o) => compileLinearRegExp(o));
    this.deadlines = new RequestDeadlines(config.requestTimeoutMs);
    this.goaway = new ProbabilisticGoaway(config.goawayChance ?? 0);
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port: this.parts.config.securePort, host: this.parts.config.bindAddress, backlog: LISTEN_BACKLOG }, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : this.parts.config.securePort);
      });
    });
  }

  private cors(req: Request, res: Response): boolean {
    const origin = req.headers['origin'];
    if (!origin || !this.corsOrigins.some((r) => r.test(String(origin)))) return false;
    res.setHeader('access-control-allow-origin', String(origin));
    res.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
    res.setHeader('access-control-allow-headers', 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
    res.setHeader('access-control-expose-headers', 'Date');
    res.setHeader('access-control-allow-credentials', 'true');
    return req.method === 'OPTIONS';
  }

  async serve(req: PipelineRequest, res: Response): Promise<void> {
    const started = process.hrtime.bigint();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    let info: RequestInfo | undefined;
    let release: (() => void) | undefined;
    /** Set while a write's body is being read before its slot (cut off if that read fails). */
    let bodyPending: Request | undefined;
    let audit: RequestAudit | undefined;
    const auditor = this.parts.auditor;
    this.inflight++;
    this.goaway.apply(req, res);
    try {
      if (this.closing && req instanceof InProcessRequest) throw serviceUnavailable('the API server is shutting down');
      if (!(req instanceof InProcessRequest) && this.cors(req, res)) {
        res.writeHead(204);
        res.end();
        return;
      }
      info = parseRequestInfo(req.method ?? 'GET', pathname, query);
      let credentials: Pick<AuthenticationRequest, 'headers' | 'rawHeaders'>;
      let authenticated: UserInfo;
      if (req instanceof InProcessRequest) {
        credentials = req;
        authenticated = req.user;
      } else {
        const view = authenticationRequest(req);
        credentials = view;
        try {
          authenticated = await this.parts.services.authentication.authenticate(view);
        } catch (err) {
          if (auditor && err instanceof StatusError && err.status.code === 401) auditor.failedAuthentication(req, res, info, attemptedMethods(view, query));
          throw err;
        }
      }
      // Established: watches and the streaming subresources (log, exec, attach, portforward) have no deadline.
      const longRunning = info.isResourceRequest && (info.verb === 'watch' || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
      if (auditor) {
        audit = auditor.begin(req, res, info, authenticated, longRunning);
        await audit?.received();
      }
      // Impersonation: the user the request acts as, once allowed to (./auth/impersonation.ts).
      const user = await impersonatedUser(credentials, authenticated, this.parts.services.authorizer);
      if (audit && user !== authenticated) audit.setImpersonatedUser(user);
      setRequestUser(req, user);
      const mutating = isMutating(info.verb);
      // Authorized before its body is read (a refused client never makes the server buffer it).
      const attributes = withListSelector(accessAttributes(info), query);
      const decision = await this.parts.services.authorizer.authorize(user, attributes);
      if (audit) {
        audit.annotate(DECISION_ANNOTATION, decision.allowed ? 'allow' : 'forbid');
        audit.annotate(REASON_ANNOTATION, decision.reason ?? '');
      }
      if (!decision.allowed) throw refusal(attributes, user, decision);
      if (!longRunning && mutating && !(req instanceof InProcessRequest)) {
        // A write's body is read before it counts against --max-mutating-requests-inflight, under a
        // deadline of its own: slow uploaders wait without holding the slots other writers need.
        bodyPending = req;
        await prefetchBody(req, this.parts.config.inputLimits.maxRequestBodyBytes, this.parts.config.requestTimeoutMs);
        bodyPending = undefined;
      }
      // Health probes take no slot: the established server's mandatory `probes` FlowSchema puts
      // /healthz, /livez and /readyz at the `exempt` priority level, so an overloaded server still
      // tells its load balancer and kubelet that it is alive and ready instead of answering 429.
      // With API Priority and Fairness the `probes` FlowSchema itself does that (it is suggested
      // configuration, kept by the server), and every other request is classified and queued.
      const exempt = !info.isResourceRequest && this.parts.health.some((h) => pathname === h.path || pathname.startsWith(`${h.path}/`));
      const flowControl = this.parts.flowControl;
      if (!longRunning && (flowControl || !exempt)) {
        // The slot comes back at the deadline or when the connection closes, whichever is first,
        // even if the handler is still waiting (a body that never finishes must not keep it).
        const giveBack = flowControl ? await flowControl.admit(user, info, res) : this.limiter.acquire(mutating ? 'mutating' : 'readOnly');
        const stopTracking = this.deadlines.track(res, () => {
          giveBack();
          cutOff(req, res);
        });
        const done = () => {
          stopTracking();
          giveBack();
        };
        res.on('close', done);
        if (req instanceof InProcessRequest) {
          release = done;
        } else {
          // A large answer holds its slot until it has been handed to the connection ('finish'),
          // not only until the handler returns: res.end() of a large LIST queues its bytes (and
          // their TLS records, outside V8's heap) for a client that may read slowly, so releasing
          // at return let every connection hold a queued answer at once, and memory grew with the
          // number of connections instead of being bounded by the in-flight limit (the established
          // server's handler likewise blocks in Write until the bytes are in the socket). A small
          // answer gives its slot back at once: its client may read it and send the next request
          // before 'finish' is seen here, and must not find its own slot still taken.
          (res as unknown as NodeJS.EventEmitter).once('finish', done);
          release = () => {
            const queued = (res as { writableLength?: number }).writableLength ?? 0;
            if (!res.writableEnded ? !res.headersSent : queued <= SMALL_ANSWER_BYTES) done();
          };
        }
      }
      const claimed = this.parts.aggregator?.claim(pathname);
      // --max-connection-bytes-per-sec: long-running answers only (./connection-throttle.ts).
      const limit = this.parts.config.maxConnectionBytesPerSec ?? 0;
      const out = limit > 0 && longRunning && !(req instanceof InProcessRequest) ? throttledResponse(res, limit) : res;
      if (claimed) {
        await this.parts.aggregator!.proxy(claimed, user, url, req, out);
      } else if (info.isResourceRequest) {
        await routeResource(this.parts.registry, this.parts.services, info, query, req, out);
      } else {
        await this.nonResource(pathname, query, req, res);
      }
    } catch (err) {
      const status = storageErrorStatus(err, this.parts.logger);
      // A failure no stage expected (not a Status) is the established Panic stage of the audit.
      if (audit && !(err instanceof StatusError) && status.code === 500) audit.panicked(err instanceof Error ? err.message : String(err));
      // A server fault is an error; 503 (storage unavailable, logged where it is seen) and 504 (a
      // deadline, or a resourceVersion from the future: the client's doing) are not.
      if (status.code >= 500 && status.code !== 503 && status.code !== 504) this.parts.logger.error({ err, path: pathname, method: req.method }, 'request failed');
      else if (status.code >= 500) this.parts.logger.debug({ path: pathname, method: req.method, code: status.code, reason: status.reason }, 'request not served');
      answerFailure(res, status, this.parts.logger, pathname);
      // A body too slow to arrive (408): nothing more of it is read; free the connection. (A 413
      // drains the rest of the body as before, so the client reads its answer.)
      if (bodyPending && status.code === 408) cutOff(bodyPending, res);
    } finally {
      // A long-running response the client left (its end() never called) still gets ResponseComplete.
      audit?.finish(res.statusCode);
      release?.();
      this.inflight--;
      if (this.inflight === 0) this.drained?.();
      this.record(info, res, started);
    }
  }

  private record(info: RequestInfo | undefined, res: Response, started: bigint): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const labels =
      info?.isResourceRequest
        ? {
            verb: info.verb.toUpperCase(),
            group: info.group,
            version: info.version,
            resource: info.resource,
            subresource: info.subresource,
            scope: info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster',
            component: 'apiserver',
          }
        : { verb: (info?.verb ?? 'unknown').toUpperCase(), group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
    this.parts.metrics.observe(labels, res.statusCode, seconds);
  }

  private async nonResource(pathname: string, query: URLSearchParams, req: PipelineRequest, res: Response): Promise<void> {
    const method = req.method ?? 'GET';
    for (const h of this.parts.health) if (await h.serve(pathname, query, res)) return;
    if (pathname === '/version' || pathname === '/version/') return writeDocument(res, 200, this.parts.version);
    if (await this.parts.services.issuerDiscovery?.serve(pathname, method, res)) return;
    if (method === 'GET' && this.parts.flowControl?.serveDebug(pathname, query, res)) return;
    if (pathname === '/metrics') {
      const extra = this.parts.config.extraMetrics;
      const body = (await this.parts.metrics.registry.metrics()) + (extra ? `\n${await extra.metrics()}` : '');
      res.writeHead(200, { 'content-type': this.parts.metrics.registry.contentType });
      res.end(body);
      return;
    }
    if (method === 'GET') {
      // Discovery documents come from the established serializer (a trailing newline), OpenAPI ones as they are.
      const discovery = this.parts.discovery.serve(pathname, req.headers['accept']);
      if (discovery) return writeJson(res, 200, discovery.body, { 'content-type': discovery.contentType });
      const openapi = this.parts.openapi.serve(pathname, req.headers['accept']);
      if (openapi) return writeDocument(res, 200, openapi.body, openapi.contentType);
    }
    // Extra handlers (profiling, debug pages) serve the listener only.
    if (!(req instanceof InProcessRequest)) for (const h of this.parts.config.extraHandlers ?? []) if (await h(req, res)) return;
    if (pathname === '/' ) {
      const openid = this.parts.services.issuerDiscovery ? ['/.well-known/openid-configuration', '/openid/v1/jwks'] : [];
      return writeDocument(res, 200, { paths: [...openid, '/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/metrics', '/version'] });
    }
    writeText(res, 404, '404 page not found\n');
  }

  /** Stops accepting connections, ends idle ones, and resolves when in-flight requests are done. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    for (const s of this.sessions) s.close();
    if (this.inflight > 0) {
      await Promise.race([new Promise<void>((r) => (this.drained = r)), new Promise((r) => setTimeout(r, graceMs))]);
    }
    // Idle keep-alive connections would hold close() open: end them now that nothing is in flight.
    for (const s of this.sockets) s.end();
    setTimeout(() => {
      for (const s of this.sockets) s.destroy();
    }, 1000).unref();
    await closed;
    this.deadlines.stop();
  }
}

/**
 * After a deadline's 504: a request whose body has not fully arrived is destroyed once the 504 is
 * sent, which ends the handler's wait for the body (readBody rejects) and frees the connection.
 */
function cutOff(req: PipelineRequest, res: Response): void {
  if (req instanceof InProcessRequest || req.complete) return;
  const destroy = () => req.destroy();
  if (res.writableEnded) (res as unknown as NodeJS.EventEmitter).once('finish', destroy);
  else destroy();
}

/**
 * The error answer, or the end of a response already under way. Writing it must not throw out of
 * the pipeline: a failure here is logged and the connection's stream ended, never left hanging.
 */
function answerFailure(res: Response, status: StatusError, logger: Logger, path: string): void {
  try {
    if (!res.headersSent) writeStatus(res, status);
    else if (!res.writableEnded) res.end();
  } catch (err) {
    logger.error({ err, path, code: status.code }, 'could not send the response');
    (res as { destroy?: (e?: Error) => void }).destroy?.();
  }
}

/** The credentials a refused request tried, for its audit event (as the established getAuthMethods names them). */
function attemptedMethods(view: AuthenticationRequest, query: URLSearchParams): string[] {
  const out: string[] = [];
  const auth = String(view.headers['authorization'] ?? '').trim();
  const scheme = auth.split(' ')[0]?.toLowerCase();
  if (scheme === 'basic') out.push('basic');
  if (auth.split(' ').length > 1 && scheme === 'bearer') out.push('bearer');
  if ((query.get('access_token') ?? '').trim()) out.push('access_token');
  if (view.peerCertificates().length > 0) out.push('x509');
  return out;
}

/** The attributes authorization reads from a request. */
function accessAttributes(info: RequestInfo): AccessAttributes {
  if (!info.isResourceRequest) return { kind: 'nonResource', verb: info.verb, path: info.path };
  const { verb, group, version, resource, subresource, name } = info;
  // Established: a request for one namespace (`/api/v1/namespaces/team`, its status, finalize) is
  // in that namespace, so a RoleBinding there may grant reading it.
  const namespace = !info.namespace && !group && resource === 'namespaces' && name ? name : info.namespace;
  return { kind: 'resource', verb, group, version, resource, subresource, namespace, name };
}

/**
 * A request no mode allowed: 500 when a mode could not decide (a failed webhook) and none denied,
 * as the established server answers (the refusal is then not a policy's), else the 403.
 */
function refusal(a: AccessAttributes, user: UserInfo, decision: AccessDecision): StatusError {
  if (decision.evaluationError && !decision.denied) return internalError(`Internal error occurred: ${decision.evaluationError}`);
  return forbidden(a, user, decision.reason);
}

/**
 * The established 403 of a refused request: `pods "x" is forbidden: User "alice" cannot get
 * resource "pods" in API group "" in the namespace "default"`, then `: <reason>` when the
 * authorizers gave one; `forbidden: User "alice" cannot get path "/metrics"` for a path.
 */
function forbidden(a: AccessAttributes, user: UserInfo, reason: string): StatusError {
  const why = reason ? `: ${reason}` : '';
  if (a.kind === 'nonResource') return new StatusError(403, 'Forbidden', `forbidden: User "${user.username}" cannot ${a.verb} path "${a.path}"${why}`);
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const message = `User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${where}${why}`;
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const details = { kind: a.resource, ...(a.group ? { group: a.group } : {}), ...(a.name ? { name: a.name } : {}) };
  return new StatusError(403, 'Forbidden', `${qualified}${a.name ? ` "${a.name}"` : ''} is forbidden: ${message}`, details);
}
