// The etcd client's fault handling (src/storage/etcd-fault-handling.ts) as a policy, without etcd:
// an outage is retried for a read, never for a write (a failed transaction may have been committed,
// and its retry would answer 404/409 for the write's own effect), and a cancellation never is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GRPCCancelledError, GRPCUnavailableError } from 'etcd3';
import { etcdFaultHandling, RETRY_MAX_ATTEMPTS, withoutRetry } from '../../src/storage/etcd-fault-handling.js';

function failing(err: () => Error): { attempts: () => number; call: () => Promise<never> } {
  let n = 0;
  return {
    attempts: () => n,
    call: async () => {
      n++;
      throw err();
    },
  };
}

test('an outage is retried for a read', async () => {
  const { global } = etcdFaultHandling();
  const f = failing(() => new GRPCUnavailableError('14 UNAVAILABLE: Connection dropped'));
  await global!.execute(f.call).then(
    () => assert.unreachable('it failed every time'),
    (err: unknown) => assert.instance(err, GRPCUnavailableError),
  );
  assert.is(f.attempts(), 1 + RETRY_MAX_ATTEMPTS);
});

test('an outage is not retried inside withoutRetry (a write), even through awaits; the error reaches the caller', async () => {
  const { global } = etcdFaultHandling();
  const f = failing(() => new GRPCUnavailableError('14 UNAVAILABLE: Connection dropped'));
  await withoutRetry(async () => {
    await new Promise((r) => setTimeout(r, 1));
    return global!.execute(f.call);
  }).then(
    () => assert.unreachable('it failed'),
    (err: unknown) => assert.instance(err, GRPCUnavailableError),
  );
  assert.is(f.attempts(), 1);
  // Outside it, the same policy retries again.
  const g = failing(() => new GRPCUnavailableError('14 UNAVAILABLE'));
  await global!.execute(g.call).catch(() => undefined);
  assert.is(g.attempts(), 1 + RETRY_MAX_ATTEMPTS);
});

test('a cancellation is never retried', async () => {
  const { global } = etcdFaultHandling();
  const f = failing(() => new GRPCCancelledError('1 CANCELLED'));
  await global!.execute(f.call).catch(() => undefined);
  assert.is(f.attempts(), 1);
});

test.run();
