/**
 * The authentication and authorization stages through a real apiserver process over HTTPS: with
 * anonymous requests refused every path is a 401 Status; with --authorization-mode=AlwaysDeny
 * every request of the anonymous user is a 403 Status naming who was refused what; and the chain's
 * rules (first recognising method wins, credentials present but wrong are a 401, system:masters is
 * always allowed) hold in unit form.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../../helpers/apiserver.js';
import { AuthenticationChain, AuthenticationFailure, BearerTokenAuthenticator, type AuthenticationRequest } from '../../../src/apiserver/auth/authentication.js';
import { ALWAYS_ALLOW, ALWAYS_DENY, AuthorizerChain } from '../../../src/apiserver/auth/authorization.js';

const servers: ApiServerProcess[] = [];
test.after(async () => {
  for (const s of servers) {
    await s.stop();
    s.cleanup();
  }
});

const reqWith = (headers: Record<string, string>): AuthenticationRequest => ({ headers, peerCertificates: () => [] });

test('--anonymous-auth=false: every path, health included, is a 401 Status', async () => {
  const s = await startApiServer({ args: ['--anonymous-auth=false'], readyStatus: 401 });
  servers.push(s);
  for (const path of ['/api/v1/namespaces', '/healthz', '/readyz', '/version', '/apis']) {
    const r = await s.request('GET', path);
    assert.is(r.status, 401, path);
    assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }, path);
  }
  // A write is refused before anything is stored.
  const w = await s.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nope' } });
  assert.is(w.status, 401);
});

test('--authorization-mode=AlwaysDeny: the anonymous user is refused with a 403 naming the user, verb and resource', async () => {
  const s = await startApiServer({ args: ['--authorization-mode=AlwaysDeny'], readyStatus: 403 });
  servers.push(s);
  const r = await s.request('GET', '/api/v1/namespaces/default/pods');
  assert.is(r.status, 403);
  const body = r.json as { reason: string; message: string };
  assert.is(body.reason, 'Forbidden');
  assert.is(body.message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden.');
  const w = await s.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nope' } });
  assert.is(w.status, 403);
});

test('the chain: first recognising method wins; present but wrong credentials are a 401, never anonymous', async () => {
  const tokens = new BearerTokenAuthenticator([
    { name: 'static', authenticateToken: (t) => (t === 'good' ? { user: { username: 'alice', groups: ['devs'] } } : null) },
    {
      name: 'jwt',
      authenticateToken: (t) => {
        if (t.startsWith('ey')) throw new AuthenticationFailure('jwt', 'token expired');
        return null;
      },
    },
  ]);
  const chain = new AuthenticationChain({ methods: [tokens], anonymous: true });
  assert.equal(await chain.authenticate(reqWith({ authorization: 'Bearer good' })), { username: 'alice', groups: ['devs', 'system:authenticated'] });
  assert.equal(await chain.authenticate(reqWith({})), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  for (const bad of ['Bearer unknown', 'Bearer eyJhbGciOi']) {
    try {
      await chain.authenticate(reqWith({ authorization: bad }));
      assert.unreachable(bad);
    } catch (err) {
      assert.is((err as { code: number }).code, 401, bad);
    }
  }
  // Another scheme is not a bearer token: no credentials of any method's kind.
  assert.is((await chain.authenticate(reqWith({ authorization: 'Basic YTpi' }))).username, 'system:anonymous');
  const closed = new AuthenticationChain({ methods: [tokens], anonymous: false });
  await closed.authenticate(reqWith({})).then(
    () => assert.unreachable('anonymous refused'),
    (err: { code: number }) => assert.is(err.code, 401),
  );
});

test('authorization: first allow or deny decides; system:masters is always allowed', async () => {
  const attrs = { kind: 'resource', verb: 'get', group: '', version: 'v1', resource: 'pods', subresource: '', namespace: 'a', name: 'p' } as const;
  const deny = new AuthorizerChain([ALWAYS_DENY, ALWAYS_ALLOW]);
  assert.is((await deny.authorize({ username: 'bob', groups: [] }, attrs)).allowed, false);
  assert.is((await deny.authorize({ username: 'root', groups: ['system:masters'] }, attrs)).allowed, true);
  const noOpinion = new AuthorizerChain([{ mode: 'Quiet', authorize: () => ({ allowed: false, reason: 'no rule' }), rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true }) }, ALWAYS_ALLOW]);
  assert.is((await noOpinion.authorize({ username: 'bob', groups: [] }, attrs)).allowed, true);
  const rules = await noOpinion.rulesFor({ username: 'bob', groups: [] }, 'a');
  assert.is(rules.incomplete, true);
  assert.is(rules.resourceRules.length, 1);
});

test.run();
