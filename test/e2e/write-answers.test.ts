// Issue 23, against a real apiserver process over HTTPS:
// - every write gets its answer: field names outside Latin-1 (an emoji, €, a YAML key with a
//   byte-order mark, a JSON-patch path /😀, a control character) give the established unknown-field
//   Warning header, as UTF-8 bytes, over HTTP/1.1 and HTTP/2 alike; the object is stored once.
//   (Before: HTTP/1.1 answered 500 "Invalid character in header content"; HTTP/2 stored the object
//   and never answered.)
// - a large strategic merge patch neither holds the server (/readyz answers within about a second
//   while it runs) nor outlives its deadline (504 Timeout, nothing stored).
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const test = suite('every write is answered; large strategic merge patches yield');
let server: ApiServerProcess;
let h2: ClientHttp2Session;

test.before(async () => {
  server = await startApiServer();
  h2 = connect(server.url, { ca: readFileSync(server.caFile, 'utf8'), servername: 'localhost' });
});
test.after(async () => {
  h2.close();
  await server.stop();
  server.cleanup();
});

interface Answer {
  status: number;
  /** The Warning header values, their bytes read as UTF-8. */
  warnings: string[];
  json: { metadata?: { name?: string }; items?: { metadata: { name: string } }[]; reason?: string; code?: number };
}

/** Header values arrive one byte per character (latin1): the text is their bytes read as UTF-8. */
function utf8Warnings(v: string | string[] | undefined): string[] {
  const all = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return all.map((w) => Buffer.from(w, 'latin1').toString('utf8'));
}

async function http1(method: string, path: string, body: string, contentType: string): Promise<Answer> {
  const r = await server.request(method, path, body, { 'content-type': contentType });
  return { status: r.status, warnings: utf8Warnings(r.headers['warning']), json: r.json };
}

