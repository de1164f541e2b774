// HTTP/2 session liveness (src/apiserver/session-liveness.ts) on a real Node HTTP/2 server over TLS,
// with short timings: a session whose client sent GOAWAY but left a stream open is destroyed after
// the timeout (its stream closed, as a watch's is); a client that never answers a PING (a raw TLS
// connection that sent the HTTP/2 preface and then reads nothing) is cut off; a live client that
// answers is kept across several PINGs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as h2connect, createSecureServer, type Http2SecureServer, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { watchSessionLiveness } from '../../src/apiserver/session-liveness.js';
import { createCA } from '../helpers/pki.js';
import * as x509 from '@peculiar/x509';

const INTERVAL_MS = 200;
const TIMEOUT_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Harness {
  url: string;
  port: number;
  /** The CA the clients trust. */
  cert: string;
  server: Http2SecureServer;
  dead: Http2Session[];
  /** Server-side streams, which never end by themselves (as a watch's). */
  streams: ServerHttp2Stream[];
}

async function start(): Promise<Harness> {
  // A serving certificate for localhost from a CA of the test's own (clients trust the CA).
  const ca = await createCA('liveness-ca');
  const serving = await ca.issue({ cn: 'localhost', dnsNames: ['localhost'], extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth] });
  ca.cleanup();
  const server = createSecureServer({ key: serving.keyPem, cert: serving.certPem });
  const h: Harness = { url: '', port: 0, cert: ca.certPem, server, dead: [], streams: [] };
  server.on('session', (s: Http2Session) => watchSessionLiveness(s, { intervalMs: INTERVAL_MS, timeoutMs: TIMEOUT_MS, onDead: (d) => h.dead.push(d) }));
  server.on('stream', (stream: ServerHttp2Stream) => {
    h.streams.push(stream);
    stream.respond({ ':status': 200 });
    stream.write('open\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  h.port = (server.address() as { port: number }).port;
  h.url = `https://localhost:${h.port}`;
  return h;
}

/** Clients a test opened: destroyed before the server closes, whatever the test's outcome. */
const cleanups: (() => void)[] = [];

async function stop(h: Harness): Promise<void> {
  for (const c of cleanups.splice(0)) c();
  for (const s of h.streams) s.destroy();
  await new Promise<void>((r) => h.server.close(() => r()));
}

test('a session whose client sent GOAWAY with a stream left open is destroyed after the timeout, and the stream closed', async () => {
  const h = await start();
  try {
    const client = h2connect(h.url, { ca: h.cert });
    cleanups.push(() => client.destroy());
    const req = client.request({ ':path': '/watch' });
    req.on('error', () => {});
    await new Promise<void>((r) => req.once('response', () => r()));
    const serverStream = h.streams[0]!;
    let closedAt = 0;
    serverStream.once('close', () => (closedAt = performance.now()));
    const sentAt = performance.now();
    client.goaway(); // GOAWAY, the stream still open, nothing more read or sent
    for (let i = 0; i < 40 && closedAt === 0; i++) await sleep(50);
    assert.ok(closedAt > 0, 'the server-side stream was closed');
    assert.ok(closedAt - sentAt >= TIMEOUT_MS - 50, `not before the timeout (${(closedAt - sentAt).toFixed(0)} ms)`);
    assert.is(h.dead.length, 1, 'destroyed by the liveness rule');
    client.destroy();
  } finally {
    await stop(h);
  }
});

test('a client that never answers a PING is cut off; a live client is kept', async () => {
  const h = await start();
  try {
    // Live: Node's HTTP/2 client answers PINGs by itself.
    const live = h2connect(h.url, { ca: h.cert });
    cleanups.push(() => live.destroy());
    await new Promise<void>((r) => live.once('connect', () => r()));
    // Silent: the HTTP/2 preface and an empty SETTINGS frame over raw TLS, then nothing answered
    // (what arrives is read and dropped: no HTTP/2 stack behind it to answer a PING).
    const silent = tlsConnect({ host: '127.0.0.1', port: h.port, ca: h.cert, servername: 'localhost', ALPNProtocols: ['h2'] });
    cleanups.push(() => silent.destroy());
    await new Promise<void>((r) => silent.once('secureConnect', () => r()));
    silent.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]));
    silent.on('data', () => {});
    let silentClosed = false;
    silent.on('close', () => (silentClosed = true));
    silent.on('error', () => {});
    await sleep(3 * INTERVAL_MS + TIMEOUT_MS + 400);
    assert.ok(silentClosed, 'the silent connection was closed by the server');
    assert.is(h.dead.length, 1, 'one session destroyed: the silent one');
    assert.not.ok(live.destroyed || live.closed, 'the live client is still connected');
    live.destroy();
  } finally {
    await stop(h);
  }
});

test.run();
