/**
 * The token cache in front of the bearer-token methods (src/apiserver/auth/token-cache.ts): the
 * established TTLs (success 10 s, failures not cached), keys by token and audiences, one check for
 * concurrent callers, errors never cached, the bound on entries, and revocation: a deleted service
 * account's token (the real service-account method behind the cache) keeps working for at most the
 * success TTL, then is refused.
 */
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signingKeyFrom, verificationKeysFrom } from '../../../src/api/service-account-keys.js';
import type { SvcObject } from '../../../src/api/types.js';
import { AuthenticationFailure, BearerTokenAuthenticator, type Authenticated, type TokenAuthenticator } from '../../../src/apiserver/auth/authentication.js';
import { ServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer } from '../../../src/apiserver/auth/service-account-tokens.js';
import { DEFAULT_TOKEN_CACHE, TokenCache } from '../../../src/apiserver/auth/token-cache.js';

/** A token method that counts its checks: `good` is alice, `bad` a failure, `boom` an outage, anything else not its kind. */
function counting(delayMs = 0) {
  const calls: string[] = [];
  const method: TokenAuthenticator = {
    name: 'counting',
    async authenticateToken(token, audiences) {
      calls.push(`${token}|${audiences?.join(',') ?? '-'}`);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (token === 'good') return { user: { username: 'alice', groups: ['dev'] }, ...(audiences ? { audiences: [...audiences] } : {}) };
      if (token === 'bad') throw new AuthenticationFailure('counting', 'signature invalid');
      if (token === 'boom') throw new Error('store unavailable');
      return null;
    },
  };
  return { method, calls };
}

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('established defaults: successes 10 s, failures not cached', () => {
  assert.equal(DEFAULT_TOKEN_CACHE, { successTtlMs: 10_000, failureTtlMs: 0 });
});

test('a success is remembered for the success TTL, then checked again', async () => {
  const { method, calls } = counting();
  const c = clock();
  const cache = new TokenCache(method, { ...DEFAULT_TOKEN_CACHE, now: c.now });
  assert.is((await cache.authenticateToken('good'))?.user.username, 'alice');
  assert.is((await cache.authenticateToken('good'))?.user.username, 'alice');
  assert.is(calls.length, 1, 'the second check came from the cache');
  c.advance(9_999);
  await cache.authenticateToken('good');
  assert.is(calls.length, 1);
  c.advance(1);
  await cache.authenticateToken('good');
  assert.is(calls.length, 2, 'checked again once the entry expired');
  assert.is(cache.hits, 2);
  assert.is(cache.misses, 2);
});

test('failures and unrecognised tokens are checked every time with failure TTL 0, remembered with one', async () => {
  const { method, calls } = counting();
  const cache = new TokenCache(method, DEFAULT_TOKEN_CACHE);
  for (let i = 0; i < 3; i++) {
    await cache.authenticateToken('bad').then(
      () => assert.unreachable('bad accepted'),
      (e: unknown) => {
        assert.instance(e, AuthenticationFailure);
        assert.match((e as Error).message, /signature invalid/);
      },
    );
    assert.is(await cache.authenticateToken('other'), null);
  }
  assert.is(calls.length, 6);
  assert.is(cache.size, 0, 'nothing remembered');

  const c = clock();
  const remembering = counting();
  const negative = new TokenCache(remembering.method, { successTtlMs: 10_000, failureTtlMs: 2_000, now: c.now });
  await negative.authenticateToken('bad').catch(() => undefined);
  await negative.authenticateToken('bad').catch((e: unknown) => assert.instance(e, AuthenticationFailure));
  assert.is(await negative.authenticateToken('other'), null);
  assert.is(await negative.authenticateToken('other'), null);
  assert.is(remembering.calls.length, 2, 'failure and null remembered');
  c.advance(2_000);
  await negative.authenticateToken('bad').catch(() => undefined);
  assert.is(remembering.calls.length, 3);
});

test('an outage (not an AuthenticationFailure) is passed on and never cached', async () => {
  const { method, calls } = counting();
  const cache = new TokenCache(method, { successTtlMs: 10_000, failureTtlMs: 10_000 });
  for (let i = 0; i < 2; i++) await cache.authenticateToken('boom').then(() => assert.unreachable(), (e: Error) => assert.is(e.message, 'store unavailable'));
  assert.is(calls.length, 2);
  assert.is(cache.size, 0);
});

