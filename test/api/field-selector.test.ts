import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeFieldValue, parseFieldSelector, podDefinition, configMapDefinition, StatusError, type SvcObject } from '../../src/api/index.js';

const pod: SvcObject = { metadata: { name: 'p1', namespace: 'ns' }, spec: { nodeName: 'n1', restartPolicy: 'Always' }, status: { phase: 'Running' } };

test('= and == match equal values, != different ones', () => {
  assert.ok(parseFieldSelector('spec.nodeName=n1', podDefinition).matches(pod));
  assert.ok(parseFieldSelector('spec.nodeName==n1', podDefinition).matches(pod));
  assert.ok(parseFieldSelector('status.phase!=Pending', podDefinition).matches(pod));
  assert.not.ok(parseFieldSelector('status.phase!=Running', podDefinition).matches(pod));
});

test('comma joins terms with AND; an unset field compares as empty', () => {
  assert.ok(parseFieldSelector('metadata.namespace=ns,metadata.name=p1', podDefinition).matches(pod));
  assert.not.ok(parseFieldSelector('metadata.namespace=ns,metadata.name=p2', podDefinition).matches(pod));
  assert.ok(parseFieldSelector('spec.schedulerName=', podDefinition).matches(pod));
});

test('backslash escapes comma, equals and backslash in values', () => {
  const odd: SvcObject = { metadata: { name: 'a,b=c\\d', namespace: 'x' } };
  const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d', configMapDefinition);
  assert.is(sel.requirements.length, 1);
  assert.ok(sel.matches(odd));
  assert.is(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  assert.is(sel.toString(), 'metadata.name=a\\,b\\=c\\\\d');
});

test('an invalid escape sequence is a 400', () => {
  assert.throws(() => parseFieldSelector('metadata.name=a\\x', configMapDefinition), (e: unknown) => e instanceof StatusError && e.code === 400 && /escape/.test(e.message));
});

test('a field the kind cannot select on is 400 field label not supported', () => {
  try {
    parseFieldSelector('spec.nodeName=n1', configMapDefinition);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, StatusError);
    assert.is((e as StatusError).code, 400);
    assert.is((e as StatusError).message, 'field label not supported: spec.nodeName');
  }
});

test('a term without an operator is a 400', () => {
  assert.throws(() => parseFieldSelector('metadata.name', podDefinition), (e: unknown) => e instanceof StatusError && e.code === 400);
});

test('exactName is the name pinned by metadata.name= (not !=)', () => {
  assert.is(parseFieldSelector('metadata.name=p1', podDefinition).exactName(), 'p1');
  assert.is(parseFieldSelector('metadata.name==p1,spec.nodeName=n1', podDefinition).exactName(), 'p1');
  assert.is(parseFieldSelector('metadata.name!=p1', podDefinition).exactName(), undefined);
  assert.ok(parseFieldSelector('', podDefinition).empty);
});

test.run();
