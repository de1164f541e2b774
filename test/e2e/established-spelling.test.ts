// The established clients' spellings over HTTPS against a real apiserver: aliased group paths and
// bodies (stored once, in our spelling; answered in the spelling asked), discovery of both names
// and aggregated discovery, the watch-list bookmark, query booleans, OpenAPI documents, and
// strategic merge patch.
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const test = suite('established spelling');
let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer();
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

test('/apis lists each aliased group under both names (the established one first); both serve the same resources', async () => {
  const groups = (await server.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name) as string[];
  for (const g of ['coordination.svc.io', 'coordination.k8s.io', 'rbac.authorization.svc.io', 'rbac.authorization.k8s.io', 'apps']) assert.ok(groups.includes(g), g);
  assert.is(groups.indexOf('coordination.k8s.io') + 1, groups.indexOf('coordination.svc.io'), 'the established name just before ours');
  const list = await server.request('GET', '/apis/coordination.k8s.io/v1');
  assert.is(list.json.groupVersion, 'coordination.k8s.io/v1');
  assert.ok(list.json.resources.some((r: { name: string }) => r.name === 'leases'));
});

test('aggregated discovery when Accept asks for it first, with the Content-Type echoed', async () => {
  const r = await server.request('GET', '/apis', undefined, { accept: AGGREGATED });
  assert.is(r.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  assert.is(r.json.kind, 'APIGroupDiscoveryList');
  assert.is(r.json.apiVersion, 'apidiscovery.k8s.io/v2');
  const apps = r.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'apps');
  const deployments = apps.versions[0].resources.find((x: { resource: string }) => x.resource === 'deployments');
  assert.equal(deployments.responseKind, { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.is(deployments.scope, 'Namespaced');
  assert.is(deployments.singularResource, 'deployment');
  assert.ok(deployments.subresources.some((s: { subresource: string }) => s.subresource === 'scale'));
  const core = await server.request('GET', '/api', undefined, { accept: AGGREGATED.replace(/v=v2;/, 'v=v2beta1;') });
  assert.is(core.json.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  assert.ok(core.json.items[0].versions[0].resources.some((x: { resource: string }) => x.resource === 'pods'));
  const legacy = await server.request('GET', '/apis', undefined, { accept: 'application/json' });
  assert.is(legacy.json.kind, 'APIGroupList');
});

test('a body in the established spelling is stored in ours and answered in the spelling of the request', async () => {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'spelled' }, spec: { holderIdentity: 'a' } };
  const created = await server.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', lease);
  assert.is(created.status, 201, created.text);
  assert.is(created.json.apiVersion, 'coordination.k8s.io/v1');
  const ours = await server.request('GET', '/apis/coordination.svc.io/v1/namespaces/default/leases/spelled');
  assert.is(ours.json.apiVersion, 'coordination.svc.io/v1');
  const theirs = await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases');
  assert.is(theirs.json.apiVersion, 'coordination.k8s.io/v1');
  assert.is(theirs.json.items[0].apiVersion, 'coordination.k8s.io/v1');
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'rb', annotations: { keep: 'rbac.authorization.k8s.io' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'u' }],
  };
  assert.is((await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status, 201);
  const stored = (await server.request('GET', '/apis/rbac.authorization.svc.io/v1/namespaces/default/rolebindings/rb')).json;
  assert.is(stored.roleRef.apiGroup, 'rbac.authorization.svc.io');
  assert.is(stored.subjects[0].apiGroup, 'rbac.authorization.svc.io');
  assert.is(stored.metadata.annotations.keep, 'rbac.authorization.k8s.io', 'user data is not rewritten');
});

test('watch-list: the initial state, then a bookmark carrying the initial-events-end annotation', async () => {
  await server.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'wl-a' } });
  await server.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'wl-b' } });
  const r = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1');
  const events = r.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name?: string; annotations?: Record<string, string> } } });
  const end = events.findIndex((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true');
  assert.ok(end >= 2, JSON.stringify(events.map((e) => e.type)));
  assert.equal(events.slice(0, end).map((e) => e.object.metadata.name).filter((n) => n?.startsWith('wl-')), ['wl-a', 'wl-b']);
  assert.is(events[end]!.object.metadata.annotations?.['svc.io/initial-events-end'], 'true');
  const fromNow = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1');
  assert.is(fromNow.status, 200);
  assert.not.match(fromNow.text, '"type":"ADDED"', 'sendInitialEvents=false: changes from now on only');
  const bad = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true');
  assert.is(bad.status, 400);
  assert.match(bad.json.message, 'resourceVersionMatch');
});

