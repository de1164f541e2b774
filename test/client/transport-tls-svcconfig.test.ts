// The HTTPS transport: TLS trust from the svcconfig file's CA, --master overriding the server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from '../../src/client/connect.js';
import { HttpTransport } from '../../src/client/http-transport.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { writeSvcconfig } from '../helpers/client.js';

let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer();
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

test('a client from a svcconfig file trusting the generated CA talks to the server over TLS', async () => {
  const { client, transport, close } = connect({ svcconfig: writeSvcconfig(server) });
  try {
    const ns = await client.get(resources.namespaces, '', 'default');
    assert.is(ns.metadata.name, 'default');
    const version = await transport.request({ method: 'GET', path: '/version' });
    assert.is(version.status, 200);
    assert.ok((version.body as { gitVersion?: string }).gitVersion);
  } finally {
    await close();
  }
});

test('a server certificate the configuration does not trust fails at once with an ApiError, not retried', async () => {
  const file = join(server.certDir, 'untrusting.yaml');
  writeFileSync(
    file,
    `current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: "${server.url}"}}]\n`,
  );
  const { client, close } = connect({ svcconfig: file, retry: { initialDelayMs: 60_000 } });
  try {
    const started = Date.now();
    const err = await client.get(resources.namespaces, '', 'default').catch((e: unknown) => e);
    assert.instance(err, ApiError);
    assert.match((err as ApiError).message, /certificate/i);
    // A TLS failure is not a connection blip: no 60 s back-off happened.
    assert.ok(Date.now() - started < 30_000);
  } finally {
    await close();
  }
});

test('--master overrides the svcconfig server (the file names an address nobody listens on)', async () => {
  const file = writeSvcconfig(server, { serverUrl: 'https://127.0.0.1:1', name: 'wrong-server.yaml' });
  const { client, transport, close } = connect({ svcconfig: file, master: server.url });
  try {
    assert.is(transport.server, server.url);
    const ns = await client.get(resources.namespaces, '', 'default');
    assert.is(ns.metadata.name, 'default');
  } finally {
    await close();
  }
});

test('insecure-skip-tls-verify reaches the server without its CA', async () => {
  const t = new HttpTransport({ server: server.url, tls: { insecureSkipVerify: true }, source: 'test' });
  try {
    const r = await t.request({ method: 'GET', path: '/api/v1/namespaces/default' });
    assert.is(r.status, 200);
  } finally {
    await t.close();
  }
});

test.run();
