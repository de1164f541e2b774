// Retries: a real 429 (--max-requests-inflight=1 with a slot held open) is retried after Retry-After.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from 'xstate';
import { connect } from '../../src/client/connect.js';
import { parseRetryAfter } from '../../src/client/http-transport.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import type { RetryInfo } from '../../src/client/http-transport.js';
import { advance } from '../helpers/sim.js';

let server: ApiServerProcess;
test.before(async () => {
  server = await startApiServer({ args: ['--max-requests-inflight=1'] });
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

/** Holds the one read slot: a GET with a resourceVersion from the future waits 3 s, then 504. */
async function holdReadSlot(): Promise<{ held: Promise<unknown> }> {
  const list = await server.request('GET', '/api/v1/namespaces');
  const future = Number(list.json.metadata.resourceVersion) + 1000;
  const held = server.request('GET', `/api/v1/namespaces/default/configmaps/x?resourceVersion=${future}`);
  // The slot is taken once another read is refused.
  await eventually(async () => (await server.request('GET', '/version')).status === 429, 2000, 'the held slot');
  // Wrapped: an async function returning the promise itself would wait for it.
  return { held };
}

test('Retry-After is read as seconds or as an HTTP date', () => {
  assert.is(parseRetryAfter('3', 0), 3);
  assert.is(parseRetryAfter(new Date(10_000).toUTCString(), 5_000), 5);
  assert.is(parseRetryAfter('soon', 0), undefined);
  assert.is(parseRetryAfter(undefined, 0), undefined);
});

test('without retries a real 429 is an ApiError carrying Retry-After', async () => {
  const { client, close } = connect({ svcconfig: writeSvcconfig(server), qps: 0, retry: { maxAttempts: 1 } });
  const { held } = await holdReadSlot();
  try {
    const err = (await client.get(resources.namespaces, '', 'default').catch((e: unknown) => e)) as ApiError;
    assert.instance(err, ApiError);
    assert.is(err.code, 429);
    assert.is(err.reason, 'TooManyRequests');
    assert.is(err.retryAfterSeconds, 1);
  } finally {
    await held;
    await close();
  }
});

test('a 429 is retried only after the Retry-After time has passed on the client clock', async () => {
  const clock = new SimulatedClock();
  clock.set(Date.now());
  const retries: RetryInfo[] = [];
  const { client, close } = connect({ svcconfig: writeSvcconfig(server), qps: 0, clock, onRetry: (r) => retries.push(r) });
  const { held } = await holdReadSlot();
  try {
    let result: string | undefined;
    const pending = client.get(resources.namespaces, '', 'default').then(
      (ns) => (result = ns.metadata.name),
      (e: unknown) => (result = `error ${(e as Error).message}`),
    );
    await eventually(() => retries.length === 1, 5000, 'the first 429');
    assert.equal(retries[0], { method: 'GET', path: '/api/v1/namespaces/default', attempt: 1, cause: 429, delayMs: 1000, fromRetryAfter: true });
    await held; // the slot is free now, but the client must still wait out Retry-After: 1
    await advance(clock, 999, 111);
    assert.is(result, undefined, 'no retry before 1 s');
    await advance(clock, 1, 1);
    await pending;
    assert.is(result, 'default');
    assert.is(retries.length, 1);
  } finally {
    await close();
  }
});

test('with the real clock the client rides out a held slot: 429s, each retried after Retry-After, then 200', async () => {
  const retries: RetryInfo[] = [];
  const { client, close } = connect({ svcconfig: writeSvcconfig(server), qps: 0, onRetry: (r) => retries.push(r) });
  const { held } = await holdReadSlot();
  try {
    const started = Date.now();
    const ns = await client.get(resources.namespaces, '', 'default');
    assert.is(ns.metadata.name, 'default');
    assert.ok(retries.length >= 1 && retries.length <= 4, `retried ${retries.length} times, within 5 tries`);
    assert.ok(retries.every((r) => r.cause === 429 && r.delayMs === 1000 && r.fromRetryAfter));
    assert.ok(Date.now() - started >= 1000 * retries.length - 50, 'each retry waited for Retry-After');
  } finally {
    await held;
    await close();
  }
});

test('retries are bounded: with maxAttempts 2 a slot held 3 s ends in the last 429', async () => {
  const retries: RetryInfo[] = [];
  const { client, close } = connect({ svcconfig: writeSvcconfig(server), qps: 0, retry: { maxAttempts: 2 }, onRetry: (r) => retries.push(r) });
  const { held } = await holdReadSlot();
  try {
    const err = (await client.get(resources.namespaces, '', 'default').catch((e: unknown) => e)) as ApiError;
    assert.is(err.code, 429);
    assert.is(retries.length, 1);
  } finally {
    await held;
    await close();
  }
});

test.run();
