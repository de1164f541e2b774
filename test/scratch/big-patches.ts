import { startApiServer } from '../helpers/apiserver.js';
import { startInProcessApiServer } from '../helpers/in-process-apiserver.js';
import { Agent, request } from 'undici';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const s = process.env.INPROC ? await inproc() : await startApiServer({ args: (process.env.ARGS ?? '').split(' ').filter(Boolean) });
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
const CM = '/api/v1/namespaces/default/configmaps';
let maxGap = 0;
let stop = false;
if (process.env.INPROC) { let last = performance.now(); setInterval(() => { const t = performance.now(); maxGap = Math.max(maxGap, Math.round(t - last - 10)); last = t; }, 10).unref(); }
const pinger = process.env.INPROC ? Promise.resolve() : (async () => { while (!stop) { const t = Date.now(); await s.request('GET', '/healthz'); maxGap = Math.max(maxGap, Date.now() - t); await new Promise((r) => setTimeout(r, 20)); } })();
async function time(name: string, fn: () => Promise<{ status: number; text: string }>) {
  maxGap = 0;
  const t = Date.now();
  const r = await fn();
  console.log(name, r.status, `${Date.now() - t} ms`, `healthz worst ${maxGap} ms`, r.status >= 300 ? r.text.slice(0, 200) : '');
}
const N = Number(process.env.N ?? 100000);
const labels: Record<string, string> = {};
for (let i = 0; i < N; i++) labels[i.toString(36)] = "";
try {
  await time('apply create 100k labels', () => s.request('PATCH', `${CM}/a1?fieldManager=m`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1', labels } }), { 'content-type': 'application/apply-patch+yaml' }));
  await time('apply again same', () => s.request('PATCH', `${CM}/a1?fieldManager=m`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1', labels } }), { 'content-type': 'application/apply-patch+yaml' }));
  await time('apply other manager', () => s.request('PATCH', `${CM}/a1?fieldManager=m2&force=true`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a1', labels } }), { 'content-type': 'application/apply-patch+yaml' }));
  await time('create 100k labels', () => s.request('POST', CM, { metadata: { name: 'c1', labels } }));
  await time('merge patch 100k labels', () => s.request('PATCH', `${CM}/c1`, { metadata: { labels: Object.fromEntries(Object.keys(labels).map((k) => [k, 'w'])) } }, { 'content-type': 'application/merge-patch+json' }));
  await time('update 100k labels', async () => { const g = (await s.request('GET', `${CM}/c1`)).json; g.metadata.labels.k1 = 'z'; return s.request('PUT', `${CM}/c1`, g); });
  await time('create small', () => s.request('POST', CM, { metadata: { name: 'c2' } }));
  const ops = Array.from({ length: 10000 }, (_, i) => ({ op: 'add', path: `/metadata/labels/j${i}`, value: 'x' }));
  await s.request('PATCH', `${CM}/c2`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
  await time('json patch 10k ops', () => s.request('PATCH', `${CM}/c2`, JSON.stringify(ops), { 'content-type': 'application/json-patch+json' }));
  const ops2 = Array.from({ length: 10000 }, (_, i) => ({ op: 'test', path: `/metadata/labels/k${i % 1000}`, value: 'w' }));
  await time('json patch 10k test ops on 100k', () => s.request('PATCH', `${CM}/c1`, JSON.stringify(ops2), { 'content-type': 'application/json-patch+json' }));
  await time('list', () => s.request('GET', CM));
} finally { stop = true; await pinger; await s.stop(); s.cleanup(); }
