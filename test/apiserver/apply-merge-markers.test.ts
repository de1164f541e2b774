// Field paths and the apply merge follow the schema markers: list-type atomic/set/map, map-type atomic/granular.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fieldSetOf, mergeApplied, objectFields, removeFields, FieldSet } from '../../src/apiserver/apply/index.js';
import { deploymentDefinition, serviceDefinition } from '../../src/api/index.js';
import { atomicList, mapList, mapOf, obj, setList, str, int32, stringMap } from '../../src/api/kinds/schema-dsl.js';

const schema = obj({
  keyed: mapList(['name'], obj({ name: str(), image: str(), port: int32() })),
  multiKey: mapList(['port', 'protocol'], obj({ port: int32(), protocol: str(), name: str() })),
  tags: setList(),
  args: atomicList(str()),
  plain: { type: 'array', items: str() },
  labels: stringMap(),
  selector: stringMap('atomic'),
  nested: obj({ a: str(), b: str() }),
  sealed: obj({ a: str(), b: str() }, { 'x-svc-map-type': 'atomic' }),
  byName: mapOf(obj({ x: str(), y: str() })),
});

// The field set of an applied configuration (maps own only their entries).
const v1 = (o: unknown) => fieldSetOf(objectFields(o, schema, undefined, false)).toFieldsV1();

test('list-type map items are k:<keys>, with "." and their fields', () => {
  assert.equal(v1({ keyed: [{ name: 'a', image: 'x' }] }), { 'f:keyed': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } });
  assert.equal(v1({ multiKey: [{ protocol: 'TCP', port: 80 }] }), { 'f:multiKey': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} } } });
});

test('set items are v:<value>; atomic and unmarked lists are one leaf', () => {
  assert.equal(v1({ tags: ['b', 'a'] }), { 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } });
  assert.equal(v1({ args: ['a', 'b'], plain: ['c'] }), { 'f:args': {}, 'f:plain': {} });
});

test('granular maps have per-key members; atomic maps and structs are one leaf', () => {
  assert.equal(v1({ labels: { app: 'x' }, selector: { app: 'x' }, nested: { a: '1' }, sealed: { a: '1' } }), {
    'f:labels': { 'f:app': {} },
    'f:nested': { 'f:a': {} },
    'f:sealed': {},
    'f:selector': {},
  });
  assert.equal(v1({ byName: { k: { x: '1' } } }), { 'f:byName': { 'f:k': { '.': {}, 'f:x': {} } } });
});

test('an update records a granular map it created as a member itself (".")', () => {
  assert.equal(fieldSetOf(objectFields({ labels: { app: 'x' }, nested: { a: '1' } }, schema)).toFieldsV1(), { 'f:labels': { '.': {}, 'f:app': {} }, 'f:nested': { 'f:a': {} } });
});

test('without a schema every key is a struct field and every list atomic', () => {
  assert.equal(fieldSetOf(objectFields({ a: { b: [1, 2], c: { d: 1 } }, e: {} }, undefined)).toFieldsV1(), { 'f:a': { 'f:b': {}, 'f:c': { 'f:d': {} } }, 'f:e': {} });
});

test('merge: keyed lists merge item by item, the applied value wins, live-only items stay', () => {
  const live = { keyed: [{ name: 'a', image: 'x', port: 1 }, { name: 'b', image: 'y' }] };
  const out = mergeApplied(live, { keyed: [{ name: 'a', image: 'z' }, { name: 'c', image: 'w' }] }, schema);
  assert.equal(out, { keyed: [{ name: 'a', image: 'z', port: 1 }, { name: 'b', image: 'y' }, { name: 'c', image: 'w' }] });
});

test('merge: sets take the union, atomic lists and maps are replaced whole', () => {
  const live = { tags: ['a', 'b'], args: ['1', '2'], selector: { a: '1', b: '2' }, sealed: { a: '1', b: '2' } };
  const out = mergeApplied(live, { tags: ['c', 'a'], args: ['3'], selector: { c: '3' }, sealed: { b: '9' } }, schema);
  assert.equal(out, { tags: ['a', 'b', 'c'], args: ['3'], selector: { c: '3' }, sealed: { b: '9' } });
});

test('merge: granular maps and structs merge key by key', () => {
  const out = mergeApplied({ labels: { a: '1', b: '2' }, nested: { a: 'x', b: 'y' } }, { labels: { b: '3' }, nested: { a: 'z' } }, schema);
  assert.equal(out, { labels: { a: '1', b: '3' }, nested: { a: 'z', b: 'y' } });
});

test('removeFields drops whole items and fields by path', () => {
  const o = { keyed: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }], tags: ['a', 'b'], labels: { x: '1', y: '2' } };
  removeFields(o, schema, FieldSet.of([['f:keyed', 'k:{"name":"a"}'], ['f:tags', 'v:"b"'], ['f:labels', 'f:y'], ['f:keyed', 'k:{"name":"b"}', 'f:image']]));
  assert.equal(o, { keyed: [{ name: 'b' }], tags: ['a'], labels: { x: '1' } });
});

test('built-in kinds carry the markers: Deployment containers by name, Service ports by port and protocol', () => {
  const d = { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } } };
  const dv = fieldSetOf(objectFields(d, deploymentDefinition.schema)).toFieldsV1() as Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
  assert.ok(dv['f:spec']!['f:template']!['f:spec']!['f:containers']!['k:{"name":"web"}']);
  const s = { spec: { ports: [{ port: 80, protocol: 'TCP' }] } };
  const sv = JSON.stringify(fieldSetOf(objectFields(s, serviceDefinition.schema)).toFieldsV1());
  assert.match(sv, 'k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}');
});

test.run();
