// Status bodies as the established server writes them: Go's struct order (kind, apiVersion,
// metadata, status, message, reason, details, code; details as name, group, kind, uid, causes,
// retryAfterSeconds; a cause as reason, message, field) and `omitempty` (no empty group, name or
// details). Clients compare these bytes (the Python client's create_from_yaml reports them).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alreadyExists, invalid, notFound, StatusError, statusObject, successStatus, timeoutTooLargeResourceVersion, tooManyRequests } from '../../src/api/status.js';

const text = (v: unknown) => JSON.stringify(v);

test('a 409 for a core object: details {name, kind}, no empty group, code last', () => {
  assert.is(
    text(alreadyExists({ group: '', resource: 'configmaps', name: 'x' }).status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"x\\" already exists","reason":"AlreadyExists","details":{"name":"x","kind":"configmaps"},"code":409}',
  );
});

test('a 404 in a named group: details {name, group, kind}', () => {
  assert.is(
    text(notFound({ group: 'apps', resource: 'deployments', name: 'd' }).status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"d\\" not found","reason":"NotFound","details":{"name":"d","group":"apps","kind":"deployments"},"code":404}',
  );
});

test('a 422: causes after kind, each cause as reason, message, field', () => {
  const s = invalid('Deployment', 'd', 'apps', [{ field: 'spec.replicas', type: 'FieldValueInvalid', message: 'must be greater than or equal to 0' }]).status;
  assert.equal(Object.keys(s), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
  assert.equal(Object.keys(s.details!), ['name', 'group', 'kind', 'causes']);
  assert.equal(Object.keys(s.details!.causes![0]!), ['reason', 'message', 'field']);
});

test('retryAfterSeconds after causes; no details at all when there are none', () => {
  assert.equal(Object.keys(timeoutTooLargeResourceVersion('too large', 1).status.details!), ['causes', 'retryAfterSeconds']);
  assert.equal(Object.keys(tooManyRequests('slow down', 2).status), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
  assert.equal(Object.keys(new StatusError(400, 'BadRequest', 'bad').status), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
  assert.equal(Object.keys(new StatusError(400, 'BadRequest', 'bad', { group: '' }).status), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
});

test('a Success Status: details in order, no message or reason', () => {
  assert.is(
    text(successStatus({ kind: 'pods', uid: 'u', name: 'p' })),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"p","kind":"pods","uid":"u"},"code":200}',
  );
  assert.equal(statusObject('Success', 201), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
});

test.run();
