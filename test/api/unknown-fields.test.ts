// The fields a kind's schema does not know, found as schema validation prunes them: nested
// objects, keyed lists, maps (any key) and preserve-unknown parts (anything) are walked as the
// pruning walks them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinResources } from '../../src/api/registry.js';
import { unknownFields } from '../../src/api/validation/unknown-fields.js';

const pod = builtinResources().find((d) => d.kind === 'Pod')!.schema;

test('a valid pod has none', () => {
  assert.equal(unknownFields({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { any: 'key' } }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: '1' }] }] } }, pod), []);
});

test('unknown fields at every level, with their paths', () => {
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', nmae: 'x' }, spec: { containers: [{ name: 'c', image: 'i', imagePolicy: 'Always' }], restart: 'Never' }, extra: 1 };
  assert.equal(unknownFields(obj, pod), ['extra', 'metadata.nmae', 'spec.containers[0].imagePolicy', 'spec.restart']);
});

test('the walk stops at the limit', () => {
  const spec: Record<string, number> = {};
  for (let i = 0; i < 100; i++) spec[`f${i}`] = i;
  assert.is(unknownFields({ spec }, pod, 5).length, 5);
});

test.run();
