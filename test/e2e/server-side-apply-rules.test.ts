// Server-side apply, spec "Field ownership" rules 6 (controllers force) and 9 (atomic and granular
// maps), with two managers against the real apiserver on both engines.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import type { ApiServerProcess } from '../helpers/apiserver.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const deps = '/apis/apps/v1/namespaces/default/deployments';

type Entry = { manager: string; operation: string; fieldsV1: Record<string, Record<string, unknown>> };

const deployment = (name: string, spec: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: {
    ...spec,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }], ...podSpec } },
  },
});

function apply(server: ApiServerProcess, name: string, body: unknown, manager: string, extra = '') {
  return server.request('PATCH', `${deps}/${name}?fieldManager=${manager}${extra}`, JSON.stringify(body), APPLY);
}

const entry = (obj: { metadata: { managedFields?: Entry[] } }, manager: string, operation = 'Apply') =>
  obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
const podSpecOf = (e: Entry | undefined) =>
  (((e?.fieldsV1['f:spec']?.['f:template'] as Record<string, unknown> | undefined)?.['f:spec'] ?? {}) as Record<string, unknown>);

forEachEngine('server-side apply rules 6 and 9', (test, ctx) => {
  test('rule 6: a controller that always forces wins every time; the human\'s updates never conflict', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const c1 = await apply(server, name, deployment(name, { replicas: 2 }), 'scaler', '&force=true');
    assert.is(c1.status, 201, c1.text);
    const human = await server.request('PATCH', `${deps}/${name}?fieldManager=human`, { spec: { replicas: 5 } }, MERGE);
    assert.is(human.status, 200, 'an update never conflicts');
    assert.ok(entry(human.json, 'human', 'Update')?.fieldsV1['f:spec']?.['f:replicas']);
    assert.not.ok(entry(human.json, 'scaler')?.fieldsV1['f:spec']?.['f:replicas'], 'the field moved to the human');
    const unforced = await apply(server, name, deployment(name, { replicas: 3 }), 'scaler');
    assert.is(unforced.status, 409, 'without force the controller would be stuck on the conflict');
    const c2 = await apply(server, name, deployment(name, { replicas: 3 }), 'scaler', '&force=true');
    assert.is(c2.status, 200, c2.text);
    assert.is(c2.json.spec.replicas, 3);
    assert.ok(entry(c2.json, 'scaler')!.fieldsV1['f:spec']!['f:replicas']);
    assert.not.ok(entry(c2.json, 'human', 'Update')?.fieldsV1['f:spec']?.['f:replicas'], 'force removed it from the human\'s entry');
    const again = await apply(server, name, deployment(name, { replicas: 3 }), 'scaler', '&force=true');
    assert.is(again.json.metadata.resourceVersion, c2.json.metadata.resourceVersion, 'forcing an unchanged config changes nothing');
  });

  test('rule 9: an atomic map (nodeSelector) is one field owned whole by one manager and replaced whole', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a = await apply(server, name, deployment(name, {}, { nodeSelector: { disk: 'ssd', zone: 'a' } }), 'alpha');
    assert.is(a.status, 201, a.text);
    assert.equal(podSpecOf(entry(a.json, 'alpha'))['f:nodeSelector'], {}, 'a leaf: no per-key members');
    const b = await apply(server, name, deployment(name, {}, { nodeSelector: { gpu: 'yes' } }), 'beta');
    assert.is(b.status, 409, 'another key in an atomic map changes the whole map');
    assert.equal(b.json.details.causes.map((c: { field: string }) => c.field), ['.spec.template.spec.nodeSelector']);
    const forced = await apply(server, name, deployment(name, {}, { nodeSelector: { gpu: 'yes' } }), 'beta', '&force=true');
    assert.is(forced.status, 200, forced.text);
    assert.equal(forced.json.spec.template.spec.nodeSelector, { gpu: 'yes' }, 'replaced whole, not merged');
    assert.ok(podSpecOf(entry(forced.json, 'beta'))['f:nodeSelector']);
    assert.not.ok(podSpecOf(entry(forced.json, 'alpha'))['f:nodeSelector']);
  });

  test('rule 9: a granular map (labels) merges key by key, each manager owning its own keys', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a = await apply(server, name, deployment(name, {}, {}, { tier: 'web', owner: 'alpha' }), 'alpha');
    assert.is(a.status, 201, a.text);
    const b = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { team: 'beta', tier: 'web' } } }, 'beta');
    assert.is(b.status, 200, 'a different key and the same value of a shared key do not conflict');
    assert.equal(b.json.metadata.labels, { tier: 'web', owner: 'alpha', team: 'beta' });
    assert.equal(Object.keys(entry(b.json, 'alpha')!.fieldsV1['f:metadata']!['f:labels'] as object).sort(), ['f:owner', 'f:tier']);
    assert.equal(Object.keys(entry(b.json, 'beta')!.fieldsV1['f:metadata']!['f:labels'] as object).sort(), ['f:team', 'f:tier']);
    const c = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { owner: 'beta' } } }, 'beta');
    assert.is(c.status, 409, 'changing a key alpha owns conflicts');
    assert.equal(c.json.details.causes.map((x: { field: string }) => x.field), ['.metadata.labels.owner']);
  });
});