test('keyed by token and audiences: another audience list is checked on its own', async () => {
  const { method, calls } = counting();
  const cache = new TokenCache(method);
  assert.equal((await cache.authenticateToken('good', ['api']))?.audiences, ['api']);
  assert.equal((await cache.authenticateToken('good', ['vault']))?.audiences, ['vault']);
  assert.equal((await cache.authenticateToken('good', ['api']))?.audiences, ['api']);
  assert.is((await cache.authenticateToken('good'))?.audiences, undefined);
  assert.equal((await cache.authenticateToken('good', ['a', 'b']))?.audiences, ['a', 'b']);
  assert.equal((await cache.authenticateToken('good', ['a,b']))?.audiences, ['a,b']);
  assert.equal(calls, ['good|api', 'good|vault', 'good|-', 'good|a,b', 'good|a,b'], 'one check per distinct (token, audiences), none per repeat');
});

test('concurrent checks of one token share one check', async () => {
  const { method, calls } = counting(20);
  const cache = new TokenCache(method, DEFAULT_TOKEN_CACHE);
  const users = await Promise.all(Array.from({ length: 32 }, () => cache.authenticateToken('good')));
  assert.ok(users.every((u) => u?.user.username === 'alice'));
  assert.is(calls.length, 1);
  // Failures share the check too, but are not remembered after it.
  const refused = await Promise.all(Array.from({ length: 8 }, () => cache.authenticateToken('bad').then(() => false, () => true)));
  assert.ok(refused.every(Boolean));
  assert.is(calls.length, 2);
});

test('bounded: the oldest entries go first', async () => {
  const always: TokenAuthenticator = { name: 'all', authenticateToken: (t): Authenticated => ({ user: { username: t, groups: [] } }) };
  const cache = new TokenCache(always, { ...DEFAULT_TOKEN_CACHE, maxEntries: 3 });
  for (const t of ['a', 'b', 'c', 'd']) await cache.authenticateToken(t);
  assert.is(cache.size, 3);
  const misses = cache.misses;
  await cache.authenticateToken('d');
  assert.is(cache.misses, misses, 'd still cached');
  await cache.authenticateToken('a');
  assert.is(cache.misses, misses + 1, 'a dropped');
});

test('as the server builds it (a union behind the cache): a failure keeps its message, unwrapped', async () => {
  const { method } = counting();
  const bearer = new BearerTokenAuthenticator([new TokenCache(new BearerTokenAuthenticator([method]))]);
  await bearer.authenticateToken('bad').then(
    () => assert.unreachable(),
    (e: AuthenticationFailure) => assert.is(e.message, 'invalid bearer token (counting: signature invalid)'),
  );
  await bearer.authenticateToken('unknown').then(
    () => assert.unreachable(),
    (e: AuthenticationFailure) => assert.is(e.message, 'invalid bearer token'),
  );
  assert.is((await bearer.authenticateToken('good')).user.username, 'alice');
});

test('revocation: a deleted service account\'s token works for at most the success TTL, then is refused', async () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signing = signingKeyFrom(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, 'test');
  const objects = new Map<string, SvcObject>([['ServiceAccount/ns/sa', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns', uid: 'sa-uid' } } as SvcObject]]);
  const sa = new ServiceAccountTokenAuthenticator({
    issuers: ['https://issuer.example'],
    keys: verificationKeysFrom(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'test'),
    apiAudiences: ['https://issuer.example'],
    lookup: true,
    objects: async (kind, ns, name) => objects.get(`${kind}/${ns}/${name}`),
  });
  const c = clock(Date.now());
  const bearer = new BearerTokenAuthenticator([new TokenCache(new BearerTokenAuthenticator([sa]), { ...DEFAULT_TOKEN_CACHE, now: c.now })]);
  const issuer = new ServiceAccountTokenIssuer(signing, 'https://issuer.example');
  const { token } = await issuer.issue({ namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, audiences: ['https://issuer.example'], expirationSeconds: 3600 });
  assert.is((await bearer.authenticateToken(token)).user.username, 'system:serviceaccount:ns:sa');
  objects.delete('ServiceAccount/ns/sa');
  c.advance(5_000);
  assert.is((await bearer.authenticateToken(token)).user.username, 'system:serviceaccount:ns:sa', 'still cached 5 s after the deletion');
  c.advance(5_000);
  await bearer.authenticateToken(token).then(
    () => assert.unreachable('the deleted account accepted after the TTL'),
    (e: unknown) => assert.instance(e, AuthenticationFailure),
  );
  // Refused answers are not remembered: the account back, the token works at once.
  objects.set('ServiceAccount/ns/sa', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns', uid: 'sa-uid' } } as SvcObject);
  assert.is((await bearer.authenticateToken(token)).user.username, 'system:serviceaccount:ns:sa');
});

test.run();
