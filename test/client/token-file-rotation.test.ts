// A token from `token-file` is read again once it is a minute old, so a rotated token is picked
// up without a restart: the source on its own (a simulated clock), and the HTTP transport's
// Authorization header as a real local server receives it.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileTokenSource, HttpTransport, loadClientConfig, systemClock, TOKEN_FILE_MAX_AGE_MS } from '../../src/client/index.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-token-file-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the file is read again once the token is a minute old; a failed re-read keeps the last token', () => {
  const path = join(dir, 'source-token');
  writeFileSync(path, 'first\n');
  let now = 0;
  const source = new FileTokenSource(path, { now: () => now });
  assert.is(source.token(), 'first');
  writeFileSync(path, 'second\n');
  now = TOKEN_FILE_MAX_AGE_MS - 1;
  assert.is(source.token(), 'first', 'not yet a minute old');
  now = TOKEN_FILE_MAX_AGE_MS;
  assert.is(source.token(), 'second', 'rotated token picked up');
  rmSync(path);
  now += TOKEN_FILE_MAX_AGE_MS;
  assert.is(source.token(), 'second', 'a missing file keeps the last good token');
});

test('an empty or missing token file is an error at once', () => {
  const empty = join(dir, 'empty');
  writeFileSync(empty, '  \n');
  assert.throws(() => new FileTokenSource(empty), /empty/);
  assert.throws(() => new FileTokenSource(join(dir, 'missing')), /ENOENT/);
});

test('the transport sends the rotated token from a svcconfig token-file', async () => {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(String(req.headers['authorization']));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  writeFileSync(join(dir, 'token'), 'old-token');
  writeFileSync(
    join(dir, 'svcconfig'),
    `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n` +
      `clusters: [{name: k, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token-file: token}}]\n`,
  );
  const config = loadClientConfig({ svcconfig: join(dir, 'svcconfig') });
  assert.is(config.tokenFile, join(dir, 'token'));
  let now = 1_000_000;
  const transport = new HttpTransport(config, { clock: { ...systemClock, now: () => now }, contentType: 'application/json' });
  try {
    await transport.request({ method: 'GET', path: '/api/v1/namespaces/x' });
    writeFileSync(join(dir, 'token'), 'new-token');
    await transport.request({ method: 'GET', path: '/api/v1/namespaces/x' });
    now += TOKEN_FILE_MAX_AGE_MS;
    await transport.request({ method: 'GET', path: '/api/v1/namespaces/x' });
    assert.equal(seen, ['Bearer old-token', 'Bearer old-token', 'Bearer new-token']);
  } finally {
    await transport.close();
    server.close();
  }
});

test.run();
