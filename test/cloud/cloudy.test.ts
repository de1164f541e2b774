// cloudy's file and its inspection, in process (no daemons): a transaction changes the document in
// place but a change that throws leaves both the file and this process's copy as they were; a
// second CloudyFile (another process) sees each change; the inspection and /debug/cloud answer
// what the file holds, with Status bodies for a wrong method or kind.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node, Service } from '../../src/api/generated/kinds.js';
import { Cloudy } from '../../src/cloud/cloudy/index.js';
import { CloudyFile, serialize } from '../../src/cloud/cloudy/state.js';
import { cloudDebug, cloudPanel, debugCloudHandler } from '../../src/cloud/debug-handler.js';
import type { CloudProvider } from '../../src/cloud/provider.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-cloudy-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const service = (name: string, uid: string): Service =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name, uid }, spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } }) as Service;
const node = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) as Node;

test('a change that throws writes nothing and leaves the read copy as the file holds it', async () => {
  const path = join(dir, 'throw.json');
  const file = new CloudyFile(path);
  await file.transact((d) => void (d.latencyMs = 5));
  const before = readFileSync(path, 'utf8');
  const failed = await file
    .transact((d) => {
      d.latencyMs = 99;
      d.routes['half'] = { cluster: 'c', targetNode: 'n', destinationCIDR: '10.0.0.0/24' };
      throw new Error('changed my mind');
    })
    .then(() => undefined, (e: unknown) => e);
  assert.instance(failed, Error);
  assert.is(readFileSync(path, 'utf8'), before);
  assert.is(file.read().latencyMs, 5);
  assert.equal(file.read().routes, {});
});

test('another process (a second CloudyFile) sees every change; its own changes reach the first', async () => {
  const path = join(dir, 'two.json');
  const a = new CloudyFile(path);
  const b = new CloudyFile(path);
  await a.transact((d) => void (d.quotas.loadBalancers = 7));
  assert.is(b.read().quotas.loadBalancers, 7);
  await b.transact((d) => void (d.quotas.loadBalancers = 8));
  await a.transact((d) => void (d.latencyMs = 1));
  const seen = JSON.parse(readFileSync(path, 'utf8')) as { quotas: { loadBalancers: number }; latencyMs: number };
  assert.equal([seen.quotas.loadBalancers, seen.latencyMs], [8, 1], 'the second change was not lost to the first process');
});

test('the file is JSON.stringify of the document, though built from cached entries; an entry edited in place is refused, replaced ones are written', async () => {
  const cloud = new Cloudy({ file: join(dir, 'cached.json') });
  await cloud.ensureInstances(['n0', 'n1']);
  await cloud.loadBalancer().ensureLoadBalancer('svc', service('web', 'aaaa-1'), [node('n0'), node('n1')]);
  await cloud.loadBalancer().updateLoadBalancer('svc', service('web', 'aaaa-1'), [node('n0')]);
  await cloud.setInstanceState('n1', 'stopped');
  await cloud.fail('listRoutes', { count: 2 });
  await cloud.routes().listRoutes('svc').catch(() => undefined); // spends one of the two failures
  const text = readFileSync(cloud.file.path, 'utf8');
  const parsed = JSON.parse(text) as Record<string, unknown>;
  assert.is(text, `${JSON.stringify(parsed)}\n`);
  assert.is(serialize(cloud.file.read()), text);
  const lb = (parsed['loadBalancers'] as Record<string, { targets: string[] }>)['aaaaa1']!;
  assert.equal(lb.targets, ['n0']);
  assert.equal((parsed['firewalls'] as Record<string, { targets: string[] }>)['svc-fw-aaaaa1']!.targets, ['n0']);
  assert.is((parsed['instances'] as Record<string, { state: string }>)['n1']!.state, 'stopped');
  assert.equal((parsed['failures'] as Record<string, unknown>)['listRoutes'], { count: 1 });
  const edited = await cloud.file.transact((d) => void (d.instances['n0']!.state = 'stopped')).then(() => undefined, (e: unknown) => e);
  assert.instance(edited, TypeError, 'a written entry is frozen');
  assert.is(readFileSync(cloud.file.path, 'utf8'), text, 'and the refused change wrote nothing');
  assert.is(cloud.file.read().instances['n0']!.state, 'running');
});

