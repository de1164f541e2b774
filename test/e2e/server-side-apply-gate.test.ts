// The ServerSideApply feature gate off: no managedFields are kept and apply patches are refused.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const cms = '/api/v1/namespaces/default/configmaps';

forEachEngine(
  'ServerSideApply=false',
  (test, ctx) => {
    test('writes keep no managedFields', async () => {
      const { server } = ctx();
      const name = uniqueName('cm');
      const c = await server.request('POST', `${cms}?fieldManager=a`, { metadata: { name }, data: { k: 'v' } });
      assert.is(c.status, 201, c.text);
      assert.is(c.json.metadata.managedFields, undefined);
      const p = await server.request('PATCH', `${cms}/${name}`, { metadata: { managedFields: [{ manager: 'x', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] }, data: { k: 'w' } }, { 'content-type': 'application/merge-patch+json' });
      assert.is(p.status, 200, p.text);
      assert.is(p.json.metadata.managedFields, undefined);
    });

    test('apply is refused with 415 and a message naming the gate', async () => {
      const { server } = ctx();
      const name = uniqueName('cm');
      const r = await server.request('PATCH', `${cms}/${name}?fieldManager=a`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }), { 'content-type': 'application/apply-patch+yaml' });
      assert.is(r.status, 415, r.text);
      assert.is(r.json.reason, 'UnsupportedMediaType');
      assert.match(r.json.message, 'ServerSideApply');
    });
  },
  { args: ['--feature-gates=ServerSideApply=false'] },
);
