// The decoder shares short strings through a hash table keyed by their bytes and copies long ones
// out: every string must still come back exactly, whatever collides in the table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { protobufCodec } from '../../src/codec/protobuf/index.js';

const codec = protobufCodec();

test('20,000 distinct short keys and values (colliding in the intern table) decode exactly, twice', () => {
  const data: Record<string, string> = {};
  for (let i = 0; i < 20_000; i++) data[`k${i.toString(36)}`] = i % 3 === 0 ? '' : `v${(i * 7919).toString(36)}`;
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many', namespace: 'default' }, data };
  const body = codec.encodeObject(cm);
  assert.equal(codec.decodeObject(body), cm);
  assert.equal(codec.decodeObject(body), cm, 'the second decode is served from the table');
});

test('short, 12/13-byte boundary, long and non-ASCII strings', () => {
  const values = ['a', 'TCP', '123456789012', '1234567890123', 'x'.repeat(200), 'é', 'naïve-é', 'ü'.repeat(40), '日本語のラベル値', '\u0000\u007f'];
  const data = Object.fromEntries(values.map((v, i) => [`k${i}`, v]));
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'edge', namespace: 'default', labels: { 'é-key': 'ok' } }, data };
  assert.equal(codec.decodeObject(codec.encodeObject(cm)), cm);
});

test('an empty string field and an empty time read as absent (the established clients write every non-pointer field); empty map values stay', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', annotations: { empty: '' } }, spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: '' }], restartPolicy: '' } };
  const out = codec.decodeObject(codec.encodeObject(pod)) as typeof pod;
  assert.equal(out.spec, { containers: [{ name: 'c', image: 'i' }] });
  assert.equal(out.metadata.annotations, { empty: '' });
});

test.run();