/** One HTTP/2 request; rejects if no response arrives within 20 s (the failure this guards against). */
function http2(method: string, path: string, body: string, contentType: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = h2.request({ ':method': method, ':path': path, 'content-type': contentType, accept: 'application/json' });
    const timer = setTimeout(() => reject(new Error(`no HTTP/2 response to ${method} ${path} within 20 s`)), 20_000);
    let status = 0;
    let warnings: string[] = [];
    let data = '';
    req.on('response', (h) => {
      status = Number(h[':status']);
      // Node joins repeated header lines with ", " except for a few names; split our own quoted values back apart.
      const raw = h['warning'];
      warnings = utf8Warnings(raw === undefined ? undefined : Array.isArray(raw) ? raw : raw.split(/, (?=299 )/));
    });
    req.setEncoding('utf8');
    req.on('data', (d: string) => (data += d));
    req.on('end', () => {
      clearTimeout(timer);
      resolve({ status, warnings, json: JSON.parse(data) as Answer['json'] });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}

const CM = '/api/v1/namespaces/default/configmaps';

// Each case: how the object is written, and the Warning the established server sends for it.
const cases: { what: string; name: string; body: (name: string) => string; contentType: string; warning: string }[] = [
  { what: 'an emoji as a field name', name: 'emoji', body: (n) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"😀":1}`, contentType: 'application/json', warning: '299 - "unknown field \\"😀\\""' },
  { what: 'the euro sign as a field name', name: 'euro', body: (n) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"€":1}`, contentType: 'application/json', warning: '299 - "unknown field \\"€\\""' },
  { what: 'a YAML key with a byte-order mark', name: 'bom', body: (n) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\n"\ufeffdata": {}\n`, contentType: 'application/yaml', warning: '299 - "unknown field \\"\\\\ufeffdata\\""' },
  { what: 'a control character in a field name', name: 'ctl', body: (n) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"a\\u0001b":1}`, contentType: 'application/json', warning: '299 - "unknown field \\"a\\\\x01b\\""' },
];

for (const [proto, send] of [['HTTP/1.1', http1], ['HTTP/2', http2]] as const) {
  for (const c of cases) {
    test(`${proto}: create with ${c.what}: 201, the established Warning, stored once`, async () => {
      const name = `${c.name}-${proto === 'HTTP/2' ? 'h2' : 'h1'}`;
      const r = await send('POST', CM, c.body(name), c.contentType);
      assert.is(r.status, 201, JSON.stringify(r.json));
      assert.equal(r.warnings, [c.warning]);
      const list = await server.request('GET', CM);
      assert.is(list.json.items.filter((i: { metadata: { name: string } }) => i.metadata.name === name).length, 1);
    });
  }
  test(`${proto}: a JSON patch adding /😀: 200 with the Warning`, async () => {
    const name = `jp-${proto === 'HTTP/2' ? 'h2' : 'h1'}`;
    assert.is((await server.request('POST', CM, { metadata: { name } })).status, 201);
    const r = await send('PATCH', `${CM}/${name}`, '[{"op":"add","path":"/😀","value":1}]', 'application/json-patch+json');
    assert.is(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.warnings, ['299 - "unknown field \\"😀\\""']);
  });
}

test('fieldValidation=Strict refuses such a field with a 400 naming it as established', async () => {
  const r = await http2('POST', `${CM}?fieldValidation=Strict`, '{"metadata":{"name":"strict"},"😀":1}', 'application/json');
  assert.is(r.status, 400);
  assert.match(JSON.stringify(r.json), /unknown field \\"😀\\"/);
});

// Issue 23: a 2.99 MB strategic merge patch (100,000 env entries) held the server 65.8 s. Bounded
// here to 12,000 entries (about 350 KB: past the 256 KiB at which a write pauses between steps).
test('a large strategic merge patch lets /readyz answer within about a second, and merges right', async () => {
  const labels = { app: 'big' };
  const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'big' }, spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'E0', value: 'old' }, { name: 'KEEP', value: 'k' }] }] } } } };
  assert.is((await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', d)).status, 201);
  const env = Array.from({ length: 12_000 }, (_, i) => ({ name: `E${i}`, value: `v${i}` }));
  const patch = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', env }] } } } });
  let done = false;
  const waits: number[] = [];
  const pinger = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await server.request('GET', '/readyz');
      waits.push(performance.now() - t);
      assert.is(r.status, 200);
      await new Promise((res) => setTimeout(res, 10));
    }
  })();
  const t = performance.now();
  const r = await server.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/big', patch, { 'content-type': 'application/strategic-merge-patch+json' });
  const ms = performance.now() - t;
  done = true;
  await pinger;
  assert.is(r.status, 200, r.text.slice(0, 300));
  const merged = r.json.spec.template.spec.containers[0].env as { name: string; value: string }[];
  assert.is(merged.length, 12_001);
  assert.equal(merged[0], { name: 'E0', value: 'v0' });
  assert.equal(merged[1], { name: 'KEEP', value: 'k' });
  assert.equal(merged[12_000], { name: 'E11999', value: 'v11999' });
  const worst = Math.max(...waits);
  assert.ok(waits.length >= 2, `the patch took ${ms.toFixed(0)} ms; /readyz was asked ${waits.length} times`);
  assert.ok(worst < 1_500, `slowest /readyz while the patch ran: ${worst.toFixed(0)} ms (patch ${ms.toFixed(0)} ms)`);
});

test('past its deadline, a large strategic merge patch is answered 504 Timeout and stores nothing', async () => {
  const slow = await startApiServer({ args: ['--request-timeout=1s'] });
  try {
    const labels = { app: 'slow' };
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'slow' }, spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const created = await slow.request('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    assert.is(created.status, 201);
    const env = Array.from({ length: 100_000 }, (_, i) => ({ name: `E${i}`, value: 'v' }));
    const patch = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', env }] } } } });
    const pending = slow.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/slow', patch, { 'content-type': 'application/strategic-merge-patch+json' });
    await new Promise((r) => setTimeout(r, 300));
    const t = performance.now();
    const ready = await slow.request('GET', '/readyz');
    const readyMs = performance.now() - t;
    const r = await pending;
    assert.is(r.status, 504, r.text.slice(0, 300));
    assert.is(r.json.reason, 'Timeout');
    assert.is(ready.status, 200);
    assert.ok(readyMs < 1_500, `/readyz took ${readyMs.toFixed(0)} ms while the patch ran`);
    // Abandoned before it was stored: the Deployment is as created.
    const after = await slow.request('GET', '/apis/apps/v1/namespaces/default/deployments/slow');
    assert.is(after.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.is(after.json.spec.template.spec.containers[0].env, undefined);
  } finally {
    await slow.stop();
    slow.cleanup();
  }
});

test.run();
