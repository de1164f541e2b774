// The API server's limits and lifecycle: in-flight limits, request and watch timeouts, graceful
// shutdown, durability across kill -9, certificate reuse, --runtime-config.
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { startApiServer } from '../helpers/apiserver.js';
import { openWatch } from '../helpers/watch.js';

const CM = '/api/v1/namespaces/default/configmaps';

test('--max-requests-inflight: a request over the limit is 429 with Retry-After', async () => {
  const server = await startApiServer({ args: ['--max-requests-inflight=1'] });
  try {
    // A read of a too-new version holds its slot while it waits for the version to appear.
    const slow = server.request('GET', `${CM}/x?resourceVersion=999999999`);
    // Once the slow read holds the one slot (it may take a moment to arrive on a loaded machine),
    // a read is 429.
    let r = await server.request('GET', CM);
    for (const until = Date.now() + 2_500; r.status !== 429 && Date.now() < until; ) {
      await new Promise((done) => setTimeout(done, 100));
      r = await server.request('GET', CM);
    }
    assert.is(r.status, 429, r.text);
    assert.is(r.json.reason, 'TooManyRequests');
    assert.is(r.headers['retry-after'], '1');
    // Health probes take no slot (the established server's probes FlowSchema is exempt).
    for (const probe of ['/readyz', '/livez', '/healthz', '/readyz/ping']) assert.is((await server.request('GET', probe)).status, 200, `${probe} while the slot is taken`);
    // Mutating requests have their own limit.
    const w = await server.request('POST', CM, { metadata: { name: 'still-ok' } });
    assert.is(w.status, 201, w.text);
    assert.is((await slow).status, 504);
    assert.is((await server.request('GET', CM)).status, 200);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('--max-mutating-requests-inflight=0 and --max-requests-inflight=0 mean no limit', async () => {
  const server = await startApiServer({ args: ['--max-requests-inflight=0', '--max-mutating-requests-inflight=0'] });
  try {
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => server.request('POST', CM, { metadata: { name: `n-${i}` } })));
    assert.ok(rs.every((r) => r.status === 201));
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('--request-timeout: a request running longer gets 504 Timeout', async () => {
  const server = await startApiServer({ args: ['--request-timeout=1s'] });
  try {
    const t0 = Date.now();
    const r = await server.request('GET', `${CM}/x?resourceVersion=999999999`);
    assert.is(r.status, 504, r.text);
    assert.ok(Date.now() - t0 < 2500, 'ended by the request timeout');
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('--min-request-timeout: a watch without timeoutSeconds ends cleanly between the value and twice it', async () => {
  const server = await startApiServer({ args: ['--min-request-timeout=1'] });
  try {
    const t0 = Date.now();
    const w = await openWatch(server, `${CM}?watch=1&resourceVersion=0`);
    await w.ended;
    const took = Date.now() - t0;
    assert.ok(took >= 950 && took < 3500, `took ${took} ms`);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('SIGTERM: readyz fails at once during --shutdown-delay-duration while serving goes on; watches end cleanly; exit 0', async () => {
  const server = await startApiServer({ args: ['--shutdown-delay-duration=2s'] });
  try {
    const w = await openWatch(server, `${CM}?watch=1`);
    server.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await server.request('GET', '/readyz');
    assert.is(ready.status, 500);
    assert.is((await server.request('GET', '/healthz')).status, 200);
    const write = await server.request('POST', CM, { metadata: { name: 'during-delay' } });
    assert.is(write.status, 201, 'serving continues during the delay');
    await w.ended;
    // The one SIGTERM above ends it: a second (as stop() would send while the shutdown still runs)
    // means "exit now".
    const code = await new Promise<number | null>((r) => (server.proc.exitCode !== null ? r(server.proc.exitCode) : server.proc.once('exit', (c) => r(c))));
    await server.stop();
    assert.is(code, 0, server.output());
  } finally {
    server.cleanup();
  }
});

test('every acknowledged write survives kill -9 of the process', async () => {
  const first = await startApiServer();
  const acked: string[] = [];
  let stop = false;
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const name = `w${w}-${i}`;
      try {
        const r = await first.request('POST', CM, { metadata: { name }, data: { i: String(i) } });
        if (r.status === 201) acked.push(name);
      } catch {
        return; // connection died with the process
      }
    }
  });
  await new Promise((r) => setTimeout(r, 1500));
  first.proc.kill('SIGKILL');
  stop = true;
  await Promise.all(writers);
  await first.stop();
  assert.ok(acked.length > 50, `only ${acked.length} writes acknowledged`);
  const second = await startApiServer({ dataDir: first.dataDir, certDir: first.certDir });
  try {
    const list = await second.request('GET', CM);
    const names = new Set(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    const lost = acked.filter((n) => !names.has(n));
    assert.equal(lost, [], `${lost.length} of ${acked.length} acknowledged writes lost`);
  } finally {
    await second.stop();
    second.cleanup();
    first.cleanup();
  }
});

test('the self-signed certificate is generated once into --cert-dir and reused', async () => {
  const a = await startApiServer();
  const certA = readFileSync(a.caFile, 'utf8');
  await a.stop();
  const b = await startApiServer({ dataDir: a.dataDir, certDir: a.certDir });
  try {
    assert.is(readFileSync(b.caFile, 'utf8'), certA);
  } finally {
    await b.stop();
    b.cleanup();
  }
});

test('--runtime-config turns groups and versions off and on', async () => {
  const server = await startApiServer({ args: ['--runtime-config=apps/v1=false,batch/v1beta1=false'] });
  try {
    assert.is((await server.request('GET', '/apis/apps/v1')).status, 404);
    assert.is((await server.request('GET', '/apis/apps/v1/namespaces/default/deployments')).status, 404);
    assert.is((await server.request('GET', '/apis/batch/v1beta1')).status, 404);
    assert.is((await server.request('GET', '/apis/batch/v1')).status, 200);
    const groups = (await server.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.not.ok(groups.includes('apps'));
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('--kvstore-count-metric-poll-period exports stored object counts in /metrics', async () => {
  const server = await startApiServer({ args: ['--kvstore-count-metric-poll-period=1s'] });
  try {
    for (let i = 0; i < 3; i++) await server.request('POST', CM, { metadata: { name: `count-${i}` } });
    await new Promise((r) => setTimeout(r, 2500));
    const m = await server.request('GET', '/metrics');
    assert.match(m.text, /apiserver_storage_objects\{resource="configmaps"\} 3/);
    assert.match(m.text, /apiserver_storage_objects\{resource="namespaces"\} 4/);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('--feature-gates=RemainingItemCount=false leaves remainingItemCount out; an unknown gate stops the start', async () => {
  const server = await startApiServer({ args: ['--feature-gates=RemainingItemCount=false'] });
  try {
    const r = await server.request('GET', '/api/v1/namespaces?limit=1');
    assert.ok(r.json.metadata.continue);
    assert.is(r.json.metadata.remainingItemCount, undefined);
  } finally {
    await server.stop();
    server.cleanup();
  }
  let message = '';
  try {
    await (await startApiServer({ args: ['--feature-gates=NoSuchGate=true'], readyTimeoutMs: 10_000 })).stop();
  } catch (err) {
    message = String(err);
  }
  assert.match(message, /NoSuchGate/);
});

test('--tls-min-version is enforced on the listener', async () => {
  const server = await startApiServer({ args: ['--tls-min-version=VersionTLS13'] });
  try {
    const { connect } = await import('node:tls');
    const outcome = await new Promise<string>((resolve) => {
      const sock = connect({ host: '127.0.0.1', port: server.port, ca: readFileSync(server.caFile), servername: 'localhost', maxVersion: 'TLSv1.2' });
      sock.once('secureConnect', () => {
        sock.destroy();
        resolve('connected');
      });
      sock.once('error', (e) => resolve(`refused: ${e.message}`));
    });
    assert.match(outcome, /refused/);
    assert.is((await server.request('GET', '/healthz')).status, 200, 'a TLS 1.3 client still connects');
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('a deleted system namespace is recreated', async () => {
  const server = await startApiServer();
  try {
    const ns = '/api/v1/namespaces/svc-node-lease';
    const before = (await server.request('GET', ns)).json;
    const deleting = (await server.request('DELETE', ns)).json;
    assert.is(deleting.status.phase, 'Terminating');
    const fin = await server.request('PUT', `${ns}/finalize`, { ...deleting, spec: { finalizers: [] } });
    assert.is(fin.status, 200, fin.text);
    assert.is((await server.request('GET', ns)).status, 404);
    let again: { status: number; json: { metadata: { uid: string } } } = { status: 0, json: { metadata: { uid: '' } } };
    for (let i = 0; i < 30 && again.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 500));
      again = await server.request('GET', ns);
    }
    assert.is(again.status, 200, 'recreated within 15 s');
    assert.is.not(again.json.metadata.uid, before.metadata.uid);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('a malformed flag stops the daemon at start with a message naming the flag', async () => {
  let message = '';
  try {
    const s = await startApiServer({ args: ['--request-timeout=soon'], readyTimeoutMs: 10_000 });
    await s.stop();
  } catch (err) {
    message = String(err);
  }
  assert.match(message, /exited early \(1\)/);
  assert.match(message, /--request-timeout/);
});

test.run();
