// The client's error predicates: each answers for the outcome it names and nothing else (a 409 is
// AlreadyExists or Conflict by its reason); anything that is not an ApiError answers false.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, apiError, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, isRetryLater, statusFor } from '../../src/client/index.js';

const withReason = (code: number, reason: string) => new ApiError(code, { ...statusFor(code, 'x'), reason: reason as never });

test('each predicate names its outcome', () => {
  assert.ok(isNotFound(apiError(404, 'x')));
  assert.ok(isAlreadyExists(withReason(409, 'AlreadyExists')));
  assert.ok(isConflict(withReason(409, 'Conflict')));
  assert.not.ok(isConflict(withReason(409, 'AlreadyExists')));
  assert.not.ok(isAlreadyExists(withReason(409, 'Conflict')));
  assert.ok(isInvalid(apiError(422, 'x')));
  assert.ok(isForbidden(apiError(403, 'x')));
  assert.ok(isGone(apiError(410, 'x')));
  for (const code of [429, 503, 504]) assert.ok(isRetryLater(apiError(code, 'x')), String(code));
  assert.not.ok(isRetryLater(apiError(500, 'x')));
});

test('anything but an ApiError is none of them', () => {
  for (const e of [new Error('404'), { code: 404 }, undefined, 'NotFound']) {
    for (const p of [isNotFound, isAlreadyExists, isConflict, isInvalid, isForbidden, isGone, isRetryLater]) assert.not.ok(p(e));
  }
});

test.run();
