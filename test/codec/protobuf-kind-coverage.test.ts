import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as kinds from '../../src/api/kinds/index.js';
import type { ResourceDefinition } from '../../src/api/index.js';
import { buildWireModel, protobufProblems, protobufSupport, wireModel } from '../../src/codec/protobuf/index.js';
import { PROTO_PACKAGES } from '../../src/api/kinds/proto/index.js';
import { KIND_FIXTURES } from './protobuf-fixtures.js';

const defs = Object.values(kinds).filter((v): v is ResourceDefinition => typeof v === 'object' && v !== null && 'schema' in v && 'kind' in v);

test('every kind that offers Protobuf has a field number of a matching type for every field its schema models', () => {
  const offering = defs.filter((d) => 'message' in protobufSupport(d));
  assert.ok(offering.length >= 9);
  for (const d of offering) assert.equal(protobufProblems(d).problems, [], d.kind);
});

test('the core kinds ConfigMap, Secret, Namespace, Pod, Node, Service, Endpoints, Event, ServiceAccount offer Protobuf', () => {
  const offered = new Set(defs.filter((d) => 'message' in protobufSupport(d)).map((d) => d.kind));
  for (const k of ['ConfigMap', 'Secret', 'Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'Event', 'ServiceAccount']) assert.ok(offered.has(k), k);
});

test('every kind that offers Protobuf has a round-trip fixture', () => {
  for (const d of defs) if ('message' in protobufSupport(d)) assert.ok(KIND_FIXTURES[d.kind], `no fixture for ${d.kind}`);
});

test('a modelled field without a number makes the kind not offer Protobuf', () => {
  const pod = kinds.podDefinition;
  const schema = structuredClone(pod.schema);
  schema.properties!['spec']!.properties!['brandNewField'] = { type: 'string' };
  const changed: ResourceDefinition = { ...pod, schema };
  const support = protobufSupport(changed);
  assert.ok('reason' in support);
  assert.match((support as { reason: string }).reason, 'spec.brandNewField: no field number');
});

test('a field number used twice in one message is refused when the tables are read', () => {
  const broken = PROTO_PACKAGES.map((p) => (p.package !== 'svc.api.core.v1' ? p : { ...p, messages: { ...p.messages, PodIP: { fields: { ip: '1 string', other: '1 string' } } } }));
  assert.throws(() => buildWireModel(broken), /PodIP uses field number 1 twice/);
});

test('the ListMeta, ObjectMeta, Time and envelope numbers are the established ones', () => {
  const m = wireModel().messages;
  const num = (msg: string, f: string) => m.get(msg)!.byName.get(f)!.number;
  assert.equal([num('Unknown', 'typeMeta'), num('Unknown', 'raw'), num('Unknown', 'contentEncoding'), num('Unknown', 'contentType')], [1, 2, 3, 4]);
  assert.equal([num('TypeMeta', 'apiVersion'), num('TypeMeta', 'kind')], [1, 2]);
  assert.equal([num('Time', 'seconds'), num('Time', 'nanos')], [1, 2]);
  assert.equal([num('ListMeta', 'resourceVersion'), num('ListMeta', 'continue'), num('ListMeta', 'remainingItemCount')], [2, 3, 4]);
  assert.equal([num('ObjectMeta', 'name'), num('ObjectMeta', 'creationTimestamp'), num('ObjectMeta', 'managedFields')], [1, 8, 17]);
  assert.equal([num('PodList', 'metadata'), num('PodList', 'items')], [1, 2]);
  assert.equal([num('WatchEvent', 'type'), num('WatchEvent', 'object'), num('RawExtension', 'raw')], [1, 2, 1]);
});

test.run();
