/**
 * The node-agent ("kubelet") HTTPS endpoint of a fleet of simulated nodes: one listener serves
 * every node of the process that hosts them (`svc nodes`, the in-process fleet of `svc up`), and
 * each Node publishes it (`status.daemonEndpoints.kubeletEndpoint.Port`, its `Hostname` address),
 * so the API server reaches it the established way for `pods/log`.
 *
 *   GET /containerLogs/<namespace>/<pod>/<container>?follow=&previous=&tailLines=&sinceSeconds=
 *       &sinceTime=&timestamps=&limitBytes=
 *     200 text/plain: the container's simulated output (sim-logs.ts), streamed while it runs when
 *     `follow=true` (the stream ends when that run ends, the pod goes away or the server stops);
 *     404 `pod "<name>" does not exist` / `container "<c>" not found in pod "<name>"`;
 *     400 with the established node agent's text when there is nothing to show (waiting to start,
 *     no previous run) or an option is bad.
 *   GET /pods/<namespace>/<pod>/volumes/<volume>/<file>
 *     200 text/plain: what the projected volume's file holds now (pod-volumes.ts: a service-account
 *     token, ca.crt, namespace, ...); `.../volumes/<volume>/` lists the volume's files, one a line.
 *     Only for a user the API server allows `get` on `nodes/proxy` of the pod's node
 *     (svclet-auth.ts: 401 without an accepted bearer token, 403 otherwise; no authorizer: 403).
 *     404 when the pod is not running here, or has no such volume or file.
 *   GET /healthz: `ok`. Anything else: 404.
 *
 * The logs are served without authentication: what they hold is simulated output; the endpoint
 * binds 127.0.0.1 unless told otherwise.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { formatLine, lineAt, lineCount, limitBytes, parseLogQuery, selectLines, type ContainerRun } from './sim-logs.js';
import type { SimPod } from './sim-pod.js';
import type { VolumeReadAuthorizer } from './svclet-auth.js';

export interface SvcletServerOptions {
  /** The pod's simulated life, wherever in the fleet it runs. */
  lookup: (namespace: string, name: string) => SimPod | undefined;
  /** The node running the pod and its projected volumes' files (absent: no volume files served). */
  volumes?: (namespace: string, name: string) => { node: string; files: ReadonlyMap<string, ReadonlyMap<string, string>> } | undefined;
  /** Who may read volume files (absent: nobody). */
  authorizeVolumeRead?: VolumeReadAuthorizer;
  key: string;
  cert: string;
  /** Address to listen on (default 127.0.0.1) and port (0: any free one). */
  host?: string;
  port?: number;
  logger: Logger;
  now?: () => number;
}

export interface SvcletServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Longest wait between two looks at a followed container (to notice its pod going away). */
const FOLLOW_RECHECK_MS = 1_000;

