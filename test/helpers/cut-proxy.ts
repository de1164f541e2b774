/**
 * A loopback TCP proxy a test puts between one client and a server to break its connections on
 * purpose: `cut()` destroys every connection through it now (both sockets: the client sees its
 * connection end in the middle of whatever it was reading, e.g. a watch), and `outage(ms)` also destroys every
 * connection that arrives during the next `ms` (the client sees refused-like failures until then).
 * TLS passes through untouched: the client still verifies the real server's certificate.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface CutProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections destroyed by `cut()`/`outage()` so far (a dropped pair counts once). */
  readonly cuts: number;
  /** Connections open now. */
  readonly open: number;
  cut(): number;
  outage(ms: number): void;
  close(): Promise<void>;
}

export async function startCutProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<CutProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let downUntil = 0;
  let cuts = 0;
  const server: Server = createServer((client) => {
    if (Date.now() < downUntil) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ port: targetPort, host: targetHost });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const cut = (): number => {
    const n = pairs.size;
    for (const [a, b] of [...pairs]) {
      // destroy(), not resetAndDestroy(): the client sees its connection end in the middle of a
      // response either way, and a reset of a socket still closing once left node (20) spinning
      // at exit, waiting for a handle that never finished closing.
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    cuts += n;
    return n;
  };
  return {
    port,
    get cuts() {
      return cuts;
    },
    get open() {
      return pairs.size;
    },
    cut,
    outage(ms) {
      downUntil = Date.now() + ms;
      cut();
    },
    async close() {
      cut();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
