// Object keys: built from an object or its parts, split back, for namespaced and cluster-scoped objects alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keyFor, objectKey, splitKey } from '../../src/client/index.js';

test('build and split round trip', () => {
  assert.is(objectKey({ metadata: { namespace: 'shop', name: 'web' } }), 'shop/web');
  assert.is(objectKey({ metadata: { name: 'node-1' } }), 'node-1');
  assert.is(keyFor('shop', 'web'), 'shop/web');
  assert.is(keyFor(undefined, 'node-1'), 'node-1');
  assert.is(keyFor('', 'node-1'), 'node-1');
  assert.equal(splitKey('shop/web'), { namespace: 'shop', name: 'web' });
  assert.equal(splitKey('node-1'), { namespace: undefined, name: 'node-1' });
});

test.run();
