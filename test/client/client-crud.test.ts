// CRUD through the ApiClient over HTTPS: paths from ResourceRefs, options as query, errors as ApiError.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinResourceKey, builtinResources } from '../../src/api/registry.js';
import type { SvcObject } from '../../src/api/types.js';
import { resourcePath } from '../../src/client/client.js';
import { resources, typed } from '../../src/client/typed.js';
import { ApiError, type ApiClient, type ResourceRef } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor } from '../helpers/client.js';

interface ConfigMap extends SvcObject {
  data?: Record<string, string>;
}

let server: ApiServerProcess;
let client: ApiClient;
let close: () => Promise<void>;
test.before(async () => {
  server = await startApiServer();
  ({ client, close } = clientFor(server));
});
test.after(async () => {
  await close();
  await server.stop();
  server.cleanup();
});

test('resources has a ref for every built-in kind of the registry', () => {
  const keys = builtinResources().map(builtinResourceKey).sort();
  assert.equal(Object.keys(resources).sort(), keys);
  assert.is(resources['pods.metrics.svc.io'].kind, 'PodMetrics');
  assert.is(resources.pods.kind, 'Pod');
  assert.equal(resources.deployments, { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true });
  assert.is(resources.nodes.namespaced, false);
  // A kind served in several versions: its storage version by plural, the others fully qualified.
  assert.is(resources.cronjobs.version, 'v1');
  assert.is(resources['cronjobs.v1beta1.batch'].version, 'v1beta1');
});

test('paths are built from the ref: core under /api, groups under /apis, namespace when namespaced', () => {
  assert.is(resourcePath(resources.configmaps, 'ns', 'a'), '/api/v1/namespaces/ns/configmaps/a');
  assert.is(resourcePath(resources.configmaps), '/api/v1/configmaps');
  assert.is(resourcePath(resources.leases, 'ns'), '/apis/coordination.svc.io/v1/namespaces/ns/leases');
  assert.is(resourcePath(resources.nodes, 'ignored', 'n1', 'status'), '/api/v1/nodes/n1/status');
  const custom: ResourceRef = { group: 'example.com', version: 'v1alpha1', resource: 'widgets', kind: 'Widget', namespaced: true };
  assert.is(resourcePath(custom, 'x', 'w'), '/apis/example.com/v1alpha1/namespaces/x/widgets/w');
});

test('create, get, update, patch (merge and json) and delete round-trip an object', async () => {
  const cms = typed<ConfigMap>(client, resources.configmaps);
  const created = await cms.create('default', { metadata: { name: 'crud' }, data: { a: '1' } });
  assert.ok(created.metadata.uid);
  const got = await cms.get('default', 'crud');
  assert.equal(got.data, { a: '1' });
  const updated = await cms.update('default', { ...got, data: { a: '2' } });
  assert.equal(updated.data, { a: '2' });
  const merged = await cms.patch('default', 'crud', 'merge', { data: { b: '3' } });
  assert.equal(merged.data, { a: '2', b: '3' });
  const jsonPatched = await cms.patch('default', 'crud', 'json', [{ op: 'remove', path: '/data/a' }]);
  assert.equal(jsonPatched.data, { b: '3' });
  assert.is(await cms.delete('default', 'crud'), undefined);
  const err = await cms.get('default', 'crud').catch((e: unknown) => e);
  assert.instance(err, ApiError);
  assert.is((err as ApiError).code, 404);
  assert.is((err as ApiError).reason, 'NotFound');
});

test('dryRun writes nothing; delete preconditions travel in the body', async () => {
  await client.create(resources.configmaps, 'default', { metadata: { name: 'dry' } }, { dryRun: true });
  assert.is(((await client.get(resources.configmaps, 'default', 'dry').catch((e: unknown) => e)) as ApiError).code, 404);
  const cm = await client.create<SvcObject>(resources.configmaps, 'default', { metadata: { name: 'pre' } });
  const err = await client.delete(resources.configmaps, 'default', 'pre', { preconditions: { uid: 'not-the-uid' } }).catch((e: unknown) => e);
  assert.is((err as ApiError).code, 409);
  assert.is(await client.delete(resources.configmaps, 'default', 'pre', { preconditions: { uid: cm.metadata.uid! } }), undefined);
});

