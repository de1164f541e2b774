// Equal managedFields trees of stored objects are one shared, frozen tree; different ones are not
// merged; the caller's frozen objects are left alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { ObjectView } from '../../src/storage/object-view.js';

const pod = (name: string, field: string): SvcObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, managedFields: [{ manager: 'm', operation: 'Update', fieldsV1: { 'f:status': { [field]: {}, 'f:phase': {} } } }] },
});
const tree = (v: ObjectView) => (v.object.metadata.managedFields![0] as { fieldsV1: object }).fieldsV1;

test('equal trees are shared and frozen; different ones stay apart', () => {
  const a = new ObjectView('a', pod('a', 'f:podIP'), 1);
  const b = new ObjectView('b', pod('b', 'f:podIP'), 2);
  const c = new ObjectView('c', pod('c', 'f:hostIP'), 3);
  assert.ok(tree(a) === tree(b), 'one tree for both');
  assert.ok(tree(a) !== tree(c));
  assert.ok(Object.isFrozen(tree(a)));
  assert.equal(tree(c), { 'f:status': { 'f:hostIP': {}, 'f:phase': {} } });
  assert.equal(JSON.parse(b.json.toString()).metadata.managedFields[0].fieldsV1, { 'f:status': { 'f:podIP': {}, 'f:phase': {} } });
});

test('an object already frozen is not touched', () => {
  const frozen = Object.freeze(pod('f', 'f:podIP'));
  Object.freeze(frozen.metadata);
  const v = new ObjectView('f', frozen, 4);
  assert.ok(v.object === frozen);
});

test.run();
