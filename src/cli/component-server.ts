/**
 * The secure port of a daemon other than the API server (`svc run`, the scheduler; the
 * controller managers later): HTTPS (HTTP/1.1 and HTTP/2) serving `/healthz` (with its named
 * checks), `/metrics` (a prom-client registry) and extra handlers (`/debug/pprof/`,
 * `/debug/machines`). `--secure-port=0` serves nothing. With `auth` (the scheduler's and the
 * controller manager's delegated authentication and authorization, ./delegated-auth.ts) every
 * request on the secure port is authenticated and authorized before a handler sees it; the
 * deprecated plain port (the scheduler's --port) stays unauthenticated, as established.
 */
import { createServer, Server } from 'node:http';
import { createSecureServer, type Http2SecureServer, type SecureServerOptions } from 'node:http2';
import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { ServingCertificates } from '../apiserver/config.js';
import { HealthEndpoint, type HealthCheck } from '../apiserver/health.js';
import { requestUser } from '../apiserver/auth/authentication.js';
import { writeText, type Request, type Response } from '../apiserver/http.js';
import type { Viewer } from '../runtime/inspection/access-panel.js';
import type { CommonOptions } from './common-options.js';
import type { DelegatedAuth } from './delegated-auth.js';
import type { DelegatedAuthOptions } from './delegated-auth-flags.js';
import type { Logger } from 'pino';
import { loadServingCertificates } from './tls.js';

/** Answers a request it knows (true) or leaves it to the next handler (false). */
export type ExtraHandler = (req: Request, res: Response) => Promise<boolean>;

export interface ComponentServerOptions {
  /** 0: no listener at all. */
  securePort: number;
  bindAddress: string;
  /** Required unless securePort is 0. */
  tls: ServingCertificates | undefined;
  /** 0: node's default. */
  http2MaxStreamsPerConnection?: number;
  healthChecks: HealthCheck[];
  registry: Registry;
  extraHandlers?: ExtraHandler[];
  /**
   * A plain HTTP listener serving the same paths with no TLS and no authentication (the
   * scheduler's deprecated --port/--address); absent or port 0: none.
   */
  plain?: { port: number; address: string };
  /** Delegated authentication and authorization of the secure port; absent: every request is served (svc run). */
  auth?: DelegatedAuth;
}

export interface ComponentServer {
  /** The bound port; 0 when --secure-port=0. */
  readonly port: number;
  /** The bound plain HTTP port; 0 when there is none. */
  readonly plainPort: number;
  close(): Promise<void>;
}

const UNSPECIFIED = new Set(['', '0.0.0.0', '::']);

/**
 * The serving certificate of a component's secure port from its common flags (given files, or a
 * self-signed pair in --cert-dir for localhost, this host and --bind-address); undefined for port 0.
 */
export async function componentServingCertificates(common: CommonOptions, component: string): Promise<ServingCertificates | undefined> {
  if (common.securePort === 0) return undefined;
  const hosts = ['127.0.0.1', '::1', 'localhost', hostname()];
  if (!UNSPECIFIED.has(common.bindAddress)) hosts.push(common.bindAddress);
  return loadServingCertificates({
    ...(common.tls.certFile ? { certFile: common.tls.certFile } : {}),
    ...(common.tls.keyFile ? { keyFile: common.tls.keyFile } : {}),
    ...(common.tls.minVersion ? { minVersion: common.tls.minVersion } : {}),
    certDir: common.tls.certDir,
    sniCertKeys: common.tls.sniCertKeys,
    cipherSuites: common.tls.cipherSuites,
    hosts,
    component,
  });
}

/** The delegated checks of a daemon's secure port (none when --secure-port=0). */
export async function componentAuth(common: CommonOptions, o: DelegatedAuthOptions, logger: Logger, userAgent: string): Promise<DelegatedAuth | undefined> {
  if (common.securePort === 0) return undefined;
  const { buildDelegatedAuth } = await import('./delegated-auth.js');
  const { connect } = await import('../client/index.js');
  return buildDelegatedAuth(o, { logger, connect: (svcconfig) => connect({ svcconfig, userAgent: `${userAgent}/delegated-auth` }) });
}

/**
 * The user a request on a secure port was authenticated as (the delegated checks, or the API
 * server's own pipeline for `svc up`), for the /debug/machines access panel; undefined when the
 * port authenticates nobody.
 */
