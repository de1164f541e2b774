/**
 * Proxying one request to an extension API server, as the established aggregator does:
 *
 * - TLS: the server's certificate is verified with the APIService's caBundle (the host's roots
 *   when it has none) for the name `<service>.<namespace>.svc`, unless insecureSkipTLSVerify;
 *   this server shows its proxy client certificate (--proxy-client-cert-file/-key-file).
 * - Identity: the authenticated (or impersonated) user goes in the request-header identity
 *   headers (the first name of each --requestheader-* list; X-Remote-User, X-Remote-Group,
 *   X-Remote-Extra-<key> by default; extra keys %-escaped): the extension server trusts them
 *   because the proxy client certificate is signed by the request-header CA it reads from the
 *   extension-apiserver-authentication ConfigMap. The client's own credentials and identity
 *   headers (Authorization, Impersonate-*, any X-Remote-* it sent) are never passed on.
 * - The path and query go unchanged; the answer (status, headers, body) comes back as the
 *   extension server wrote it, streamed (watches), hop-by-hop headers dropped.
 * - A server that cannot be reached is a 503 `error trying to reach service: <cause>`.
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { type PipelineRequest, readRequestBytes, type Response, writeStatus } from '../http.js';
import { InProcessRequest } from '../in-process-exchange.js';
import type { UserInfo } from '../auth/user.js';
import { hostPort, type ResolvedTarget } from './routing.js';

/** The names of the identity headers this server sends. */
export interface IdentityHeaderNames {
  user: string;
  group: string;
  extraPrefix: string;
}

export const DEFAULT_IDENTITY_HEADERS: Readonly<IdentityHeaderNames> = Object.freeze({ user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-' });

/** PEM text of --proxy-client-cert-file / --proxy-client-key-file. */
export interface ProxyClientCertificate {
  cert: string;
  key: string;
}

/** How one APIService's server is spoken to. */
export interface UpstreamTls {
  servername: string;
  ca?: string;
  insecure: boolean;
}

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The TLS settings an APIService asks for. */
export function apiServiceTls(apiService: SvcObject): UpstreamTls {
  const spec = rec(apiService['spec']);
  const svc = rec(spec['service']);
  const ca = typeof spec['caBundle'] === 'string' && spec['caBundle'] !== '' ? Buffer.from(spec['caBundle'], 'base64').toString('utf8') : undefined;
  return { servername: `${String(svc['name'] ?? '')}.${String(svc['namespace'] ?? '')}.svc`, ...(ca ? { ca } : {}), insecure: spec['insecureSkipTLSVerify'] === true };
}

/** A keep-alive agent for one APIService's TLS settings and this server's client certificate. */
export function upstreamAgent(tls: UpstreamTls, client: ProxyClientCertificate | undefined): Agent {
  return new Agent({
    keepAlive: true,
    maxFreeSockets: 16,
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(client ? { cert: client.cert, key: client.key } : {}),
    rejectUnauthorized: !tls.insecure,
    servername: tls.servername,
  });
}

/** The identity headers of `user` (the established SetAuthProxyHeaders). */
export function identityHeaders(user: Pick<UserInfo, 'username' | 'groups' | 'extra'>, names: IdentityHeaderNames): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { [names.user.toLowerCase()]: user.username };
  if (user.groups.length) out[names.group.toLowerCase()] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length) out[`${names.extraPrefix.toLowerCase()}${encodeURIComponent(key)}`] = [...values];
  }
  return out;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'http2-settings']);

/** The request headers passed on: no pseudo, hop-by-hop, credential or identity headers. */
export function forwardedHeaders(headers: IncomingHttpHeaders, names: IdentityHeaderNames): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const prefixes = ['impersonate-', 'x-remote-', names.extraPrefix.toLowerCase()];
  const dropped = new Set(['authorization', names.user.toLowerCase(), names.group.toLowerCase()]);
  for (const [k, v] of Object.entries(headers)) {
    const key = k.toLowerCase();
    if (v === undefined || key.startsWith(':') || HOP_BY_HOP.has(key) || dropped.has(key) || prefixes.some((p) => key.startsWith(p))) continue;
    out[key] = v;
  }
  return out;
}

/** Response headers passed back (no hop-by-hop ones: HTTP/2 refuses them). */
function answerHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k.startsWith(':')) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export interface ProxyCall {
  target: ResolvedTarget;
  tls: UpstreamTls;
  agent: Agent;
  user: UserInfo;
  names: IdentityHeaderNames;
  /** Path and query as received. */
  url: string;
  bodyLimit: number;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Sends `req` to the extension server and streams its answer into `res`. */
export async function proxyRequest(call: ProxyCall, req: PipelineRequest, res: Response): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const body = BODYLESS.has(method) ? undefined : await readRequestBytes(req, call.bodyLimit);
  const headers: Record<string, string | string[]> = { ...forwardedHeaders(req.headers, call.names), ...identityHeaders(call.user, call.names), host: hostPort(call.target) };
  if (body) headers['content-length'] = String(body.length);
  await new Promise<void>((resolve) => {
    let settled = false;
    const done = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    const upstream = httpsRequest(
      { host: call.target.host, port: call.target.port, method, path: call.url, headers, agent: call.agent, servername: call.tls.servername },
      (answer: IncomingMessage) => {
        res.statusCode = answer.statusCode ?? 502;
        res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers));
        res.flushHeaders?.();
        answer.on('data', (chunk: Buffer) => res.write(chunk));
        answer.on('end', () => {
          res.end();
          done();
        });
        answer.on('error', () => {
          if (!res.writableEnded) res.end();
          done();
        });
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) writeStatus(res, new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message}`));
      else if (!res.writableEnded) res.end();
      done();
    });
    // The client went away (or its deadline cut it off): so does the call upstream.
    res.on('close', () => {
      if (!settled) upstream.destroy();
      done();
    });
    if (!(req instanceof InProcessRequest)) req.on('aborted', () => (settled ? undefined : upstream.destroy()));
    upstream.end(body);
  });
}
