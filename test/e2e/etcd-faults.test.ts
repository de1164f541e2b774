// etcd client faults (issue 8): closing watches must never count as storage failures (it once
// tripped the client's circuit breaker and made every call a 500 for 5 s), and a real etcd outage
// surfaces as 503/504 with a Status body, then heals by itself once etcd is back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'undici';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { type RunningEtcd, startEtcd } from '../helpers/etcd.js';

const CM = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';
const test = suite('etcd faults: watch churn is not a failure; an outage is a 503/504 that heals');
let etcd: RunningEtcd;
let server: ApiServerProcess;

test.before(async () => {
  etcd = await startEtcd();
  // Without the watch cache every API watch is an etcd watch: the churn reaches the etcd client.
  server = await startApiServer({ args: [`--kvstore-servers=${etcd.endpoint}`, '--watch-cache=false', '--request-timeout=4s'] });
});
test.after(async () => {
  await server?.stop();
  server?.cleanup();
  await etcd?.stop();
});

/** Opens a watch and cancels it after `ms` (0: as soon as the response starts). */
async function churnWatch(ms: number): Promise<number> {
  const ac = new AbortController();
  const r = await request(`${server.url}${CM}?watch=1`, { dispatcher: server.agent, signal: ac.signal });
  const code = r.statusCode;
  setTimeout(() => ac.abort(), ms);
  await r.body.text().catch(() => undefined);
  return code;
}

test('opening and closing 200 watches right after start, among writes, gives no 5xx', async () => {
  const statuses: number[] = [];
  let created = 0;
  for (let round = 0; round < 20; round++) {
    const watches = Array.from({ length: 10 }, (_, i) => churnWatch(i % 3 === 0 ? 0 : 20));
    const writes = Array.from({ length: 3 }, async () => {
      const r = await server.request('POST', CM, { metadata: { generateName: 'churn-' } });
      statuses.push(r.status);
      if (r.status === 201) created++;
      statuses.push((await server.request('GET', CM)).status);
    });
    statuses.push(...(await Promise.all(watches)));
    await Promise.all(writes);
  }
  const failures = statuses.filter((s) => s >= 500);
  assert.equal(failures, [], `5xx during watch churn: ${failures.length}`);
  assert.is(created, 60);
  const list = await server.request('GET', CM);
  assert.is(list.json.items.filter((i: { metadata: { name: string } }) => i.metadata.name.startsWith('churn-')).length, 60, 'every acknowledged write is there');
});

test('an object over etcd\'s request limit (1.5 MiB) but within the body limit is a 413, not a 503 to retry forever', async () => {
  const started = Date.now();
  // A pod (ConfigMaps stop at 1 MiB of data): 100 arguments of 20 KB.
  const args = Array.from({ length: 100 }, () => 'x'.repeat(20_000));
  const pod = { metadata: { name: 'too-large-for-etcd' }, spec: { containers: [{ name: 'c', image: 'busybox', args }] } };
  const r = await server.request('POST', PODS, pod);
  assert.is(r.status, 413, r.text.slice(0, 300));
  assert.is(r.json?.kind, 'Status');
  assert.match(r.json.message, /larger than the storage accepts/);
  assert.ok(Date.now() - started < 2_000, `answered in ${Date.now() - started} ms (not retried as an outage)`);
  assert.is((await server.request('GET', `${PODS}/too-large-for-etcd`)).status, 404);
  assert.is((await server.request('POST', CM, { metadata: { name: 'small-after-large' } })).status, 201, 'the breaker did not open');
});

test('an etcd outage is a 503 or 504 Status, and the server heals once etcd is back', async () => {
  await etcd.kill();
  const started = Date.now();
  const during = await Promise.all([server.request('GET', CM), server.request('POST', CM, { metadata: { name: 'during-outage' } }), server.request('GET', `${CM}/nothing`)]);
  for (const r of during) {
    assert.ok(r.status === 503 || r.status === 504, `during the outage: ${r.status} ${r.text.slice(0, 200)}`);
    assert.is(r.json?.kind, 'Status');
    if (r.status === 503) assert.ok(r.headers['retry-after'], 'a 503 says when to retry');
  }
  assert.ok(Date.now() - started < 10_000, 'answered within the request timeout, not hung');
  await etcd.restart();
  const deadline = Date.now() + 20_000;
  let r = await server.request('POST', CM, { metadata: { name: 'after-outage' } });
  while (r.status !== 201 && Date.now() < deadline) {
    assert.ok(r.status === 503 || r.status === 504 || r.status === 409, `while healing: ${r.status} ${r.text.slice(0, 200)}`);
    await new Promise((res) => setTimeout(res, 250));
    r = await server.request('POST', CM, { metadata: { name: 'after-outage' } });
  }
  assert.ok(r.status === 201 || r.status === 409, `serving again after etcd came back: ${r.status} ${r.text.slice(0, 200)}`);
  assert.is((await server.request('GET', `${CM}/after-outage`)).status, 200);
  assert.is(server.proc.exitCode, null);
});

test('a stopped (not dead) etcd fails /readyz at the check deadline instead of hanging it; it recovers on SIGCONT', async () => {
  await waitReady();
  process.kill(etcd.pid, 'SIGSTOP');
  try {
    const started = Date.now();
    const r = await server.request('GET', '/readyz?verbose');
    assert.is(r.status, 500, r.text);
    assert.match(r.text, /\[-\]kvstore failed/);
    assert.ok(Date.now() - started < 4_000, `answered in ${Date.now() - started} ms`);
    // An ordinary request waiting on the stopped etcd ends at the request deadline with a 504.
    const t0 = Date.now();
    const g = await server.request('GET', `${CM}/small-after-large`);
    assert.is(g.status, 504, g.text.slice(0, 200));
    assert.ok(Date.now() - t0 < 6_000, `answered in ${Date.now() - t0} ms`);
  } finally {
    process.kill(etcd.pid, 'SIGCONT');
  }
  await waitReady();
});

async function waitReady(): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await server.request('GET', '/readyz')).status !== 200) {
    assert.ok(Date.now() < deadline, '/readyz did not become ready');
    await new Promise((res) => setTimeout(res, 250));
  }
}

test.run();
