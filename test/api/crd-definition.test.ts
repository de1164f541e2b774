// A CRD becomes ResourceDefinitions of the built-in shape; the registry serves them at run time
// (outside --runtime-config) and tells listeners; printer columns become Table columns.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  builtinResources,
  customResourceDefinitions,
  parseSimpleJsonPath,
  ResourceRegistry,
  validateAgainstSchema,
  type SvcObject,
} from '../../src/api/index.js';

function crd(extra: Record<string, unknown> = {}): SvcObject {
  return {
    metadata: { name: 'widgets.example.com', uid: 'u1' },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
      versions: [
        { name: 'v1', served: true, storage: true, ...extra },
        { name: 'v2alpha1', served: false, storage: false },
      ],
    },
  };
}

test('only served versions become definitions, with the CRD names, scope and all verbs', () => {
  const defs = customResourceDefinitions(crd());
  assert.is(defs.length, 1);
  const d = defs[0]!;
  assert.equal([d.group, d.version, d.kind, d.listKind, d.plural, d.singular, d.namespaced], ['example.com', 'v1', 'Widget', 'WidgetList', 'widgets', 'widget', false]);
  assert.equal(d.shortNames, ['wd']);
  assert.equal(d.subresources, []);
  assert.is(d.verbs.length, 8);
  assert.equal(d.selectableFields({ metadata: { name: 'a' } }), { 'metadata.name': 'a' });
});

test('custom resources are unstructured without a schema: every field is kept', () => {
  const d = customResourceDefinitions(crd())[0]!;
  const o: SvcObject = { metadata: { name: 'a' }, spec: { x: [1, { y: 2 }] }, other: true };
  assert.equal(validateAgainstSchema(d, o), []);
  assert.equal(o, { metadata: { name: 'a' }, spec: { x: [1, { y: 2 }] }, other: true });
});

test('with a schema: unknown fields are pruned (an object without properties is empty) and types checked', () => {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' }, bag: { type: 'object' } } } } };
  const d = customResourceDefinitions(crd({ schema: { openAPIV3Schema: schema } }))[0]!;
  const o: SvcObject = { metadata: { name: 'a' }, spec: { n: 1, zap: 1, bag: { k: 'v' } }, other: true };
  assert.equal(validateAgainstSchema(d, o), []);
  assert.equal(o, { metadata: { name: 'a' }, spec: { n: 1, bag: {} } });
  const errs = validateAgainstSchema(d, { metadata: { name: 'a' }, spec: { n: 'x' } });
  assert.equal(errs.map((e) => e.field), ['spec.n']);
});

test('subresources, scale paths and printer columns come from the version', () => {
  const d = customResourceDefinitions(
    crd({
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      additionalPrinterColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'First', type: 'string', jsonPath: ".spec.items[0]['a.b']", priority: 1 },
        { name: 'Since', type: 'date', jsonPath: '.status.at' },
      ],
    }),
  )[0]!;
  assert.equal(d.subresources, ['status', 'scale']);
  assert.ok(d.hasStatus);
  assert.equal(d.scale, { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'status.selector' });
  const t = d.tableColumns!;
  assert.equal(t.columns.map((c) => [c.name, c.type, c.priority]), [['Name', 'string', 0], ['Replicas', 'integer', 0], ['First', 'string', 1], ['Since', 'date', 0]]);
  const now = Date.parse('2024-01-01T01:00:00Z');
  const o: SvcObject = { metadata: { name: 'w' }, spec: { replicas: 2, items: [{ 'a.b': 'z' }] }, status: { at: '2024-01-01T00:00:00Z' } };
  assert.equal(t.cells(o, now), ['w', 2, 'z', '60m']);
  assert.equal(t.cells({ metadata: { name: 'e' }, spec: { replicas: 'two' } }, now), ['e', null, null, null]);
});

test('simple JSONPath: dots, indexes, quoted keys and braces', () => {
  assert.equal(parseSimpleJsonPath('.spec.a'), ['spec', 'a']);
  assert.equal(parseSimpleJsonPath("{.metadata.labels['app.io/x']}"), ['metadata', 'labels', 'app.io/x']);
  assert.equal(parseSimpleJsonPath('.items[3].name'), ['items', 3, 'name']);
  assert.is(parseSimpleJsonPath('spec..a['), undefined);
});

test('registry: custom definitions are served at run time, outside --runtime-config, and listeners hear of it', () => {
  const r = new ResourceRegistry(builtinResources(), { 'api/all': 'false', v1: 'true' });
  let changes = 0;
  r.onChange(() => changes++);
  const defs = customResourceDefinitions(crd());
  assert.is(r.nameConflict('widgets.example.com', defs[0]!), undefined);
  r.setDynamic('widgets.example.com', defs);
  assert.is(r.lookup('example.com', 'v1', 'widgets'), defs[0]);
  assert.equal(r.resolveName('wd'), defs);
  assert.ok(r.groups().some((g) => g.name === 'example.com'));
  const other = { ...defs[0]!, plural: 'gadgets', listKind: 'GadgetList', shortNames: [] };
  assert.equal(r.nameConflict('gadgets.example.com', other), { reason: 'KindConflict', message: '"Widget" is already in use' });
  assert.is(r.nameConflict('widgets.example.com', defs[0]!), undefined, 'its own names are no conflict');
  r.removeDynamic('widgets.example.com');
  assert.is(r.lookup('example.com', 'v1', 'widgets'), undefined);
  assert.not.ok(r.groups().some((g) => g.name === 'example.com'));
  assert.is(changes, 2);
});

test.run();
