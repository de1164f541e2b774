import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { labelSelectorFromObject, parseLabelSelector, StatusError } from '../../src/api/index.js';

const L = { app: 'web', tier: 'front', n: '5' };

function throws400(s: string, re: RegExp): void {
  try {
    parseLabelSelector(s);
  } catch (e) {
    assert.instance(e, StatusError);
    assert.is((e as StatusError).code, 400);
    assert.match((e as StatusError).message, re);
    return;
  }
  assert.unreachable(`expected ${s} to fail`);
}

test('equality with = and == matches only the same value', () => {
  assert.ok(parseLabelSelector('app=web').matches(L));
  assert.ok(parseLabelSelector('app==web').matches(L));
  assert.not.ok(parseLabelSelector('app=db').matches(L));
  assert.not.ok(parseLabelSelector('missing=x').matches(L));
});

test('!= matches a different value or a missing key', () => {
  assert.ok(parseLabelSelector('app!=db').matches(L));
  assert.ok(parseLabelSelector('missing!=x').matches(L));
  assert.not.ok(parseLabelSelector('app!=web').matches(L));
});

test('in and notin test set membership', () => {
  assert.ok(parseLabelSelector('app in (db, web)').matches(L));
  assert.not.ok(parseLabelSelector('app in (db)').matches(L));
  assert.ok(parseLabelSelector('app notin (db)').matches(L));
  assert.not.ok(parseLabelSelector('app notin (web,db)').matches(L));
  assert.ok(parseLabelSelector('missing notin (x)').matches(L));
});

test('a bare key requires the key, !key requires its absence', () => {
  assert.ok(parseLabelSelector('app').matches(L));
  assert.not.ok(parseLabelSelector('missing').matches(L));
  assert.ok(parseLabelSelector('!missing').matches(L));
  assert.not.ok(parseLabelSelector('!app').matches(L));
});

test('> and < compare integer values', () => {
  assert.ok(parseLabelSelector('n>3').matches(L));
  assert.not.ok(parseLabelSelector('n>5').matches(L));
  assert.ok(parseLabelSelector('n<6').matches(L));
  assert.not.ok(parseLabelSelector('app>1').matches(L));
});

test('comma joins requirements with AND', () => {
  assert.ok(parseLabelSelector('app=web,tier=front').matches(L));
  assert.not.ok(parseLabelSelector('app=web,tier=back').matches(L));
});

test('empty selector matches everything', () => {
  const s = parseLabelSelector('');
  assert.ok(s.empty);
  assert.ok(s.matches({}));
});

test('toString is canonical: sorted keys, sorted values', () => {
  assert.is(parseLabelSelector('tier in (b,a), app=web,!x').toString(), 'app=web,tier in (a,b),!x');
});

test('parse errors are 400 with what was found and expected', () => {
  throws400('app in db', /found 'db', expected: '\('/);
  throws400('app=web,', /identifier after ','/);
  throws400('app in ()', /values set can't be empty/);
  throws400('app>x', /must be an integer/);
  throws400('a b', /found 'b', expected: '=', '!=', '=='/);
  throws400('Bad Key!=x', /found/);
  throws400('app=bad value!', /./);
  throws400('-bad=x', /invalid label key "-bad"/);
});

test('object form: matchLabels and every matchExpressions operator', () => {
  const s = labelSelectorFromObject({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'back'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'n', operator: 'Exists' },
      { key: 'gone', operator: 'DoesNotExist' },
    ],
  });
  assert.ok(s.matches(L));
  assert.not.ok(s.matches({ ...L, gone: 'x' }));
  assert.is(s.toString(), 'app=web,env notin (prod),!gone,n,tier in (back,front)');
});

test('object form: a bad operator is a 400', () => {
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Is', values: ['x'] }] }), (e: unknown) => e instanceof StatusError && e.code === 400 && /operator/.test(e.message));
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), (e: unknown) => e instanceof StatusError && e.code === 400);
});

test.run();
