// An HTTP/1.1 request node's parser refuses (an unescaped emoji in the path, a control character in
// a header) is answered with a Status, not node's bare "400 Bad Request" (found by the issue 23
// fuzz test over HTTP/1.1; HTTP/2 answered the same requests through the API).
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { answerMalformedRequest, malformedRequestResponse, type ParserError } from '../../src/apiserver/malformed-request.js';

const test = suite('malformed HTTP/1.1 requests');

function parse(buf: Buffer): { status: number; headers: Record<string, string>; body: string } {
  const text = buf.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const [line, ...rest] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(rest.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(line!.split(' ')[1]), headers, body: Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') };
}

function parserError(code: string, reason: string): ParserError {
  return Object.assign(new Error(`Parse Error: ${reason}`), { code, reason });
}

test('an invalid request line is a 400 BadRequest Status whose length is right, and the connection closes', () => {
  const r = parse(malformedRequestResponse(parserError('HPE_INVALID_URL', 'Invalid URL')));
  assert.is(r.status, 400);
  assert.is(r.headers['content-type'], 'application/json');
  assert.is(r.headers['connection'], 'close');
  assert.is(Number(r.headers['content-length']), Buffer.byteLength(r.body));
  const s = JSON.parse(r.body);
  assert.equal([s.kind, s.apiVersion, s.status, s.code, s.reason], ['Status', 'v1', 'Failure', 400, 'BadRequest']);
  assert.match(s.message, /HPE_INVALID_URL: Invalid URL/);
  assert.match(s.message, /percent-encode/);
});

test('headers past the size limit are 431, a request line that never completes 408', () => {
  assert.is(parse(malformedRequestResponse(parserError('HPE_HEADER_OVERFLOW', 'Header overflow'))).status, 431);
  const t = parse(malformedRequestResponse(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })));
  assert.is(t.status, 408);
  assert.is(JSON.parse(t.body).reason, 'Timeout');
});

test('nothing is written on a connection whose peer is gone or whose response has begun', () => {
  const gone = new PassThrough();
  answerMalformedRequest(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), gone);
  assert.ok(gone.destroyed);
  assert.is(gone.read(), null);
  const busy = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } });
  answerMalformedRequest(parserError('HPE_INVALID_URL', 'Invalid URL'), busy);
  assert.ok(busy.destroyed);
});

test("as node's clientError listener: a raw emoji in the path and a control character in a header get the Status", async () => {
  const server: Server = createServer((_req, res) => res.end('ok'));
  server.on('clientError', answerMalformedRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const send = (bytes: Buffer) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      const s = connect(port, '127.0.0.1', () => s.write(bytes));
      s.on('data', (c) => chunks.push(c));
      s.on('close', () => resolve(Buffer.concat(chunks)));
    });
  try {
    for (const req of [Buffer.from('GET /api/v1/namespaces/😀 HTTP/1.1\r\nhost: x\r\n\r\n', 'utf8'), Buffer.from('GET / HTTP/1.1\r\nhost: x\r\nx-a: a\u0001b\r\n\r\n', 'latin1')]) {
      const r = parse(await send(req));
      assert.is(r.status, 400);
      assert.is(JSON.parse(r.body).kind, 'Status');
    }
  } finally {
    server.close();
  }
});

test.run();