test('conflicts and invalid objects are ApiErrors carrying the server Status', async () => {
  await client.create(resources.configmaps, 'default', { metadata: { name: 'dup' } });
  const dup = (await client.create(resources.configmaps, 'default', { metadata: { name: 'dup' } }).catch((e: unknown) => e)) as ApiError;
  assert.is(dup.code, 409);
  assert.is(dup.reason, 'AlreadyExists');
  assert.is(dup.status.kind, 'Status');
  const stale = await client.get(resources.configmaps, 'default', 'dup');
  await client.update(resources.configmaps, 'default', { ...stale, data: { x: '1' } });
  const conflict = (await client.update(resources.configmaps, 'default', { ...stale, data: { x: '2' } }).catch((e: unknown) => e)) as ApiError;
  assert.is(conflict.reason, 'Conflict');
  const invalid = (await client.create(resources.configmaps, 'default', { metadata: { name: 'Not_Valid' } }).catch((e: unknown) => e)) as ApiError;
  assert.is(invalid.code, 422);
  const noNs = (await client.get(resources.configmaps, '', 'x').catch((e: unknown) => e)) as ApiError;
  assert.is(noNs.code, 400);
});

test('list takes selectors and pages with limit/continue over one snapshot', async () => {
  for (let i = 0; i < 5; i++) {
    await client.create(resources.configmaps, 'default', { metadata: { name: `page-${i}`, labels: { set: 'paging', odd: String(i % 2) } } });
  }
  const names: string[] = [];
  let cont: string | undefined;
  let pages = 0;
  do {
    const page = await client.list(resources.configmaps, { namespace: 'default', labelSelector: 'set=paging', limit: 2, ...(cont ? { continue: cont } : {}) });
    names.push(...page.items.map((o) => o.metadata.name!));
    cont = page.metadata.continue || undefined;
    pages++;
  } while (cont);
  assert.is(pages, 3);
  assert.equal(names, ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
  const odd = await client.list(resources.configmaps, { namespace: 'default', labelSelector: 'set=paging,odd=1' });
  assert.equal(odd.items.map((o) => o.metadata.name), ['page-1', 'page-3']);
  const byField = await client.list(resources.configmaps, { fieldSelector: 'metadata.name=page-4' });
  assert.equal(byField.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ['default/page-4']);
});

test('cluster-scoped resources and subresources go through the same client', async () => {
  await client.create(resources.namespaces, '', { metadata: { name: 'client-ns' } });
  const ns = await client.get(resources.namespaces, '', 'client-ns');
  assert.is(ns.metadata.name, 'client-ns');
  const status = await client.subresource<SvcObject>(resources.namespaces, '', 'client-ns', 'status', 'GET');
  assert.is(status.metadata.name, 'client-ns');
});

test('discover lists the served resources at their preferred versions, with verbs, no subresources', async () => {
  const found = await client.discover();
  const pods = found.find((r) => r.group === '' && r.resource === 'pods');
  assert.ok(pods && pods.namespaced && pods.kind === 'Pod' && pods.verbs.includes('deletecollection'));
  assert.ok(found.some((r) => r.group === 'apps' && r.resource === 'deployments' && r.version === 'v1'));
  assert.ok(found.some((r) => r.group === 'batch' && r.resource === 'jobs' && r.version === 'v1'));
  // Served at v1 and v1beta1: listed once, at the group's preferred version.
  assert.equal(found.filter((r) => r.group === 'batch' && r.resource === 'cronjobs').map((r) => r.version), ['v1']);
  assert.equal(found.filter((r) => r.group === 'autoscaling' && r.resource === 'horizontalpodautoscalers').map((r) => r.version), ['v2']);
  assert.is(found.filter((r) => r.group === 'batch' && r.resource === 'jobs').length, 1);
  assert.ok(found.some((r) => r.group === 'metrics.svc.io' && r.resource === 'pods' && r.kind === 'PodMetrics'));
  assert.not.ok(found.some((r) => r.resource.includes('/')));
  // Each kind once: an aliased group (listed by the server under both spellings) in ours only.
  const ids = found.map((r) => `${r.resource}.${r.group}`);
  assert.equal(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'no resource twice');
  assert.equal(found.filter((r) => r.group.endsWith('.k8s.io')).map((r) => `${r.resource}.${r.group}`), [], 'no established spelling');
  assert.equal(found.filter((r) => r.kind === 'Lease').map((r) => `${r.resource}.${r.group}/${r.version}`), ['leases.coordination.svc.io/v1']);
});

test('deleteCollection deletes the selected objects of a namespace only', async () => {
  const cms = typed<ConfigMap>(client, resources.configmaps);
  for (const [name, tier] of [['dc-1', 'a'], ['dc-2', 'a'], ['dc-3', 'b']]) await cms.create('default', { metadata: { name, labels: { dc: tier! } } } as ConfigMap);
  await client.deleteCollection(resources.configmaps, 'default', { labelSelector: 'dc=a' });
  const left = (await cms.list({ namespace: 'default', labelSelector: 'dc' })).items.map((c) => c.metadata.name);
  assert.equal(left, ['dc-3']);
  await client.deleteCollection(resources.configmaps, 'default', { labelSelector: 'dc' });
});

test.run();
