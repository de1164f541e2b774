import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configMapDefinition, deploymentDefinition, podDefinition, validateAgainstSchema, type SchemaNode, type SvcObject } from '../../src/api/index.js';
import { COMPILED_SCHEMAS_KEPT, compiledSchemaCount, schemaCompileError } from '../../src/api/validation/schema.js';

test('a type mismatch is a field error with the field path', () => {
  const d: SvcObject = { metadata: { name: 'd' }, spec: { replicas: 'three', template: { spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: '80' }] }] } } } };
  const errs = validateAgainstSchema(deploymentDefinition, d);
  assert.equal(errs.map((e) => e.field), ['spec.replicas', 'spec.template.spec.containers[0].ports[0].containerPort']);
  assert.is(errs[0]!.type, 'FieldValueTypeInvalid');
  assert.is(errs[0]!.message, 'Invalid value: "three": must be of type integer, not string');
});

test('map values are reported as field[key]', () => {
  const errs = validateAgainstSchema(configMapDefinition, { metadata: { name: 'c', labels: { a: 1 as unknown as string } }, data: { k: 5 } });
  assert.equal(errs.map((e) => e.field).sort(), ['data[k]', 'metadata.labels[a]']);
});

test('unknown fields of built-in kinds are dropped silently', () => {
  const p: SvcObject = { metadata: { name: 'p', bogus: 1 } as SvcObject['metadata'], spec: { containers: [{ name: 'c', image: 'x', colour: 'red' }], extra: true }, junk: 1 };
  assert.equal(validateAgainstSchema(podDefinition, p), []);
  assert.equal(p, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
});

test('free-form parts keep their fields, structural parts drop unknown ones, and null reads as unset', () => {
  const p: SvcObject = {
    metadata: { name: 'p', creationTimestamp: null as unknown as string },
    spec: { affinity: { nodeAffinity: { x: 1 } }, securityContext: { y: 2 }, containers: [{ name: 'c', image: 'x', ports: null }] },
  };
  assert.equal(validateAgainstSchema(podDefinition, p), []);
  assert.equal((p.spec as Record<string, unknown>)['securityContext'], { y: 2 });
  assert.equal((p.spec as Record<string, unknown>)['affinity'], { nodeAffinity: {} });
});

test('int-or-string fields take either', () => {
  const d: SvcObject = { metadata: { name: 'd' }, spec: { strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' } } } };
  assert.equal(validateAgainstSchema(deploymentDefinition, d), []);
  const bad: SvcObject = { metadata: { name: 'd' }, spec: { strategy: { rollingUpdate: { maxSurge: true } } } };
  assert.equal(validateAgainstSchema(deploymentDefinition, bad).map((e) => e.field), ['spec.strategy.rollingUpdate.maxSurge']);
});

test('schemas carry the merge markers: containers keyed by name, ports by containerPort+protocol, finalizers a set', () => {
  const spec = podDefinition.schema.properties!['spec']!;
  const containers = spec.properties!['containers']!;
  assert.is(containers['x-svc-list-type'], 'map');
  assert.equal(containers['x-svc-list-map-keys'], ['name']);
  assert.equal(containers.items!.properties!['ports']!['x-svc-list-map-keys'], ['containerPort', 'protocol']);
  assert.equal(containers.items!.properties!['env']!['x-svc-list-map-keys'], ['name']);
  const meta = podDefinition.schema.properties!['metadata']!;
  assert.is(meta.properties!['finalizers']!['x-svc-list-type'], 'set');
  assert.equal(meta.properties!['ownerReferences']!['x-svc-list-map-keys'], ['uid']);
  assert.is(meta.properties!['labels']!['x-svc-map-type'], 'granular');
});

test('compiled schemas are kept by content and bounded: rewriting CRDs does not grow the validator cache', () => {
  const schemaOf = (i: number) => ({ type: 'object', properties: { [`f${i}`]: { type: 'string', pattern: `^a{${i % 7}}$` } } }) as SchemaNode;
  const start = compiledSchemaCount();
  assert.is(schemaCompileError(schemaOf(1)), undefined);
  assert.is(schemaCompileError(schemaOf(1)), undefined);
  assert.ok(compiledSchemaCount() <= start + 1, 'the same schema twice is compiled once');
  for (let i = 0; i < COMPILED_SCHEMAS_KEPT * 2; i++) assert.is(schemaCompileError(schemaOf(i)), undefined);
  assert.ok(compiledSchemaCount() <= start + COMPILED_SCHEMAS_KEPT, `ajv holds ${compiledSchemaCount() - start} schemas`);
  const bad = { type: 'object', properties: { x: { type: 'string', pattern: '(?=look-ahead)' } } } as SchemaNode;
  const before = compiledSchemaCount();
  assert.ok(schemaCompileError(bad));
  assert.is(compiledSchemaCount(), before, 'a schema that does not compile is not kept');
});

test.run();
