// A request's in-flight slot comes back when its deadline passes or its connection closes,
// whichever is first: POSTs whose bodies never finish get 504 at --request-timeout and cannot
// make every later write 429 forever (issue 8, "write slots leak").
import { connect, type TLSSocket } from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const CM = '/api/v1/namespaces/default/configmaps';
const test = suite('in-flight slots are released at the deadline or when the connection closes');
let server: ApiServerProcess;

test.before(async () => {
  server = await startApiServer({ args: ['--request-timeout=1s', '--max-mutating-requests-inflight=3'] });
});
test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

/** A POST that announces 100 bytes of body and sends 12; resolves with the status line it gets (if any). */
function stalledPost(): { socket: TLSSocket; statusLine: Promise<string> } {
  const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  socket.on('error', () => {});
  const statusLine = new Promise<string>((resolve) => {
    socket.once('data', (d: Buffer) => resolve(d.toString('latin1').split('\r\n')[0]!));
    socket.once('close', () => resolve('closed'));
  });
  socket.write(`POST ${CM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":`);
  return { socket, statusLine };
}

async function create(): Promise<number> {
  return (await server.request('POST', CM, { metadata: { generateName: 'slot-' } })).status;
}

test('bodies that never finish get 504 at the deadline, and writes work afterwards', async () => {
  for (let round = 0; round < 3; round++) {
    const stalled = Array.from({ length: 3 }, stalledPost);
    await new Promise((r) => setTimeout(r, 200));
    assert.is(await create(), 429, 'the three slots are taken while the bodies are pending');
    const lines = await Promise.all(stalled.map((s) => s.statusLine));
    for (const l of lines) assert.match(l, /504/);
    assert.is(await create(), 201, `round ${round}: the slots came back at the deadline`);
    for (const s of stalled) s.socket.destroy();
  }
});

test('a client that goes away before its body is complete gives its slot back at once', async () => {
  const stalled = Array.from({ length: 3 }, stalledPost);
  await new Promise((r) => setTimeout(r, 200));
  assert.is(await create(), 429);
  for (const s of stalled) s.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  assert.is(await create(), 201, 'slots came back before any deadline');
  assert.is(server.proc.exitCode, null);
});

test.run();
