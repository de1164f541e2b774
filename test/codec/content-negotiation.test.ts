// The spec's content-type rules in the negotiation module: Accept clauses in q order with
// fallbacks, conversion parameters select the Table, 406 and 415 when nothing fits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statusCodeOf } from '../helpers/status-code.js';
import { StatusError } from '../../src/api/status.js';
import {
  JSON_REPRESENTATION,
  negotiateRequest,
  negotiateResponse,
  parseAccept,
  TABLE_REPRESENTATION,
} from '../../src/codec/negotiation.js';

const READ = [JSON_REPRESENTATION, TABLE_REPRESENTATION];
const TABLE = 'application/json;as=Table;g=meta.svc;v=v1beta1';
const pick = (accept: string | undefined, offered = READ) => negotiateResponse(accept, offered).representation;
const codeOf = statusCodeOf;

test('no Accept, */* and application/* give JSON (the default representation)', () => {
  assert.is(pick(undefined), 'json');
  assert.is(pick(''), 'json');
  assert.is(pick('*/*'), 'json');
  assert.is(pick('application/*'), 'json');
});

test('the Table media type with its g and v selects the Table', () => {
  assert.is(pick(TABLE), 'table');
  assert.is(pick('application/json; as=Table; v=v1beta1; g=meta.svc'), 'table');
  assert.is(negotiateResponse(TABLE, READ).contentType, TABLE);
});

test('rule 2: a client lists fallbacks; the first acceptable clause wins', () => {
  assert.is(pick(`${TABLE},application/json`), 'table');
  assert.is(pick(`${TABLE},application/json`, [JSON_REPRESENTATION]), 'json');
  assert.is(pick('application/vnd.svc.protobuf,application/json'), 'json');
});

test('q-values order the clauses; ties keep the order given; q=0 is refused', () => {
  assert.is(pick(`application/json;q=0.5,${TABLE};q=0.9`), 'table');
  assert.is(pick(`${TABLE};q=0.4,application/json;q=0.8`), 'json');
  assert.is(pick(`application/json;q=0.7,${TABLE};q=0.7`), 'json');
  assert.is(codeOf(() => pick('application/json;q=0')), 406);
  assert.equal(parseAccept('a/b;q=0.2,c/d').map((r) => r.type), ['c/d', 'a/b']);
});

test('as=Table of another group or version is not offered; meta.k8s.io is the established spelling of meta.svc', () => {
  assert.is(codeOf(() => pick('application/json;as=Table;g=meta.example.io;v=v1')), 406);
  assert.is(codeOf(() => pick('application/json;as=Table;g=meta.svc;v=v2')), 406);
  assert.is(codeOf(() => pick('application/json;as=Table')), 406);
  // Only v1beta1 is offered in READ here; the router offers v1 too (test/api/established-spelling.test.ts).
  assert.is(pick('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'), 'table');
  assert.is(negotiateResponse('application/json;as=Table;v=v1beta1;g=meta.k8s.io', READ).contentType, 'application/json;as=Table;g=meta.k8s.io;v=v1beta1');
});

test('parameters other than as, g and v are ignored', () => {
  assert.is(pick('application/json;charset=utf-8'), 'json');
  assert.is(pick(`${TABLE};pretty=1`), 'table');
});

test('rule 1: nothing acceptable is a 406 naming what the server can produce', () => {
  try {
    pick('application/vnd.svc.protobuf');
    assert.unreachable();
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.is(err.status.code, 406);
    assert.is(err.status.reason, 'NotAcceptable');
    assert.match(err.status.message ?? '', /application\/json/);
  }
  assert.is(codeOf(() => pick('text/html')), 406);
  assert.is(codeOf(() => pick(TABLE, [JSON_REPRESENTATION])), 406);
});

test('the request format is chosen on its own: absent is JSON, unsupported is 415', () => {
  assert.is(negotiateRequest(undefined, ['application/json']), 'application/json');
  assert.is(negotiateRequest('application/yaml; charset=utf-8', ['application/json', 'application/yaml']), 'application/yaml');
  assert.is(codeOf(() => negotiateRequest('text/plain', ['application/json'])), 415);
});

test.run();
