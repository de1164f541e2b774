// Discovery documents and the non-resource endpoints (/version, health, /metrics).
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const test = suite('discovery and server endpoints');
let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer();
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

test('/api lists v1', async () => {
  const r = await server.request('GET', '/api');
  assert.is(r.json.kind, 'APIVersions');
  assert.equal(r.json.versions, ['v1']);
});

test('/api/v1 lists core resources with kind, namespaced, verbs, shortNames and subresources', async () => {
  const r = await server.request('GET', '/api/v1');
  assert.is(r.json.kind, 'APIResourceList');
  assert.is(r.json.groupVersion, 'v1');
  const by = new Map(r.json.resources.map((x: { name: string }) => [x.name, x]));
  const pods = by.get('pods') as { kind: string; namespaced: boolean; verbs: string[]; shortNames: string[] };
  assert.is(pods.kind, 'Pod');
  assert.is(pods.namespaced, true);
  assert.ok(pods.shortNames.includes('po'));
  for (const v of ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']) assert.ok(pods.verbs.includes(v), v);
  for (const sub of ['pods/status', 'pods/binding', 'nodes/status', 'services/status', 'replicationcontrollers/scale', 'namespaces/finalize']) {
    assert.ok(by.has(sub), sub);
  }
  assert.is((by.get('namespaces') as { namespaced: boolean }).namespaced, false);
  for (const name of ['namespaces', 'pods', 'nodes', 'services', 'endpoints', 'configmaps', 'secrets', 'serviceaccounts', 'events', 'replicationcontrollers', 'persistentvolumes', 'persistentvolumeclaims', 'resourcequotas', 'limitranges']) {
    assert.ok(by.has(name), name);
  }
});

test('/apis lists every group with its preferred version; each group and version is served', async () => {
  const r = await server.request('GET', '/apis');
  assert.is(r.json.kind, 'APIGroupList');
  const groups = new Map(r.json.groups.map((g: { name: string; preferredVersion: { version: string } }) => [g.name, g.preferredVersion.version]));
  const expected: Record<string, [string, string[]]> = {
    apps: ['v1', ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'controllerrevisions', 'deployments/scale', 'deployments/status']],
    batch: ['v1', ['jobs']],
    'coordination.svc.io': ['v1', ['leases']],
    'discovery.svc.io': ['v1beta1', ['endpointslices']],
    policy: ['v1beta1', ['poddisruptionbudgets']],
    autoscaling: ['v1', ['horizontalpodautoscalers']],
    'rbac.authorization.svc.io': ['v1', ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings']],
    'certificates.svc.io': ['v1', ['certificatesigningrequests']],
  };
  for (const [group, [version, resources]] of Object.entries(expected)) {
    assert.ok(groups.has(group), `group ${group}`);
    const g = await server.request('GET', `/apis/${group}`);
    assert.is(g.json.kind, 'APIGroup');
    const list = await server.request('GET', `/apis/${group}/${version}`);
    assert.is(list.status, 200, `${group}/${version}`);
    const names = list.json.resources.map((x: { name: string }) => x.name);
    for (const res of resources) assert.ok(names.includes(res), `${group}/${version} ${res}`);
  }
  const cj = await server.request('GET', '/apis/batch/v1beta1');
  assert.ok(cj.json.resources.some((x: { name: string }) => x.name === 'cronjobs'));
});

test('/version', async () => {
  const r = await server.request('GET', '/version');
  assert.is(r.status, 200);
  assert.type(r.json.major, 'string');
  assert.type(r.json.gitVersion, 'string');
});

test('/healthz, /livez, /readyz with sub-paths and ?verbose', async () => {
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const r = await server.request('GET', p);
    assert.is(r.status, 200);
    assert.is(r.text, 'ok');
    const v = await server.request('GET', `${p}?verbose`);
    assert.match(v.text, /\[\+\]ping ok/);
    assert.match(v.text, /check passed/);
    const one = await server.request('GET', `${p}/ping`);
    assert.is(one.status, 200);
    const missing = await server.request('GET', `${p}/nope`);
    assert.is(missing.status, 404);
  }
  const kv = await server.request('GET', '/readyz/kvstore');
  assert.is(kv.status, 200);
});

test('/metrics is Prometheus text with request counts by verb, resource and code', async () => {
  await server.request('GET', '/api/v1/namespaces/default/configmaps');
  await server.request('GET', '/api/v1/namespaces/default/configmaps/missing');
  const r = await server.request('GET', '/metrics');
  assert.is(r.status, 200);
  assert.match(r.headers['content-type'] as string, /text\/plain/);
  assert.match(r.text, /apiserver_request_total\{[^}]*verb="LIST"[^}]*resource="configmaps"[^}]*code="200"[^}]*\} \d+/);
  assert.match(r.text, /apiserver_request_total\{[^}]*verb="GET"[^}]*code="404"[^}]*\} \d+/);
  assert.match(r.text, /apiserver_request_duration_seconds_bucket/);
});

test('HTTP/2 is served on the same port', async () => {
  const { connect } = await import('node:http2');
  const { readFileSync } = await import('node:fs');
  const session = connect(server.url, { ca: readFileSync(server.caFile, 'utf8'), servername: 'localhost' });
  const body = await new Promise<string>((resolve, reject) => {
    const req = session.request({ ':path': '/api/v1/namespaces/default' });
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
  session.close();
  assert.is(JSON.parse(body).metadata.name, 'default');
});

test.run();
