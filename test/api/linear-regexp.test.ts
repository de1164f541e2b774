// Schema patterns run on RE2: unanchored search, linear time on any input, RE2 syntax only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { customResourceDefinitions, validateAgainstSchema } from '../../src/api/index.js';
import { compileLinearRegExp, linearRegExpError, PATTERN_STEP_BUDGET } from '../../src/api/validation/linear-regexp.js';

test('a pattern searches anywhere in the input unless anchored', () => {
  assert.ok(compileLinearRegExp('b+').test('abbbc'));
  assert.not.ok(compileLinearRegExp('^b+$').test('abbbc'));
  assert.ok(compileLinearRegExp('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$').test('web-1'));
  assert.ok(compileLinearRegExp('\\d{2}').test('x42'));
});

test('catastrophic backtracking patterns answer on long inputs (a backtracking engine would not finish)', () => {
  const re = compileLinearRegExp('^(a+)+$');
  assert.not.ok(re.test(`${'a'.repeat(50_000)}!`));
  assert.ok(re.test('a'.repeat(50_000)));
  assert.not.ok(compileLinearRegExp('^(a|aa)*$').test(`${'a'.repeat(50_000)}b`));
});

test('syntax RE2 does not have is refused with the reason', () => {
  assert.match(linearRegExpError('(a)\\1') ?? '', /invalid escape sequence/);
  assert.match(linearRegExpError('x(?=y)') ?? '', /unsupported Perl syntax/);
  assert.match(linearRegExpError('(') ?? '', /missing closing \)/);
  assert.is(linearRegExpError('^ok$'), undefined);
});

/** The served definition of a one-version CRD whose spec.s has `pattern`. */
function definitionWithPattern(plural: string, pattern: string) {
  const openAPIV3Schema = { type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string', pattern } } } } };
  const crd = { metadata: { name: `${plural}.example.com`, uid: plural }, spec: { group: 'example.com', scope: 'Cluster', names: { plural, kind: plural }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] } };
  return customResourceDefinitions(crd)[0]!;
}

test('each schema runs its own pattern through the shared ajv (ajv keys compiled patterns by their string form)', () => {
  const letters = definitionWithPattern('letters', '^[a-z]+$');
  const digits = definitionWithPattern('digits', '^[0-9]+$');
  assert.is(String(compileLinearRegExp('^[a-z]+$')), '/^[a-z]+$/');
  assert.equal(validateAgainstSchema(letters, { metadata: { name: 'l' }, spec: { s: 'abc' } }), []);
  assert.equal(validateAgainstSchema(digits, { metadata: { name: 'd' }, spec: { s: '123' } }), []);
  assert.equal(validateAgainstSchema(digits, { metadata: { name: 'd' }, spec: { s: 'abc' } }).map((e) => e.field), ['spec.s']);
  assert.equal(validateAgainstSchema(letters, { metadata: { name: 'l' }, spec: { s: '123' } }).map((e) => e.field), ['spec.s']);
});

test('a check is held to its step budget: inputs too long for a complex pattern are refused unrun, with the reason', () => {
  const wide = compileLinearRegExp('[a-z]{1000}x');
  assert.ok(wide.size >= 1000);
  assert.ok(wide.test(`${'a'.repeat(5_000)}x`));
  const long = `${'a'.repeat(1_000_000)}!x`;
  assert.ok(wide.overBudget(long));
  assert.not.ok(wide.test(long));
  const simple = compileLinearRegExp('^[a-z!]+x$');
  assert.not.ok(simple.overBudget(long), 'a small program checks a megabyte');
  assert.ok(simple.test(long));
  const def = definitionWithPattern('wides', '[a-z]{1000}x');
  const errs = validateAgainstSchema(def, { metadata: { name: 'w' }, spec: { s: long } });
  assert.equal(errs.map((e) => [e.field, e.type]), [['spec.s', 'FieldValueTooLong']]);
  assert.match(errs[0]!.message, `this server checks at most ${Math.floor(PATTERN_STEP_BUDGET / wide.size)} characters`);
  assert.equal(validateAgainstSchema(def, { metadata: { name: 'w' }, spec: { s: `${'b'.repeat(2_000)}x` } }), []);
});

test.run();