test('inspect(): instances with state, load balancers with ingress IP, listeners, targets and firewall rules, routes, failures', async () => {
  const cloud = new Cloudy({ file: join(dir, 'inspect.json') });
  await cloud.ensureInstances(['n0', 'n1']);
  await cloud.setInstanceState('n1', 'stopped');
  const status = await cloud.loadBalancer().ensureLoadBalancer('svc', service('web', '0123-4567'), [node('n0'), node('n1'), node('gone')]);
  await cloud.routes().createRoute('svc', 'uid-0', { targetNode: 'n0', destinationCIDR: '10.244.0.0/24' });
  await cloud.fail('createRoute', { count: 2, message: 'no capacity' });
  const seen = await cloud.inspect();
  assert.is(seen.provider, 'cloudy');
  assert.equal(seen.objects['instances']!.map((i) => `${i.name} ${i.state}`), ['n0 running', 'n1 stopped']);
  const [lb] = seen.objects['loadBalancers']!;
  assert.equal([lb!.name, lb!.service, lb!.ingressIP, lb!.listeners, lb!.targets], ['a01234567', 'default/web', status.ingress[0]!.ip!, ['TCP:80->30080'], ['n0', 'n1']]);
  assert.equal(lb!.firewallRules, ['svc-fw-a01234567', 'svc-a01234567-hc']);
  assert.equal(seen.objects['firewalls']!.map((f) => f.allowed), [['TCP:80'], ['TCP:10256']]);
  assert.equal(seen.objects['routes'], [{ name: 'svc-uid-0', cluster: 'svc', targetNode: 'n0', destinationCIDR: '10.244.0.0/24', blackhole: false }]);
  assert.equal(seen.objects['failures'], [{ name: 'createRoute', remaining: '2 call(s)', message: 'no capacity' }]);
  assert.equal([seen.facts['region'], seen.facts['loadBalancerQuota']], ['cloudy-central1', 1000]);
});

/** A response that keeps what the handler wrote. */
function response() {
  const r = { code: 0, body: '', headers: {} as Record<string, string> };
  return {
    r,
    res: {
      writeHead(code: number, headers?: Record<string, string>) {
        r.code = code;
        r.headers = headers ?? {};
      },
      end(chunk?: string) {
        r.body = chunk ?? '';
      },
    },
  };
}

test('/debug/cloud: the kinds, an item per kind, the whole inspection; 404 and 405 as Status; other paths left alone', async () => {
  const cloud = new Cloudy({ file: join(dir, 'handler.json') });
  await cloud.ensureInstances(['n0']);
  const handle = debugCloudHandler(cloud)!;
  const get = async (url: string, method = 'GET') => {
    const { r, res } = response();
    const handled = await handle({ url, method }, res);
    return { handled, code: r.code, json: r.body ? (JSON.parse(r.body) as Record<string, unknown>) : undefined };
  };
  const kinds = await get('/debug/cloud/objects');
  assert.equal((kinds.json!['kinds'] as { kind: string }[]).map((k) => k.kind), ['overview', 'instances', 'loadBalancers', 'firewalls', 'routes', 'failures']);
  const instances = await get('/debug/cloud/objects/instances');
  assert.equal([instances.code, instances.json!['count']], [200, 1]);
  const overview = await get('/debug/cloud/objects/overview');
  assert.equal([overview.json!['provider'], overview.json!['instances'], overview.json!['loadBalancers']], ['cloudy', 1, 0]);
  assert.is((await get('/debug/cloud')).json!['provider'], 'cloudy');
  const unknown = await get('/debug/cloud/objects/volumes');
  assert.equal([unknown.code, unknown.json!['kind'], unknown.json!['reason']], [404, 'Status', 'NotFound']);
  assert.match(String(unknown.json!['message']), 'it has: overview, instances');
  assert.is((await get('/debug/cloud/objects', 'POST')).code, 405);
  assert.is((await get('/debug/cloudy')).handled, false);
  assert.is((await get('/debug/machines')).handled, false);
});

test('the panel goes under the first running cloud controller; a provider without inspect() has neither panel nor handler', () => {
  assert.is(cloudPanel(['service', 'route'])!.actorId, 'service');
  assert.is(cloudPanel(['route', 'cloud-node'])!.actorId, 'route');
  assert.is(cloudPanel(['replicaset']), undefined);
  const blind: CloudProvider = { name: 'blind', providerIdScheme: 'blind://', instances: () => undefined, loadBalancer: () => undefined, routes: () => undefined, clusters: () => undefined, close: async () => {} };
  assert.is(debugCloudHandler(blind), undefined);
  assert.equal(cloudDebug(blind, ['service']), { panels: [], handlers: [] });
});

test.run();
