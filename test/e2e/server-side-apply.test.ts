// Server-side apply, spec "Field ownership" rules 1, 2, 3, 5, 6 and 9, with two managers on both engines.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import type { ApiServerProcess } from '../helpers/apiserver.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const deps = '/apis/apps/v1/namespaces/default/deployments';

const deployment = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec });
const selector = (name: string) => ({ selector: { matchLabels: { app: name } } });
const template = (name: string, containers: unknown[]) => ({ template: { metadata: { labels: { app: name } }, spec: { containers } } });

function apply(server: ApiServerProcess, name: string, body: unknown, manager: string, extra = '') {
  return server.request('PATCH', `${deps}/${name}?fieldManager=${manager}${extra}`, typeof body === 'string' ? body : JSON.stringify(body), APPLY);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const entry = (obj: any, manager: string, operation = 'Apply') => obj.metadata.managedFields?.find((e: any) => e.manager === manager && e.operation === operation);

forEachEngine('server-side apply', (test, ctx) => {
  test('rule 1: an apply is a PATCH with application/apply-patch+yaml; YAML and JSON bodies both work', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: nginx
`;
    const y = await apply(server, name, yaml, 'yaml-tool');
    assert.is(y.status, 201, y.text);
    const j = await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'yaml-tool');
    assert.is(j.status, 200, j.text);
    assert.is(j.json.metadata.resourceVersion, y.json.metadata.resourceVersion, 'the same configuration in JSON is a no-op');
  });

  test('rule 1: fieldManager is required and managedFields may not be sent (400)', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const body = JSON.stringify(deployment(name, { replicas: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }));
    const noManager = await server.request('PATCH', `${deps}/${name}`, body, APPLY);
    assert.is(noManager.status, 400, noManager.text);
    assert.match(noManager.json.message, 'fieldManager is required');
    const withManaged = await apply(server, name, { ...JSON.parse(body), metadata: { name, managedFields: [{ manager: 'x' }] } }, 'a');
    assert.is(withManaged.status, 400);
    assert.match(withManaged.json.message, 'managedFields');
  });

  test('rule 1: apiVersion, kind and name must be set and match the path (400)', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const cases: [unknown, string][] = [
      [{ kind: 'Deployment', metadata: { name } }, 'apiVersion must be set'],
      [{ apiVersion: 'apps/v1', metadata: { name } }, 'kind must be set'],
      [{ apiVersion: 'v1', kind: 'Deployment', metadata: { name } }, 'API version'],
      [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name } }, 'kind in the data'],
      [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'other' } }, 'does not match the name on the URL'],
      [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {} }, 'metadata.name must be set'],
      ['a: [unclosed', 'not valid YAML'],
    ];
    for (const [body, msg] of cases) {
      const r = await apply(server, name, body, 'a');
      assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.match(r.json.message, msg);
    }
  });

  test('rule 2: an absent object is created (201) with an Apply entry in FieldsV1', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const r = await apply(server, name, deployment(name, { replicas: 3, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.is(r.status, 201, r.text);
    const e = entry(r.json, 'alpha');
    assert.ok(e, JSON.stringify(r.json.metadata.managedFields));
    assert.is(e.apiVersion, 'apps/v1');
    assert.is(e.fieldsType, 'FieldsV1');
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(e.fieldsV1['f:spec']['f:replicas'], {});
    assert.equal(e.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'], { '.': {}, 'f:image': {}, 'f:name': {} });
    assert.is(e.fieldsV1['f:metadata'], undefined, 'name is not tracked');
    assert.is(r.json.spec.template.spec.containers[0].imagePullPolicy, 'Always', 'defaults still apply');
  });

  test('rule 2: applying twice with the same manager is idempotent (no new resourceVersion)', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const body = deployment(name, { replicas: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) });
    const a = await apply(server, name, body, 'alpha');
    const b = await apply(server, name, body, 'alpha');
    assert.is(b.status, 200, b.text);
    assert.is(b.json.metadata.resourceVersion, a.json.metadata.resourceVersion);
    assert.equal(b.json.metadata.managedFields, a.json.metadata.managedFields);
  });

  test('rule 2: the configuration merges into the live object and the applied value wins', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await apply(server, name, deployment(name, { replicas: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    const r = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { tier: 'front' } }, spec: { minReadySeconds: 5 } }, 'beta');
    assert.is(r.status, 200, r.text);
    assert.is(r.json.spec.replicas, 1, 'alpha\'s fields stay');
    assert.is(r.json.spec.minReadySeconds, 5);
    assert.equal(r.json.metadata.labels, { tier: 'front' });
    const c = await apply(server, name, deployment(name, { replicas: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx:2' }]) }), 'alpha');
    assert.is(c.json.spec.template.spec.containers[0].image, 'nginx:2');
    assert.is(c.json.spec.minReadySeconds, 5, 'beta\'s field is untouched');
  });

  test('rule 3: list items only this applier set are removed when it drops them; others\' items stay', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a1 = await apply(server, name, deployment(name, { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }, { name: 'sidecar', image: 'envoy' }]) }), 'alpha');
    assert.is(a1.status, 201, a1.text);
    const b = await apply(server, name, deployment(name, template(name, [{ name: 'logger', image: 'fluentd' }])), 'beta');
    assert.is(b.status, 200, b.text);
    assert.equal(b.json.spec.template.spec.containers.map((c: { name: string }) => c.name), ['web', 'sidecar', 'logger']);
    const a2 = await apply(server, name, deployment(name, { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.is(a2.status, 200, a2.text);
    assert.equal(a2.json.spec.template.spec.containers.map((c: { name: string }) => c.name), ['web', 'logger'], 'sidecar (alpha only) is gone, logger (beta) stays');
  });

  test('rule 3: an item another manager also claims stays when this applier drops it', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await apply(server, name, deployment(name, { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }, { name: 'shared', image: 'envoy' }]) }), 'alpha');
    await apply(server, name, deployment(name, template(name, [{ name: 'shared', image: 'envoy' }])), 'beta');
    const r = await apply(server, name, deployment(name, { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.equal(r.json.spec.template.spec.containers.map((c: { name: string }) => c.name), ['web', 'shared']);
    assert.ok(entry(r.json, 'beta').fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"shared"}']);
  });

  test('rule 3: map entries and fields the applier dropped go when no one else owns them', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const base = { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) };
    await apply(server, name, { ...deployment(name, { ...base, minReadySeconds: 3 }), metadata: { name, labels: { a: '1', b: '2' } } }, 'alpha');
    await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { b: '2' } } }, 'beta');
    const r = await apply(server, name, deployment(name, base), 'alpha');
    assert.is(r.status, 200, r.text);
    assert.equal(r.json.metadata.labels, { b: '2' }, 'label a (alpha only) removed, b (shared with beta) kept');
    assert.is(r.json.spec.minReadySeconds, undefined, 'dropped field no one else owns is removed');
  });

  test('rule 5: a second applier changing an owned field gets 409 with a cause per field and manager', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await apply(server, name, deployment(name, { replicas: 2, minReadySeconds: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    const before = await server.request('GET', `${deps}/${name}`);
    const r = await apply(server, name, deployment(name, { replicas: 5 }), 'beta');
    assert.is(r.status, 409, r.text);
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.reason, 'Conflict');
    assert.equal(r.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.replicas' }]);
    assert.match(r.json.message, 'Apply failed with 1 conflict');
    const two = await apply(server, name, deployment(name, { replicas: 5, minReadySeconds: 9 }), 'beta');
    assert.is(two.status, 409);
    assert.equal(two.json.details.causes.map((c: { field: string }) => c.field).sort(), ['.spec.minReadySeconds', '.spec.replicas']);
    const after = await server.request('GET', `${deps}/${name}`);
    assert.is(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion, 'nothing was written');
  });

  test('rule 5: force=true takes the field and removes it from the other manager', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    const r = await apply(server, name, deployment(name, { replicas: 5 }), 'beta', '&force=true');
    assert.is(r.status, 200, r.text);
    assert.is(r.json.spec.replicas, 5);
    assert.equal(entry(r.json, 'beta').fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.is(entry(r.json, 'alpha').fieldsV1['f:spec']['f:replicas'], undefined);
    assert.ok(entry(r.json, 'alpha').fieldsV1['f:spec']['f:selector'], 'alpha keeps its other fields');
    // Rule 6 (controllers always force): the former owner now conflicts in turn unless it forces.
    const back = await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.is(back.status, 409);
    assert.equal(back.json.details.causes[0].message, 'conflict with "beta"');
  });

  test('rule 5: applying the same value shares ownership; dropping the field keeps the other value', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a = await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    const b = await apply(server, name, deployment(name, { replicas: 2 }), 'beta');
    assert.is(b.status, 200, b.text);
    assert.ok(entry(b.json, 'alpha').fieldsV1['f:spec']['f:replicas']);
    assert.ok(entry(b.json, 'beta').fieldsV1['f:spec']['f:replicas']);
    assert.is.not(b.json.metadata.resourceVersion, a.json.metadata.resourceVersion, 'the new owner is recorded');
    const c = await apply(server, name, deployment(name, { ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.is(c.json.spec.replicas, 2, 'beta still owns replicas, so the value stays');
    assert.is(entry(c.json, 'alpha').fieldsV1['f:spec']['f:replicas'], undefined);
  });

  test('rule 5: an Update by a kubectl-like manager takes the field; a later apply conflicts with it', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    const u = await server.request('PATCH', `${deps}/${name}`, { spec: { replicas: 4 } }, { 'content-type': 'application/merge-patch+json', 'user-agent': 'kubectl/v1.31.9 (linux/amd64) svc/abc' });
    assert.is(u.status, 200, u.text);
    assert.equal(entry(u.json, 'kubectl', 'Update').fieldsV1, { 'f:spec': { 'f:replicas': {} } }, 'updates never conflict; the field moves');
    assert.is(entry(u.json, 'alpha').fieldsV1['f:spec']['f:replicas'], undefined);
    const r = await apply(server, name, deployment(name, { replicas: 2, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) }), 'alpha');
    assert.is(r.status, 409, r.text);
    assert.equal(r.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' }]);
  });

  test('rule 9: a set list merges by value and an atomic list is replaced whole by one manager', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const c = (args: string[]) => [{ name: 'web', image: 'nginx', args }];
    const a = await apply(server, name, { ...deployment(name, { ...selector(name), ...template(name, c(['-a'])) }), metadata: { name, finalizers: ['x.io/a'] } }, 'alpha');
    assert.is(a.status, 201, a.text);
    const b = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, finalizers: ['x.io/b'] } }, 'beta');
    assert.equal(b.json.metadata.finalizers, ['x.io/a', 'x.io/b']);
    assert.ok(entry(b.json, 'beta').fieldsV1['f:metadata']['f:finalizers']['v:"x.io/b"']);
    const args = await apply(server, name, deployment(name, template(name, c(['-b']))), 'beta');
    assert.is(args.status, 409, 'args is atomic: owned whole by alpha');
    assert.equal(args.json.details.causes.map((x: { field: string }) => x.field), ['.spec.template.spec.containers[name="web"].args']);
  });

  test('dry run works with apply: the result comes back, nothing is stored', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const body = deployment(name, { replicas: 1, ...selector(name), ...template(name, [{ name: 'web', image: 'nginx' }]) });
    const dry = await apply(server, name, body, 'alpha', '&dryRun=All');
    assert.is(dry.status, 201, dry.text);
    assert.ok(entry(dry.json, 'alpha'));
    assert.is((await server.request('GET', `${deps}/${name}`)).status, 404);
    const real = await apply(server, name, body, 'alpha');
    const dry2 = await apply(server, name, deployment(name, { replicas: 7 }), 'beta', '&dryRun=All&force=true');
    assert.is(dry2.status, 200, dry2.text);
    assert.is(dry2.json.spec.replicas, 7);
    const after = await server.request('GET', `${deps}/${name}`);
    assert.is(after.json.spec.replicas, 1);
    assert.is(after.json.metadata.resourceVersion, real.json.metadata.resourceVersion);
  });
});
