// Field sets in the established FieldsV1 format: path elements, `.` for members with children, set algebra.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FieldSet, formatPath } from '../../src/apiserver/apply/index.js';
import { StatusError } from '../../src/api/status.js';

const fieldsV1 = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:template': {
      'f:spec': {
        'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
        'f:finalizers': { 'v:"a"': {} },
        'f:items': { 'i:0': {} },
      },
    },
  },
};

test('FieldsV1 round trip: leaves are {} and a member with children carries "."', () => {
  const set = FieldSet.fromFieldsV1(fieldsV1);
  assert.equal(set.toFieldsV1(), fieldsV1);
  assert.equal(FieldSet.of(set.paths()).toFieldsV1(), fieldsV1, 'a set built from the same paths encodes the same document');
  assert.ok(set.has(['f:spec', 'f:replicas']));
  assert.ok(set.has(['f:metadata', 'f:labels']), '"." makes the labels map itself a member');
  assert.not.ok(set.has(['f:spec']), 'a parent with only children is not a member');
  assert.ok(set.covers(['f:spec']));
});

test('FieldsV1 orders "." first, then f:, k:, v:, i: elements', () => {
  const set = FieldSet.of([['i:1'], ['v:"x"'], ['k:{"a":1}'], ['f:z'], ['f:a'], ['i:0'], ['f:a', 'f:b']]);
  assert.equal(Object.keys(set.toFieldsV1()), ['f:a', 'f:z', 'k:{"a":1}', 'v:"x"', 'i:0', 'i:1']);
  assert.equal(Object.keys(set.toFieldsV1()['f:a'] as object), ['.', 'f:b']);
});

test('union, difference and intersection work on paths, not subtrees', () => {
  const a = FieldSet.of([['f:spec', 'f:replicas'], ['f:spec', 'f:paused'], ['f:metadata', 'f:labels', 'f:app']]);
  const b = FieldSet.of([['f:spec', 'f:replicas'], ['f:spec', 'f:minReadySeconds']]);
  assert.equal(a.union(b).paths().length, 4);
  assert.equal(a.intersection(b).paths(), [['f:spec', 'f:replicas']]);
  assert.equal(a.difference(b).paths(), [['f:metadata', 'f:labels', 'f:app'], ['f:spec', 'f:paused']]);
  const item = FieldSet.of([['f:c', 'k:{"name":"x"}'], ['f:c', 'k:{"name":"x"}', 'f:image']]);
  const without = item.difference(FieldSet.of([['f:c', 'k:{"name":"x"}']]));
  assert.equal(without.paths(), [['f:c', 'k:{"name":"x"}', 'f:image']], 'removing an item path keeps what is below it');
  assert.ok(a.difference(a).isEmpty());
});

test('the operations share what they leave unchanged, and never change their operands', () => {
  const labels = Array.from({ length: 1000 }, (_, i) => ['f:metadata', 'f:labels', `f:k${i}`]);
  const a = FieldSet.fromFieldsV1(FieldSet.of(labels).toFieldsV1());
  const before = JSON.stringify(a.toFieldsV1());
  const one = FieldSet.of([['f:metadata', 'f:labels', 'f:k1']]);
  const other = FieldSet.of([['f:spec', 'f:x']]);
  assert.is(a.difference(other), a, 'nothing to take away: the same set');
  assert.is(a.presentIn(a), a);
  assert.is(a.union(FieldSet.of([])), a);
  const less = a.difference(one);
  assert.is(less.paths().length, 999);
  assert.not.ok(less.has(['f:metadata', 'f:labels', 'f:k1']));
  const more = less.union(other);
  assert.is(more.paths().length, 1000);
  assert.ok(more.has(['f:spec', 'f:x']));
  assert.is(less.paths().length, 999, 'union left its operand as it was');
  assert.is(JSON.stringify(a.toFieldsV1()), before, 'difference left its operand as it was');
  assert.equal(a.presentIn(less).paths().length, 999);
  assert.ok(more.equals(FieldSet.of([...labels.filter((p) => p[2] !== 'f:k1'), ['f:spec', 'f:x']])));
  assert.not.ok(more.equals(less));
});

test('untouchedBy gives the outermost paths the other set does not touch', () => {
  const last = FieldSet.of([['f:spec', 'f:replicas'], ['f:spec', 'f:c', 'k:{"name":"a"}'], ['f:spec', 'f:c', 'k:{"name":"a"}', 'f:image'], ['f:spec', 'f:c', 'k:{"name":"b"}', 'f:image'], ['f:metadata', 'f:labels', 'f:x']]);
  const keep = FieldSet.of([['f:spec', 'f:c', 'k:{"name":"b"}', 'f:image']]);
  assert.equal(last.untouchedBy(keep, ['f:metadata']).paths(), [['f:metadata', 'f:labels'], ['f:spec', 'f:c', 'k:{"name":"a"}'], ['f:spec', 'f:replicas']]);
});

test('malformed FieldsV1 is a 400 naming the bad element', () => {
  try {
    FieldSet.fromFieldsV1({ 'f:spec': { 'x:bad': {} } });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, StatusError);
    assert.is((err as StatusError).code, 400);
    assert.match((err as StatusError).message, 'x:bad');
  }
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:{nope': {} }));
  assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': [] }));
});

test('paths print as conflict causes name them', () => {
  assert.is(formatPath(['f:spec', 'f:replicas']), '.spec.replicas');
  assert.is(formatPath(['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image']), '.spec.containers[name="web"].image');
  assert.is(formatPath(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']), '.ports[containerPort=80,protocol="TCP"]');
  assert.is(formatPath(['f:finalizers', 'v:"a"']), '.finalizers[="a"]');
  assert.is(formatPath(['f:args', 'i:2']), '.args[2]');
});

test.run();
