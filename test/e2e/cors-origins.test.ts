// --cors-allowed-origins are RE2 patterns searched in the client's Origin header: an operator's
// pattern that backtracks badly (host, dots, optional port) cannot let a client stall the server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, type HttpResult, startApiServer } from '../helpers/apiserver.js';

const CM = '/api/v1/namespaces/default/configmaps';
// On a backtracking engine this takes ~5 s for 30 letters and a `!`, doubling per letter.
const HOST_WITH_PORT = '^https://([a-z0-9-]+\\.?)+(:[0-9]+)?$';
const test = suite('CORS allowed origins');
let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer({ args: [`--cors-allowed-origins=${HOST_WITH_PORT},//localhost(:|$)`] });
  assert.is((await server.request('POST', CM, { metadata: { name: 'kept' } })).status, 201);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

async function timedGet(path: string, headers: Record<string, string> = {}): Promise<{ r: HttpResult; ms: number }> {
  const started = Date.now();
  const r = await server.request('GET', path, undefined, headers);
  return { r, ms: Date.now() - started };
}

test('an allowed origin is echoed back; patterns are searched, not fully matched', async () => {
  for (const origin of ['https://web.example.com:8443', 'https://localhost:8443', 'http://localhost']) {
    const r = await server.request('GET', `${CM}/kept`, undefined, { origin });
    assert.is(r.status, 200);
    assert.is(r.headers['access-control-allow-origin'], origin, origin);
  }
  const r = await server.request('GET', `${CM}/kept`, undefined, { origin: 'https://evil.example!' });
  assert.is(r.status, 200);
  assert.is(r.headers['access-control-allow-origin'], undefined);
});

test('an Origin made to backtrack is answered within a second, and so is a request sent alongside', async () => {
  const origin = `https://${'a'.repeat(30)}!`;
  const [hostile, other] = await Promise.all([timedGet(`${CM}/kept`, { origin }), timedGet(`${CM}/kept`)]);
  assert.is(hostile.r.status, 200);
  assert.is(hostile.r.headers['access-control-allow-origin'], undefined);
  assert.ok(hostile.ms < 1000, `the hostile Origin was answered after ${hostile.ms} ms`);
  assert.is(other.r.status, 200);
  assert.ok(other.ms < 1000, `a GET sent alongside took ${other.ms} ms`);
  const long = await timedGet(`${CM}/kept`, { origin: `https://${'a'.repeat(8000)}!` });
  assert.is(long.r.status, 200);
  assert.ok(long.ms < 1000, `an 8,000-letter Origin was answered after ${long.ms} ms`);
  assert.is(server.proc.exitCode, null);
});

test.run();
