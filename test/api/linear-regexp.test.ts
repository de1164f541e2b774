// Schema patterns run on RE2: unanchored search, linear time on any input, RE2 syntax only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileLinearRegExp, linearRegExpError } from '../../src/api/validation/linear-regexp.js';

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

test.run();
