import { startApiServer } from '../helpers/apiserver.js';
import { startInProcessApiServer } from '../helpers/in-process-apiserver.js';
import { Agent, request } from 'undici';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const s = process.env.INPROC ? await inproc() : await startApiServer({});
async function inproc() {
  const ip = await startInProcessApiServer();
  const agent = new Agent({ connect: { ca: readFileSync(join(ip.certDir, 'apiserver.crt'), 'utf8'), servername: 'localhost' } });
  return {
    async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const r = await request(ip.server.url + path, { method: method as 'GET', dispatcher: agent, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
      const text = await r.body.text();
      let json: any; try { json = JSON.parse(text); } catch {}
      return { status: r.statusCode, text, json };
    },
    async stop() { await ip.stop(); }, cleanup() {},
  };
}

let maxGap = 0; let stop = false;
const pinger = (async () => { while (!stop) { const t = Date.now(); await s.request('GET', '/healthz'); maxGap = Math.max(maxGap, Date.now() - t); await new Promise((r) => setTimeout(r, 20)); } })();
const N = Number(process.env.N ?? 200);
function props(n: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`field${i}`] = depth > 0 ? { type: 'object', description: 'x'.repeat(100), properties: props(n, depth - 1) } : { type: 'string', description: 'y'.repeat(100), pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };
  return out;
}
const schema = { type: 'object', properties: { spec: { type: 'object', properties: props(N, 1) } } };
const crd = { apiVersion: 'apiextensions.svc.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'bigs.big.example.com' }, spec: { group: 'big.example.com', scope: 'Namespaced', names: { plural: 'bigs', kind: 'Big' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] } };
console.log('crd bytes', JSON.stringify(crd).length);
try {
  maxGap = 0; let t = Date.now();
  const r = await s.request('POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd);
  console.log('create CRD', r.status, Date.now() - t, 'ms; healthz worst', maxGap); maxGap = 0; t = Date.now();
  while ((await s.request('GET', '/apis/big.example.com/v1/namespaces/default/bigs')).status !== 200) await new Promise((r) => setTimeout(r, 20));
  console.log('served after', Date.now() - t, 'ms; healthz worst', maxGap); maxGap = 0; t = Date.now();
  const r2 = await s.request('POST', '/apis/big.example.com/v1/namespaces/default/bigs', { apiVersion: 'big.example.com/v1', kind: 'Big', metadata: { name: 'b' }, spec: { field1: { field2: 'ok' } } });
  console.log('create CR', r2.status, Date.now() - t, 'ms; healthz worst', maxGap);
} finally { stop = true; await pinger; await s.stop(); s.cleanup(); }
