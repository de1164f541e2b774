/**
 * The secure port of a daemon other than the API server (`svc run` today; the scheduler and the
 * controller managers later): HTTPS (HTTP/1.1 and HTTP/2) serving `/healthz` (with its named
 * checks), `/metrics` (a prom-client registry) and extra handlers (`/debug/pprof/`,
 * `/debug/machines`). `--secure-port=0` serves nothing. There is no authentication yet: like the
 * API server, every request is anonymous and allowed until the security work lands.
 */
import { createSecureServer, type Http2SecureServer, type SecureServerOptions } from 'node:http2';
import type { Socket } from 'node:net';
import type { Registry } from 'prom-client';
import type { ServingCertificates } from '../apiserver/config.js';
import { HealthEndpoint, type HealthCheck } from '../apiserver/health.js';
import { writeText, type Request, type Response } from '../apiserver/http.js';

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
}

export interface ComponentServer {
  /** The bound port; 0 when --secure-port=0. */
  readonly port: number;
  close(): Promise<void>;
}

/** Starts listening (or nothing, for port 0); rejects when the port cannot be bound. */
export async function startComponentServer(o: ComponentServerOptions): Promise<ComponentServer> {
  if (o.securePort === 0) return { port: 0, close: async () => {} };
  const tls = o.tls;
  if (!tls) throw new Error('startComponentServer: a serving certificate is required unless --secure-port is 0');
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
  const opts: SecureServerOptions = {
    allowHTTP1: true,
    key: tls.key,
    cert: tls.cert,
    minVersion: tls.minVersion,
    ciphers: tls.ciphers,
    SNICallback: tls.sniCallback,
    settings: o.http2MaxStreamsPerConnection ? { maxConcurrentStreams: o.http2MaxStreamsPerConnection } : {},
  };
  if (!opts.SNICallback) delete opts.SNICallback;
  const server: Http2SecureServer = createSecureServer(opts, (req, res) => void handle(req, res as unknown as Response));
  const sockets = new Set<Socket>();
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {});
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(`cannot serve on ${o.bindAddress}:${o.securePort} (--secure-port, --bind-address): ${e.code ?? e.message}`)),
    );
    server.listen(o.securePort, o.bindAddress || '0.0.0.0', () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : o.securePort);
    });
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Status endpoints hold no long requests: end keep-alive connections now.
        for (const s of sockets) s.destroy();
      }),
  };
}
