/**
 * The ceiling: a bare Node.js HTTPS server doing nothing but answering, run as its own process
 * (`node dist/bench/bare-server.js <port> <cert.pem> <key.pem>`). Whatever the API server does on
 * top of this is our cost; this is what the runtime and TLS cost on this machine.
 *
 * - GET  any path         -> a fixed 300-byte JSON.
 * - POST any path         -> reads the whole body, then the same 300-byte JSON.
 * - GET  /sized/<bytes>   -> a fixed JSON body of <bytes> bytes (built once), the ceiling for a list
 *                            of that size.
 * - GET  /watch           -> a chunked stream that stays open; see POST /watch.
 * - POST /watch           -> reads the body (JSON with metadata.name), writes one
 *                            `{"type":"ADDED","object":...}` line, ~300 bytes, naming that object to
 *                            every open /watch stream, then answers the 300-byte JSON (the apiserver's
 *                            order): the ceiling for watch fan-out.
 * - GET  /ready           -> `ok`.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';

/** Pads a JSON object with a filler field to exactly `bytes` bytes. */
export function jsonOfSize(base: Record<string, unknown>, bytes: number): Buffer {
  const empty = JSON.stringify({ ...base, pad: '' });
  const fill = Math.max(0, bytes - Buffer.byteLength(empty));
  return Buffer.from(JSON.stringify({ ...base, pad: 'x'.repeat(fill) }));
}

export const FIXED_RESPONSE = jsonOfSize(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fixed', namespace: 'bench', resourceVersion: '1' }, data: {} },
  300,
);

function main(): void {
  const [port, certFile, keyFile] = process.argv.slice(2);
  if (!port || !certFile || !keyFile) {
    console.error('usage: bare-server.js <port> <cert.pem> <key.pem>');
    process.exit(2);
  }
  const sized = new Map<number, Buffer>();
  const watchers = new Set<ServerResponse>();

  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 600_000 }, (req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET') {
      if (url === '/ready') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (url.startsWith('/sized/')) {
        const n = Math.min(Number(url.slice('/sized/'.length)) || 0, 256 * 1024 * 1024);
        let body = sized.get(n);
        if (!body) sized.set(n, (body = jsonOfSize({ kind: 'List', items: [] }, n)));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      } else if (url.startsWith('/watch')) {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
        res.socket?.setNoDelay(true);
        res.flushHeaders();
        watchers.add(res);
        res.on('close', () => watchers.delete(res));
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': FIXED_RESPONSE.length }).end(FIXED_RESPONSE);
      }
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': FIXED_RESPONSE.length }).end(FIXED_RESPONSE);
      if (!url.startsWith('/watch')) return answer();
      let name = '';
      try {
        name = String((JSON.parse(Buffer.concat(chunks).toString()) as { metadata?: { name?: string } }).metadata?.name ?? '');
      } catch {
        return answer();
      }
      const line = Buffer.concat([
        jsonOfSize({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' } } }, 299),
        Buffer.from('\n'),
      ]);
      // Same order as the apiserver: every watcher's write goes out (corked, so at once) before
      // the writer's own answer, so the ceiling does the same work in the same order.
      for (const w of watchers) {
        w.cork();
        w.write(line);
        w.uncork();
      }
      answer();
    });
  });
  server.listen(Number(port), '127.0.0.1');
  const stop = () => {
    for (const w of watchers) w.end();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