test('query booleans in every established form (watch=True, T, t)', async () => {
  for (const v of ['True', 'T', 't', 'TRUE']) {
    const r = await server.request('GET', `/api/v1/namespaces/default/configmaps?watch=${v}&timeoutSeconds=1&allowWatchBookmarks=${v}`);
    assert.is(r.status, 200, v);
    assert.match(r.text, '"type":"ADDED"', 'a watch stream');
  }
  assert.is((await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=yes')).status, 400);
  assert.is((await server.request('GET', '/version/')).status, 200);
});

test('OpenAPI v3: an index of group versions; a document per group version with kinds, patch strategies and fieldValidation', async () => {
  const index = (await server.request('GET', '/openapi/v3')).json;
  for (const p of ['api/v1', 'apis/apps/v1', 'apis/coordination.k8s.io/v1', 'apis/coordination.svc.io/v1']) assert.ok(index.paths[p]?.serverRelativeURL.startsWith(`/openapi/v3/${p}?hash=`), p);
  const apps = await server.request('GET', index.paths['apis/apps/v1'].serverRelativeURL);
  assert.is(apps.json.openapi, '3.0.0');
  const deployment = Object.values(apps.json.components.schemas as Record<string, { 'x-kubernetes-group-version-kind'?: { kind: string }[]; properties?: Record<string, unknown> }>).find((s) => s['x-kubernetes-group-version-kind']?.[0]?.kind === 'Deployment')!;
  const containers = (deployment.properties as { spec: { properties: { template: { properties: { spec: { properties: { containers: Record<string, unknown> } } } } } } }).spec.properties.template.properties.spec.properties.containers;
  assert.is(containers['x-kubernetes-patch-merge-key'], 'name');
  assert.is(containers['x-kubernetes-patch-strategy'], 'merge');
  assert.is(containers['x-kubernetes-list-type'], 'map');
  const patch = apps.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.ok(patch.parameters.some((p: { name: string }) => p.name === 'fieldValidation'));
  assert.equal(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok('application/strategic-merge-patch+json' in patch.requestBody.content);
  const lease = (await server.request('GET', '/openapi/v3/apis/coordination.k8s.io/v1')).json;
  assert.ok(Object.values(lease.components.schemas as Record<string, { 'x-kubernetes-group-version-kind'?: { group: string }[] }>).some((s) => s['x-kubernetes-group-version-kind']?.[0]?.group === 'coordination.k8s.io'));
  const v2 = (await server.request('GET', '/openapi/v2')).json;
  assert.is(v2.swagger, '2.0');
  assert.ok(Object.keys(v2.paths).includes('/api/v1/namespaces/{namespace}/pods/{name}'));
  assert.is((await server.request('GET', '/openapi/v3/apis/nothing.example.io/v1')).status, 404);
});

test('strategic merge patch on a built-in kind: containers merge by name', async () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'smp' }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } };
  assert.is((await server.request('POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
  const r = await server.request('PATCH', '/api/v1/namespaces/default/pods/smp', { metadata: { labels: { x: 'y' } }, spec: { containers: [{ name: 'b', image: 'b:2' }] } }, { 'content-type': 'application/strategic-merge-patch+json' });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['a=a:1', 'b=b:2']);
  const bad = await server.request('PATCH', '/api/v1/namespaces/default/pods/smp', { spec: { containers: [{ image: 'no-key' }] } }, { 'content-type': 'application/strategic-merge-patch+json' });
  assert.is(bad.status, 400);
  assert.match(bad.json.message, 'merge key');
});

test('fieldValidation: Strict refuses unknown fields (400), Warn answers with a Warning header, Ignore drops them', async () => {
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, dta: { typo: 'x' } });
  const strict = await server.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', cm('fv-strict'));
  assert.is(strict.status, 400);
  assert.is(strict.json.message, 'strict decoding error: unknown field "dta"');
  assert.is((await server.request('GET', '/api/v1/namespaces/default/configmaps/fv-strict')).status, 404, 'nothing stored');
  const warn = await server.request('POST', '/api/v1/namespaces/default/configmaps', cm('fv-warn'));
  assert.is(warn.status, 201);
  assert.is(warn.headers['warning'], '299 - "unknown field \\"dta\\""');
  assert.is(warn.json.dta, undefined, 'dropped');
  const ignore = await server.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', cm('fv-ignore'));
  assert.is(ignore.status, 201);
  assert.is(ignore.headers['warning'], undefined);
  const patched = await server.request('PATCH', '/api/v1/namespaces/default/configmaps/fv-warn?fieldValidation=Strict', { spec: { x: 1 } }, { 'content-type': 'application/merge-patch+json' });
  assert.is(patched.status, 400);
  assert.match(patched.json.message, 'unknown field "spec"');
  assert.is((await server.request('GET', '/api/v1/namespaces/default/configmaps/fv-warn?fieldValidation=Bogus')).status, 400, 'an unknown mode on a read is an unknown parameter');
  assert.is((await server.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Bogus', cm('fv-bogus'))).status, 400);
});

test.run();