export async function startSvcletServer(opts: SvcletServerOptions): Promise<SvcletServer> {
  const now = opts.now ?? Date.now;
  const follows = new Set<() => void>();
  const server: Server = createServer({ key: opts.key, cert: opts.cert }, (req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      opts.logger.warn({ err, url: req.url }, 'svclet endpoint request failed');
      if (!res.headersSent) text(res, 500, 'internal error\n');
      else res.destroy();
    }
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://svclet');
    if (url.pathname === '/healthz' && req.method === 'GET') return text(res, 200, 'ok');
    const v = /^\/pods\/([^/]+)\/([^/]+)\/volumes\/([^/]+)\/(.*)$/.exec(url.pathname);
    if (v && req.method === 'GET') {
      void serveVolumeFile(req, res, ...(v.slice(1, 5).map(decodeURIComponent) as [string, string, string, string])).catch((err: unknown) => {
        opts.logger.warn({ err, url: req.url }, 'svclet volume request failed');
        if (!res.headersSent) text(res, 500, 'internal error\n');
      });
      return;
    }
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return text(res, 404, '404 page not found\n');
    const [namespace, name, container] = [m[1]!, m[2]!, m[3]!].map(decodeURIComponent) as [string, string, string];
    const sim = opts.lookup(namespace, name);
    if (!sim) return text(res, 404, `pod "${name}" does not exist\n`);
    if (![...sim.inits, ...sim.containers].some((c) => c.name === container)) return text(res, 404, `container "${container}" not found in pod "${name}"\n`);
    const t = now();
    const parsed = parseLogQuery(url.searchParams, t);
    if ('error' in parsed) return text(res, 400, parsed.error);
    const run = sim.logRun(container, parsed.previous, t);
    if (typeof run === 'string') return text(res, 400, run);
    const { cuts } = parsed;
    res.writeHead(200, { 'content-type': 'text/plain' });
    const { from, to } = selectLines(run, sim.behaviour, cuts, t);
    let sent = 0;
    const write = (firstLine: number, endLine: number): boolean => {
      let chunk = '';
      for (let i = firstLine; i < endLine; i++) chunk += formatLine(lineAt(run, sim.behaviour, i), cuts.timestamps);
      if (cuts.limitBytes !== undefined) chunk = limitBytes(chunk, cuts.limitBytes - sent);
      if (chunk) res.write(chunk);
      sent += Buffer.byteLength(chunk);
      return cuts.limitBytes === undefined || sent < cuts.limitBytes;
    };
    const more = write(from, to);
    if (!parsed.follow || parsed.previous || run.finishedAt !== undefined || !more) {
      res.end();
      return;
    }
    follow(res, sim, run, namespace, name, to, write);
  }

  /** A projected volume's file (or its file list), for users allowed nodes/proxy of the pod's node. */
  async function serveVolumeFile(req: IncomingMessage, res: ServerResponse, namespace: string, name: string, volume: string, file: string): Promise<void> {
    const found = opts.volumes?.(namespace, name);
    // Authorized before anything about the pod is told (its node, its volumes).
    const decision = opts.authorizeVolumeRead ? await opts.authorizeVolumeRead(req.headers.authorization, found?.node ?? '') : { code: 403 as const, message: 'Forbidden: volume files are not served here' };
    if (decision.code !== 200) return text(res, decision.code, `${decision.message}\n`);
    if (!found) return text(res, 404, `pod "${name}" has no projected volumes filled here\n`);
    const files = found.files.get(volume);
    if (!files) return text(res, 404, `volume "${volume}" not found in pod "${name}"\n`);
    if (file === '') return text(res, 200, [...files.keys()].sort().map((f) => `${f}\n`).join(''));
    const content = files.get(file);
    if (content === undefined) return text(res, 404, `file "${file}" not found in volume "${volume}"\n`);
    return text(res, 200, content);
  }

  /** Streams the run's lines as they are printed, until it ends, its pod goes away or the client leaves. */
  function follow(res: ServerResponse, sim: SimPod, run: ContainerRun, namespace: string, name: string, written: number, write: (a: number, b: number) => boolean): void {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      follows.delete(stop);
      if (!res.writableEnded) res.end();
    };
    follows.add(stop);
    res.on('close', stop);
    const look = () => {
      const t = now();
      const current = opts.lookup(namespace, name) === sim ? sim.logRun(run.container, false, t) : undefined;
      const same = current !== undefined && typeof current !== 'string' && current.restart === run.restart && current.startedAt === run.startedAt;
      // The run ended (exited, restarted) or its pod is gone: its last lines, then the end.
      const ended = !same || current.finishedAt !== undefined;
      const upTo = same && current.finishedAt !== undefined ? current.finishedAt : t;
      const count = lineCount(run, sim.behaviour, upTo);
      const more = count > written ? write(written, count) : true;
      written = Math.max(written, count);
      if (ended || !more) return stop();
      const next = sim.behaviour.logEveryMs !== undefined ? lineAt(run, sim.behaviour, written).at - t : FOLLOW_RECHECK_MS;
      timer = setTimeout(look, Math.max(10, Math.min(FOLLOW_RECHECK_MS, next)));
    };
    timer = setTimeout(look, 0);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  opts.logger.info({ host: opts.host ?? '127.0.0.1', port }, 'simulated node agent endpoint serving');
  return {
    port,
    async close() {
      for (const stop of [...follows]) stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