export function requestViewer(req: unknown): Viewer | undefined {
  try {
    const u = requestUser(req as Request);
    return { username: u.username, groups: u.groups, ...(u.uid ? { uid: u.uid } : {}), ...(u.extra ? { extra: u.extra } : {}) };
  } catch {
    return undefined;
  }
}

/** The address to show for a listener bound to `bindAddress` (an unspecified one is shown as 127.0.0.1). */
export function shownHost(bindAddress: string): string {
  return UNSPECIFIED.has(bindAddress) ? '127.0.0.1' : bindAddress;
}

/** Starts listening (or nothing, for port 0); rejects when the port cannot be bound. */
export async function startComponentServer(o: ComponentServerOptions): Promise<ComponentServer> {
  const handle = componentHandler(o);
  const plain = o.plain && o.plain.port !== 0 ? await listenPlain(o.plain, handle) : undefined;
  const guard = o.auth;
  const secureHandle: Handle = guard
    ? async (req, res) => {
        try {
          if (await guard.guard(req, res)) return;
        } catch (err) {
          if (!res.headersSent) writeText(res, 500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
          else if (!res.writableEnded) res.end();
          return;
        }
        await handle(req, res);
      }
    : handle;
  const secure = o.securePort === 0 ? undefined : await listenSecure(o, secureHandle).catch(async (e: unknown) => {
    await plain?.close();
    throw e;
  });
  return {
    port: secure?.port ?? 0,
    plainPort: plain?.port ?? 0,
    close: async () => {
      await Promise.all([secure?.close(), plain?.close()]);
    },
  };
}

type Handle = (req: Request, res: Response) => Promise<void>;

function componentHandler(o: ComponentServerOptions): Handle {
  const healthz = new HealthEndpoint('/healthz', o.healthChecks);
  const handle = async (req: Request, res: Response): Promise<void> => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    try {
      if (await healthz.serve(url.pathname, url.searchParams, res)) return;
      if (url.pathname === '/metrics') {
        const body = await o.registry.metrics();
        res.writeHead(200, { 'content-type': o.registry.contentType });
        res.end(body);
        return;
      }
      for (const h of o.extraHandlers ?? []) if (await h(req, res)) return;
      writeText(res, 404, '404 page not found\n');
    } catch (err) {
      if (!res.headersSent) writeText(res, 500, `internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
      else if (!res.writableEnded) res.end();
    }
  };
  return handle;
}

interface Listening {
  port: number;
  close(): Promise<void>;
}

/** Listens and tracks connections so close() ends keep-alive ones at once (status endpoints hold no long requests). */
async function listen(server: Server | Http2SecureServer, port: number, address: string, what: string): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on(server instanceof Server ? 'connection' : 'secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot serve on ${address}:${port} (${what}): ${e.code ?? e.message}`)));
    server.listen(port, address || '0.0.0.0', () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

function listenPlain(p: { port: number; address: string }, handle: Handle): Promise<Listening> {
  const server = createServer((req, res) => void handle(req as unknown as Request, res as unknown as Response));
  return listen(server, p.port, p.address, '--port, --address');
}

function listenSecure(o: ComponentServerOptions, handle: Handle): Promise<Listening> {
  const tls = o.tls;
  if (!tls) throw new Error('startComponentServer: a serving certificate is required unless --secure-port is 0');
  const opts: SecureServerOptions = {
    allowHTTP1: true,
    key: tls.key,
    cert: tls.cert,
    minVersion: tls.minVersion,
    ciphers: tls.ciphers,
    SNICallback: tls.sniCallback,
    settings: o.http2MaxStreamsPerConnection ? { maxConcurrentStreams: o.http2MaxStreamsPerConnection } : {},
    // Asked for, never required: a client without a certificate may still use a token or be anonymous.
    ...(o.auth?.requestClientCertificates ? { requestCert: true, rejectUnauthorized: false } : {}),
  };
  if (!opts.SNICallback) delete opts.SNICallback;
  const server: Http2SecureServer = createSecureServer(opts, (req, res) => void handle(req, res as unknown as Response));
  server.on('tlsClientError', () => {});
  return listen(server, o.securePort, o.bindAddress, '--secure-port, --bind-address');
}
