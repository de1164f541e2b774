// A write counts against --max-mutating-requests-inflight only once its body has arrived: slow
// uploaders wait for their bodies without holding slots, so other writes are not refused with 429
// (issue 23, "slow bodies hold every write slot"); a body that does not arrive within the body
// deadline (--request-timeout) gets 408 Timeout and its connection is closed; a client that goes
// away mid-body leaves nothing behind (issue 8, "write slots leak").
import { connect, type TLSSocket } from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const CM = '/api/v1/namespaces/default/configmaps';
const test = suite('slow bodies do not hold in-flight slots');
let server: ApiServerProcess;

test.before(async () => {
  server = await startApiServer({ args: ['--request-timeout=2s', '--max-mutating-requests-inflight=3'] });
});
test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

interface SlowPost {
  socket: TLSSocket;
  /** The whole answer (status line, headers, body), or 'closed' without one. */
  answer: Promise<string>;
}

/**
 * A POST of a ConfigMap whose body trickles in: `first` bytes at once, then one byte every
 * `everyMs` (stopping when the body is complete), over HTTP/1.1.
 */
function slowPost(name: string, everyMs: number, first = 12): SlowPost {
  const body = Buffer.from(JSON.stringify({ metadata: { name }, data: { k: 'v' } }));
  const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  socket.on('error', () => {});
  const answer = new Promise<string>((resolve) => {
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString('utf8')));
    socket.once('close', () => resolve(got || 'closed'));
    socket.once('end', () => resolve(got || 'closed'));
    // An answer with a body ends the exchange for this test's purpose.
    socket.on('data', () => {
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(got)) resolve(got);
    });
  });
  socket.write(`POST ${CM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, first));
  let sent = first;
  const t = setInterval(() => {
    if (sent >= body.length || socket.destroyed) return clearInterval(t);
    socket.write(body.subarray(sent, sent + 1));
    sent++;
  }, everyMs);
  t.unref();
  void answer.finally(() => clearInterval(t));
  return { socket, answer };
}

async function create(): Promise<number> {
  return (await server.request('POST', CM, { metadata: { generateName: 'slot-' } })).status;
}

test('40 slow uploaders (3 write slots): every normal write in the meantime is served, none 429', async () => {
  const slow = Array.from({ length: 40 }, (_, i) => slowPost(`slow-${i}`, 200));
  await new Promise((r) => setTimeout(r, 300));
  const codes: number[] = [];
  for (let i = 0; i < 15; i++) codes.push(...(await Promise.all([create(), create(), create()])));
  assert.equal(codes.filter((c) => c !== 201), [], `normal writes while 40 bodies trickle in: ${JSON.stringify(codes)}`);
  // Those bodies need ~10 s; the body deadline is 2 s: each gets a 408 Timeout Status and the connection ends.
  const answers = await Promise.all(slow.map((s) => s.answer));
  for (const a of answers) {
    assert.match(a, /^HTTP\/1\.1 408 /, a.slice(0, 200));
    assert.match(a, /"reason":"Timeout"/);
    assert.match(a, /request body did not arrive within 2s/);
  }
  for (const s of slow) s.socket.destroy();
  const cm = await server.request('GET', `${CM}/slow-0`);
  assert.is(cm.status, 404, 'nothing of a timed-out body was stored');
  assert.is(await create(), 201);
});

test('a slow body that arrives within the deadline is created', async () => {
  const s = slowPost('slow-ok', 5, 0);
  const a = await s.answer;
  assert.match(a, /^HTTP\/1\.1 201 /, a.slice(0, 200));
  s.socket.destroy();
  assert.is((await server.request('GET', `${CM}/slow-ok`)).status, 200);
});

test('a client that goes away before its body is complete leaves the server serving', async () => {
  const stalled = Array.from({ length: 5 }, (_, i) => slowPost(`gone-${i}`, 10_000));
  await new Promise((r) => setTimeout(r, 200));
  assert.is(await create(), 201);
  for (const s of stalled) s.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  assert.is(await create(), 201);
  assert.is(server.proc.exitCode, null);
});

test.run();
