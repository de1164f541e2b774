// Field ownership of ordinary writes, spec "Field ownership" rules 4, 7 and 8, and the managedFields entry.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const deps = '/apis/apps/v1/namespaces/default/deployments';
const cms = '/api/v1/namespaces/default/configmaps';

const deployment = (name: string, replicas = 2) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const entry = (obj: any, manager: string, operation = 'Update') => obj.metadata.managedFields?.find((e: any) => e.manager === manager && e.operation === operation);
const managers = (obj: { metadata: { managedFields?: { manager: string; operation: string; subresource?: string }[] } }) =>
  (obj.metadata.managedFields ?? []).map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);

forEachEngine('field ownership', (test, ctx) => {
  test('managedFields entry: POST records an Update entry named after the User-Agent prefix', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    const r = await server.request('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: '1' } }, data: { k: 'v' } }, { 'user-agent': 'kubectl/v1.31.9 (linux/amd64) svc/abcdef' });
    assert.is(r.status, 201, r.text);
    assert.equal(r.json.metadata.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        time: r.json.metadata.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      },
    ]);
  });

  test('managedFields entry: fieldManager names the manager; no User-Agent gives "unknown"', async () => {
    const { server } = ctx();
    const a = await server.request('POST', `${cms}?fieldManager=my-tool`, { metadata: { name: uniqueName('cm') }, data: { k: 'v' } });
    assert.equal(managers(a.json), ['my-tool/Update']);
    const b = await server.request('POST', cms, { metadata: { name: uniqueName('cm') }, data: { k: 'v' } }, { 'user-agent': '' });
    assert.equal(managers(b.json), ['unknown/Update']);
    const long = await server.request('POST', `${cms}?fieldManager=${'x'.repeat(129)}`, { metadata: { name: uniqueName('cm') } });
    assert.is(long.status, 400);
  });

  test('rule 4: ownership moves to the manager that last changed a field (PUT, merge patch, JSON patch)', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const c = await server.request('POST', `${deps}?fieldManager=creator`, deployment(name));
    assert.is(c.status, 201, c.text);
    assert.ok(entry(c.json, 'creator').fieldsV1['f:spec']['f:replicas']);
    assert.ok(entry(c.json, 'creator').fieldsV1['f:spec']['f:progressDeadlineSeconds'], 'defaulted fields belong to the creator');
    const m = await server.request('PATCH', `${deps}/${name}?fieldManager=scaler&force=true`, { spec: { replicas: 3 } }, MERGE);
    assert.is(m.status, 200, `force is ignored by non-apply patches: ${m.text}`);
    assert.equal(entry(m.json, 'scaler').fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.is(entry(m.json, 'creator').fieldsV1['f:spec']['f:replicas'], undefined, 'the field left the creator');
    const j = await server.request('PATCH', `${deps}/${name}?fieldManager=patcher`, [{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }], JSON_PATCH);
    assert.equal(entry(j.json, 'patcher').fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } });
    const body = { ...j.json, spec: { ...j.json.spec, minReadySeconds: 4 } };
    const p = await server.request('PUT', `${deps}/${name}?fieldManager=replacer`, body);
    assert.is(p.status, 200, p.text);
    assert.equal(entry(p.json, 'replacer').fieldsV1, { 'f:spec': { 'f:minReadySeconds': {} } }, 'only what the PUT changed');
    assert.equal(managers(p.json).sort(), ['creator/Update', 'patcher/Update', 'replacer/Update', 'scaler/Update']);
  });

  test('rule 4: an update that changes nothing leaves managedFields and the resourceVersion alone', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    const c = await server.request('POST', `${cms}?fieldManager=a`, { metadata: { name }, data: { k: 'v' } });
    const p = await server.request('PATCH', `${cms}/${name}?fieldManager=b`, { data: { k: 'v' } }, MERGE);
    assert.is(p.json.metadata.resourceVersion, c.json.metadata.resourceVersion);
    assert.equal(managers(p.json), ['a/Update']);
  });

  test('rule 4: a removed field leaves every manager; a manager left with nothing is dropped', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    await server.request('POST', `${cms}?fieldManager=a`, { metadata: { name }, data: { k: 'v' } });
    await server.request('PATCH', `${cms}/${name}?fieldManager=b`, { data: { k2: 'v2' } }, MERGE);
    const r = await server.request('PATCH', `${cms}/${name}?fieldManager=c`, { data: { k2: null } }, MERGE);
    assert.equal(managers(r.json).sort(), ['a/Update']);
  });

  test('rule 4: an apply takes fields from an Update manager only by force; the Update never conflicts', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    await server.request('PATCH', `${cms}/${name}?fieldManager=applier`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'applied' } }), APPLY);
    const u = await server.request('PATCH', `${cms}/${name}?fieldManager=editor`, { data: { k: 'edited' } }, MERGE);
    assert.is(u.status, 200, 'an Update over an applied field does not conflict');
    assert.ok(entry(u.json, 'editor').fieldsV1['f:data']['f:k']);
    assert.is(entry(u.json, 'applier', 'Apply'), undefined, 'the applier lost its only field');
    const f = await server.request('PATCH', `${cms}/${name}?fieldManager=applier&force=true`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'applied' } }), APPLY);
    assert.is(f.status, 200, f.text);
    assert.equal(managers(f.json), ['applier/Apply']);
  });

  test('rule 8: a merge patch setting managedFields to [{}] strips it; [] does not', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    await server.request('POST', `${cms}?fieldManager=a`, { metadata: { name }, data: { k: 'v' } });
    const empty = await server.request('PATCH', `${cms}/${name}?fieldManager=b`, { metadata: { managedFields: [] } }, MERGE);
    assert.equal(managers(empty.json), ['a/Update'], 'an empty list does not reset');
    const reset = await server.request('PATCH', `${cms}/${name}?fieldManager=b`, { metadata: { managedFields: [{}] } }, MERGE);
    assert.is(reset.status, 200, reset.text);
    assert.is(reset.json.metadata.managedFields, undefined);
    const g = await server.request('GET', `${cms}/${name}`);
    assert.is(g.json.metadata.managedFields, undefined, 'stored without managedFields');
  });

  test('rule 8: a JSON patch reset that also changes fields: the reset comes first, the caller owns the changes', async () => {
    const { server } = ctx();
    const name = uniqueName('cm');
    await server.request('POST', `${cms}?fieldManager=a`, { metadata: { name }, data: { k: 'v' } });
    const r = await server.request(
      'PATCH',
      `${cms}/${name}?fieldManager=resetter`,
      [
        { op: 'replace', path: '/metadata/managedFields', value: [{}] },
        { op: 'add', path: '/data/extra', value: 'x' },
      ],
      JSON_PATCH,
    );
    assert.is(r.status, 200, r.text);
    assert.equal(managers(r.json), ['resetter/Update']);
    assert.equal(entry(r.json, 'resetter').fieldsV1, { 'f:data': { 'f:extra': {} } });
  });

  test('rule 7: the status subresource tracks ownership as its own entry; scale does not track', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await server.request('POST', `${deps}?fieldManager=creator`, deployment(name));
    const st = await server.request('PUT', `${deps}/${name}/status?fieldManager=controller`, { ...(await server.request('GET', `${deps}/${name}`)).json, status: { replicas: 2, readyReplicas: 1 } });
    assert.is(st.status, 200, st.text);
    const e = st.json.metadata.managedFields.find((x: { manager: string }) => x.manager === 'controller');
    assert.is(e.subresource, 'status');
    assert.equal(e.fieldsV1, { 'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} } });
    const sp = await server.request('PATCH', `${deps}/${name}/status?fieldManager=other`, { status: { readyReplicas: 2 } }, MERGE);
    assert.ok(sp.json.metadata.managedFields.find((x: { manager: string; subresource?: string }) => x.manager === 'other' && x.subresource === 'status'));
    const before = (await server.request('GET', `${deps}/${name}`)).json;
    const sc = await server.request('PATCH', `${deps}/${name}/scale?fieldManager=autoscaler`, { spec: { replicas: 6 } }, MERGE);
    assert.is(sc.status, 200, sc.text);
    const after = (await server.request('GET', `${deps}/${name}`)).json;
    assert.is(after.spec.replicas, 6);
    assert.equal(after.metadata.managedFields, before.metadata.managedFields, 'scale takes no full object: no ownership recorded');
  });

  test('rule 7: apply on the status subresource records an Apply entry for status only', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await server.request('POST', `${deps}?fieldManager=creator`, deployment(name));
    const r = await server.request(
      'PATCH',
      `${deps}/${name}/status?fieldManager=ctl`,
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 9 }, status: { observedGeneration: 1 } }),
      APPLY,
    );
    assert.is(r.status, 200, r.text);
    assert.is(r.json.spec.replicas, 2, 'spec ignored on /status');
    assert.is(r.json.status.observedGeneration, 1);
    const e = entry(r.json, 'ctl', 'Apply');
    assert.is(e.subresource, 'status');
    assert.equal(e.fieldsV1, { 'f:status': { 'f:observedGeneration': {} } });
  });
});
