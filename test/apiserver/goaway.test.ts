/**
 * --goaway-chance (src/apiserver/goaway.ts) on a real node HTTP/2 server: a chosen request gets
 * its answer, then the connection's GOAWAY; requests not chosen, HTTP/1.1 requests and a chance of
 * 0 keep the connection.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, createSecureServer, type Http2SecureServer } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { ProbabilisticGoaway } from '../../src/apiserver/goaway.js';
import type { Response } from '../../src/apiserver/http.js';
import { generateSelfSignedPair } from '../../src/cli/tls.js';

async function serve(goaway: ProbabilisticGoaway): Promise<{ server: Http2SecureServer; port: number; chosen: boolean[] }> {
  const { cert, key } = await generateSelfSignedPair(['localhost']);
  const chosen: boolean[] = [];
  const server = createSecureServer({ cert, key, allowHTTP1: true }, (req, res) => {
    chosen.push(goaway.apply(req, res as unknown as Response));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port, chosen };
}

/** Two requests on one HTTP/2 connection: the answers and whether GOAWAY came. */
async function twoRequests(port: number): Promise<{ bodies: string[]; goaway: boolean }> {
  const session = connect(`https://localhost:${port}`, { rejectUnauthorized: false });
  let goaway = false;
  session.on('goaway', () => (goaway = true));
  session.on('error', () => undefined);
  const one = () =>
    new Promise<string>((resolve, reject) => {
      const s = session.request({ ':path': '/' });
      let body = '';
      s.on('data', (d: Buffer) => (body += d));
      s.on('end', () => resolve(body));
      s.on('error', reject);
      s.end();
    });
  const bodies = [await one()];
  await new Promise((r) => setTimeout(r, 100));
  if (!goaway) bodies.push(await one());
  session.close();
  return { bodies, goaway };
}

test('a chosen HTTP/2 request is answered, then its connection gets GOAWAY', async () => {
  const { server, port, chosen } = await serve(new ProbabilisticGoaway(0.02, () => 0.01));
  const r = await twoRequests(port);
  assert.equal(r.bodies, ['ok']);
  assert.ok(r.goaway);
  assert.equal(chosen, [true]);
  server.close();
});

test('requests not chosen (or a chance of 0) keep the connection', async () => {
  for (const goaway of [new ProbabilisticGoaway(0.02, () => 0.5), new ProbabilisticGoaway(0, () => 0)]) {
    const { server, port, chosen } = await serve(goaway);
    const r = await twoRequests(port);
    assert.equal(r.bodies, ['ok', 'ok']);
    assert.not.ok(r.goaway);
    assert.equal(chosen, [false, false]);
    server.close();
  }
});

test('HTTP/1.1 requests are never chosen', async () => {
  const { server, port, chosen } = await serve(new ProbabilisticGoaway(0.02, () => 0));
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
      let b = '';
      res.on('data', (d: Buffer) => (b += d));
      res.on('end', () => resolve(b));
    });
    req.on('error', reject);
    req.end();
  });
  assert.is(body, 'ok');
  assert.equal(chosen, [false]);
  server.close();
});

test.run();
