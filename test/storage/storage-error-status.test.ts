/**
 * One mapping from storage failures to API answers (issue 8): an etcd outage is 503/504 on every
 * path (watches included), a value etcd refuses as too large is 413 (retrying cannot help), and
 * an unexpected etcd answer is a logged 500, never disguised as an outage clients retry forever.
 */
import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ClientClosedError,
  EtcdPermissionDeniedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInvalidArgumentError,
  GRPCResourceExhastedError,
  GRPCUnavailableError,
} from 'etcd3';
import { storageErrorStatus } from '../../src/apiserver/resource-store.js';
import { mapEtcdError } from '../../src/storage/etcd.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  StorageFaultError,
  StorageUnavailableError,
  ValueTooLargeError,
} from '../../src/storage/types.js';

const logger = pino({ level: 'silent' });
const ref = { group: '', resource: 'configmaps', name: 'x' };
const code = (err: unknown) => storageErrorStatus(mapEtcdError(err), logger, ref).status.code;

test('etcd outages are 503, deadlines 504, both with Retry-After', () => {
  assert.instance(mapEtcdError(new GRPCUnavailableError('14 UNAVAILABLE: No connection established')), StorageUnavailableError);
  assert.is(code(new GRPCUnavailableError('14 UNAVAILABLE: No connection established')), 503);
  assert.is(code(new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED')), 504);
  // A cancelled stream or a closed client says the store went away, not that the request was bad.
  assert.is(code(new GRPCCancelledError('1 CANCELLED')), 503);
  assert.is(code(new ClientClosedError('kv')), 503);
  const s = storageErrorStatus(new StorageUnavailableError('down'), logger).status;
  assert.is(s.details?.retryAfterSeconds, 1);
});

test('the etcd client\'s open circuit breaker (etcd thought down) is a 503 outage, not a 500', async () => {
  const { BrokenCircuitError } = await import('cockatiel');
  assert.instance(mapEtcdError(new BrokenCircuitError()), StorageUnavailableError);
  assert.is(code(new BrokenCircuitError()), 503);
});

test('a value over etcd\'s request limit is 413 on every spelling etcd and gRPC use', () => {
  assert.instance(mapEtcdError(new GRPCInvalidArgumentError('etcdserver: request is too large')), ValueTooLargeError);
  assert.is(code(new GRPCInvalidArgumentError('etcdserver: request is too large')), 413);
  assert.is(code(new GRPCResourceExhastedError('8 RESOURCE_EXHAUSTED: Received message larger than max (2097152 vs. 1572864)')), 413);
});

test('an unexpected etcd answer is a 500 storage fault, not an outage', () => {
  assert.instance(mapEtcdError(new EtcdPermissionDeniedError('etcdserver: permission denied')), StorageFaultError);
  assert.is(code(new EtcdPermissionDeniedError('etcdserver: permission denied')), 500);
  assert.is(code(new Error('something else')), 500);
});

test('contract errors keep their established answers', () => {
  assert.is(storageErrorStatus(new CompactedError(5, 9), logger, ref).status.code, 410);
  assert.is(storageErrorStatus(new FutureRevisionError(50, 9), logger, ref).status.code, 504);
  assert.is(storageErrorStatus(new KeyExistsError('k'), logger, ref).status.code, 409);
  assert.is(storageErrorStatus(new KeyNotFoundError('k'), logger, ref).status.code, 404);
  assert.is(storageErrorStatus(new ConflictError('k', { key: 'k', value: new Uint8Array(), createRevision: 1, modRevision: 2 }), logger, ref).status.code, 409);
  assert.is(storageErrorStatus(new StorageFaultError('x'), logger, ref).status.code, 500);
});

test.run();
