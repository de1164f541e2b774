/**
 * The methods that consult something outside the server, through one real apiserver process over
 * HTTPS and small HTTPS servers this test starts: an OIDC issuer (discovery + JWKS, tokens minted
 * with jose), a TokenReview webhook and a SubjectAccessReview webhook; plus ABAC from a policy file.
 *
 * The server runs `--authorization-mode=Webhook,ABAC`, so the SAR webhook is asked first and
 * ABAC decides what it has no opinion on. Identities show in the 403 messages (`User "..."`), in
 * the reviews the SAR webhook receives, and in SelfSubjectRulesReview.
 *
 * The issuer is not listening when the server starts: the server must come up anyway, refuse the
 * issuer's tokens (401), and accept them once the issuer answers (discovery retried every 10 s).
 * A second issuer, up from the start, serves an in-process OidcAuthenticator for what the server's
 * flags fix otherwise (the `email` claim) and for key rotation, whose 10 s cooldown then runs out
 * during the server's own wait instead of after it.
 */
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exportJWK, generateKeyPair, type JWK, SignJWT, type CryptoKey } from 'jose';
import { type ApiServerProcess, freePort, startApiServer } from '../../helpers/apiserver.js';
import { generateSelfSignedPair } from '../../../src/cli/tls.js';
import { OidcAuthenticator } from '../../../src/apiserver/auth/oidc.js';
import { AuthenticationFailure } from '../../../src/apiserver/auth/authentication.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-external-auth-'));
const servers: Server[] = [];
let api: ApiServerProcess | undefined;
let tlsPair: { cert: string; key: string; caCert: string };
let caFile = '';

test.after(async () => {
  byEmail?.close();
  await api?.stop();
  api?.cleanup();
  for (const s of servers) s.closeAllConnections?.();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// the outside world

/** A small HTTPS server answering JSON from `handle`. */
async function httpsServer(port: number, handle: (path: string, body: unknown, req: IncomingMessage) => unknown): Promise<Server> {
  // Asks for a client certificate (not checked: the test reads who presented one).
  const s = createServer({ cert: tlsPair.cert, key: tlsPair.key, requestCert: true, rejectUnauthorized: false }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const answer = handle(req.url ?? '/', text ? JSON.parse(text) : undefined, req);
      if (answer === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', () => r()));
  servers.push(s);
  return s;
}

async function stopServer(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise((r) => s.close(r));
}

/** The first name of the client certificate a webhook request came with ('' for none). */
function clientName(req: IncomingMessage): string {
  const cn = (req.socket as TLSSocket).getPeerCertificate()?.subject?.CN;
  return typeof cn === 'string' ? cn : '';
}

/** A kubeconfig-format file naming `url`, trusting the test CA, with the credentials the server presents. */
function webhookConfig(name: string, url: string, user: string[]): string {
  const file = join(dir, `${name}.svcconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: ${name}`,
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority: ${caFile}`,
      'users:',
      '- name: apiserver',
      '  user:',
      ...user.map((l) => `    ${l}`),
      'contexts:',
      '- name: webhook',
      '  context:',
      `    cluster: ${name}`,
      '    user: apiserver',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return file;
}

let issuerPort = 0;
let issuer = '';
const CLIENT_ID = 'svc-test';
let signingKey: { privateKey: CryptoKey; kid: string };
const publishedKeys: JWK[] = [];
/** A second issuer, up from the start, for the in-process authenticator (its key-set fetches counted). */
let issuer2 = '';
let issuer2Fetches = 0;
let byEmail: OidcAuthenticator;

/** An issuer's discovery document and key set. */
function issuerAt(url: string, onKeys: () => void): (path: string) => unknown {
  return (path) => {
    if (path === '/.well-known/openid-configuration') return { issuer: url, jwks_uri: `${url}/keys`, id_token_signing_alg_values_supported: ['RS256'] };
    if (path === '/keys') {
      onKeys();
      return { keys: publishedKeys };
    }
    return undefined;
  };
}

async function newKey(kid: string, publish: boolean): Promise<{ privateKey: CryptoKey; kid: string }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  if (publish) publishedKeys.push({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
  return { privateKey, kid };
}

function mint(claims: Record<string, unknown>, opts: { key?: { privateKey: CryptoKey; kid: string }; aud?: string; expiresIn?: string | number; iss?: string } = {}): Promise<string> {
  const key = opts.key ?? signingKey;
  return new SignJWT({ groups: ['viewers'], team: 'core', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .setIssuer(opts.iss ?? issuer)
    .setAudience(opts.aud ?? CLIENT_ID)
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn ?? '5m')
    .sign(key.privateKey);
}

/** The TokenReview webhook's users, and what it saw. */
const WEBHOOK_USERS: Record<string, { username: string; uid?: string; groups: string[] }> = {
  'admin-token': { username: 'admin', groups: ['system:masters'] },
  'bob-token': { username: 'bob', uid: 'u-bob', groups: [] },
  'dave-token': { username: 'dave', groups: ['ops'] },
  'erin-token': { username: 'erin', groups: [] },
};
const tokenReviews: { apiVersion: string; token: string; authorization: string | undefined }[] = [];
let tokenWebhook: Server;

const accessReviews: { apiVersion: string; spec: Record<string, unknown>; client: string }[] = [];
let sarWebhook: Server;

const ABAC_POLICY = [
  '# who may do what when the SAR webhook has no opinion',
  '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:unauthenticated","nonResourcePath":"/readyz","readonly":true}}',
  '',
  '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","namespace":"team-b","resource":"*","apiGroup":"*"}}',
  '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"oidc:viewers","namespace":"*","resource":"pods","apiGroup":"","readonly":true}}',
  '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"*","nonResourcePath":"/version","readonly":true}}',
  '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:authenticated","resource":"selfsubjectrulesreviews","apiGroup":"authorization.k8s.io"}}',
  '',
].join('\n');

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

test.before(async () => {
  tlsPair = await generateSelfSignedPair(['127.0.0.1', 'localhost']);
  caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, tlsPair.caCert);
  issuerPort = await freePort();
  issuer = `https://127.0.0.1:${issuerPort}`;
  signingKey = await newKey('key-1', true);
  const issuer2Port = await freePort();
  issuer2 = `https://127.0.0.1:${issuer2Port}`;
  await httpsServer(issuer2Port, issuerAt(issuer2, () => issuer2Fetches++));
  byEmail = new OidcAuthenticator({
    issuerUrl: issuer2,
    clientId: CLIENT_ID,
    caPem: tlsPair.caCert,
    usernameClaim: 'email',
    usernamePrefix: '',
    groupsClaim: 'groups',
    groupsPrefix: '',
    requiredClaims: {},
    signingAlgs: ['RS256'],
  }).start();

  tokenWebhook = await httpsServer(await freePort(), (path, body, req) => {
    const review = body as { apiVersion: string; spec: { token: string } };
    if (path !== '/authenticate') return undefined;
    tokenReviews.push({ apiVersion: review.apiVersion, token: review.spec.token, authorization: req.headers.authorization });
    const user = WEBHOOK_USERS[review.spec.token];
    return { apiVersion: review.apiVersion, kind: 'TokenReview', status: user ? { authenticated: true, user } : { authenticated: false } };
  });
  sarWebhook = await httpsServer(await freePort(), (path, body, req) => {
    const review = body as { apiVersion: string; spec: Record<string, unknown> & { resourceAttributes?: Record<string, string> } };
    if (path !== '/authorize') return undefined;
    accessReviews.push({ apiVersion: review.apiVersion, spec: review.spec, client: clientName(req) });
    const r = review.spec.resourceAttributes;
    let status: Record<string, unknown> = { allowed: false, reason: 'the webhook has no rule for this' };
    if (r?.resource === 'secrets') status = { allowed: false, denied: true, reason: 'secrets are off-limits' };
    else if (review.spec['user'] === 'dave' && r?.resource === 'configmaps' && r.namespace === 'ops') status = { allowed: true, reason: 'ops may touch their configmaps' };
    return { apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status };
  });
  // The server's credentials towards the webhooks: a token for one, a client certificate for the other.
  const clientPair = await generateSelfSignedPair(['apiserver-client']);
  writeFileSync(join(dir, 'client.crt'), clientPair.cert);
  writeFileSync(join(dir, 'client.key'), clientPair.key);
  const policyFile = join(dir, 'abac.jsonl');
  writeFileSync(policyFile, ABAC_POLICY);
  const tokenPort = (tokenWebhook.address() as { port: number }).port;
  const sarPort = (sarWebhook.address() as { port: number }).port;
  api = await startApiServer({
    args: [
      `--oidc-issuer-url=${issuer}`,
      `--oidc-client-id=${CLIENT_ID}`,
      `--oidc-ca-file=${caFile}`,
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=team=core',
      `--authentication-token-webhook-config-file=${webhookConfig('tokens', `https://127.0.0.1:${tokenPort}/authenticate`, ['token: apiserver-secret'])}`,
      '--authentication-token-webhook-cache-ttl=4s',
      '--authorization-mode=Webhook,ABAC',
      `--authorization-webhook-config-file=${webhookConfig('access', `https://127.0.0.1:${sarPort}/authorize`, ['client-certificate: client.crt', 'client-key: client.key'])}`,
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-unauthorized-ttl=3s',
      `--authorization-policy-file=${policyFile}`,
    ],
  });
});

// ---------------------------------------------------------------------------------------------
// OIDC while the issuer is down

test('OIDC: the server starts while the issuer is down and refuses its tokens with 401 (not anonymous)', async () => {
  const r = await api!.request('GET', '/api/v1/namespaces/default/pods', undefined, bearer(await mint({ sub: 'alice' })));
  assert.is(r.status, 401);
  // A token of another issuer is not OIDC's: the chain refuses it as an unknown bearer token.
  assert.is((await api!.request('GET', '/version', undefined, bearer('not-a-jwt'))).status, 401);
  await httpsServer(issuerPort, issuerAt(issuer, () => undefined));
});

// ---------------------------------------------------------------------------------------------
// webhook token authentication

test('token webhook: the established TokenReview wire; users recognised; answers cached for the TTL, positive and negative, behind the server\'s token cache', async () => {
  const admin = await api!.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } }, bearer('admin-token'));
  assert.is(admin.status, 201, admin.text);
  assert.is(tokenReviews.at(-1)?.apiVersion, 'authentication.k8s.io/v1beta1');
  assert.is(tokenReviews.at(-1)?.authorization, 'Bearer apiserver-secret', "the config file's token");
  for (const ns of ['team-c', 'ops']) {
    assert.is((await api!.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, bearer('admin-token'))).status, 201);
  }

  const before = tokenReviews.length;
  for (let i = 0; i < 3; i++) assert.is((await api!.request('GET', '/api/v1/namespaces/team-b/configmaps', undefined, bearer('bob-token'))).status, 200);
  for (let i = 0; i < 3; i++) assert.is((await api!.request('GET', '/api/v1/namespaces/team-b/configmaps', undefined, bearer('nobody-token'))).status, 401);
  assert.is(tokenReviews.length - before, 2, 'one review for bob, one for the unknown token');

  // The webhook's TTL (4 s: room for the requests above on a loaded machine) ends: the unknown token
  // is asked about again (the server's own token cache does not keep refusals); bob is still answered
  // by that cache (10 s, as established).
  await new Promise((r) => setTimeout(r, 4200));
  assert.is((await api!.request('GET', '/api/v1/namespaces/team-b/configmaps', undefined, bearer('nobody-token'))).status, 401);
  assert.is(tokenReviews.length - before, 3, 'the unknown token reviewed again');
  assert.is((await api!.request('GET', '/api/v1/namespaces/team-b/configmaps', undefined, bearer('bob-token'))).status, 200);
  assert.is(tokenReviews.length - before, 3, "bob from the server's token cache");
});

// ---------------------------------------------------------------------------------------------
// the Webhook mode and ABAC

test('Webhook mode: allow, deny (which ABAC cannot override) and no opinion; the review speaks authorization.k8s.io/v1 with groups', async () => {
  const allowed = await api!.request('POST', '/api/v1/namespaces/ops/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, bearer('dave-token'));
  assert.is(allowed.status, 201, allowed.text);
  const review = accessReviews.at(-1)!;
  assert.is(review.apiVersion, 'authorization.k8s.io/v1');
  assert.match(review.client, /^apiserver-client@/, "the config file's client certificate");
  assert.equal(review.spec['user'], 'dave');
  assert.equal(review.spec['groups'], ['ops', 'system:authenticated']);
  assert.equal(review.spec['resourceAttributes'], { namespace: 'ops', verb: 'create', version: 'v1', resource: 'configmaps' });

  // Denied by the webhook: bob may do anything in team-b by ABAC, but secrets are refused first.
  const secret = await api!.request('GET', '/api/v1/namespaces/team-b/secrets', undefined, bearer('bob-token'));
  assert.is(secret.status, 403);
  assert.match(secret.json.message, /User "bob" cannot list resource "secrets" in API group "" in the namespace "team-b"/);
  assert.match(secret.json.message, /secrets are off-limits/);

  // No opinion: ABAC decides (bob in team-b yes, in team-c no, with both reasons).
  assert.is((await api!.request('POST', '/api/v1/namespaces/team-b/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } }, bearer('bob-token'))).status, 201);
  const other = await api!.request('GET', '/api/v1/namespaces/team-c/configmaps', undefined, bearer('bob-token'));
  assert.is(other.status, 403);
  assert.match(other.json.message, /the webhook has no rule for this; No policy matched\./);

  // Cached: an allow for 5 minutes (default), a refusal for 3 s (room for the six requests on a loaded machine).
  const n = accessReviews.length;
  for (let i = 0; i < 3; i++) assert.is((await api!.request('GET', '/api/v1/namespaces/ops/configmaps/c', undefined, bearer('dave-token'))).status, 200);
  for (let i = 0; i < 3; i++) assert.is((await api!.request('GET', '/api/v1/namespaces/team-c/configmaps/c', undefined, bearer('dave-token'))).status, 403);
  assert.is(accessReviews.length - n, 2, 'one review for three identical allowed requests, one for three refused');
  await new Promise((r) => setTimeout(r, 3200));
  await api!.request('GET', '/api/v1/namespaces/ops/configmaps/c', undefined, bearer('dave-token'));
  await api!.request('GET', '/api/v1/namespaces/team-c/configmaps/c', undefined, bearer('dave-token'));
  assert.is(accessReviews.length - n, 3, 'asked again once the refusal TTL ended, not for the allow');
});

test('ABAC: readonly, group and wildcard-user policies; non-resource paths; rules review lists ABAC rules and the webhook as incomplete', async () => {
  // "*" as user is every authenticated user, not the anonymous one.
  assert.is((await api!.request('GET', '/version', undefined, bearer('erin-token'))).status, 200);
  const anon = await api!.request('GET', '/version');
  assert.is(anon.status, 403);
  assert.match(anon.json.message, /User "system:anonymous" cannot get path "\/version"/);
  assert.is((await api!.request('GET', '/readyz')).status, 200);
  assert.is((await api!.request('POST', '/readyz')).status, 403, 'readonly');

  const rules = await api!.request(
    'POST',
    '/apis/authorization.svc.io/v1/selfsubjectrulesreviews',
    { apiVersion: 'authorization.svc.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team-b' } },
    bearer('bob-token'),
  );
  assert.is(rules.status, 201, rules.text);
  assert.equal(rules.json.status.resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  // The /version and review policies name no namespace: not rules in team-b (as established).
  assert.equal(rules.json.status.nonResourceRules, []);
  assert.is(rules.json.status.incomplete, true);
  assert.is(rules.json.status.evaluationError, 'webhook authorizer does not support user rule resolution');
});

// Run while the server's first discovery retry (10 s) and the in-process key-set cooldown (10 s) run out.
test('ABAC: a bad policy line stops the start with a message naming the file and line', async () => {
  const file = join(dir, 'bad.jsonl');
  writeFileSync(file, `${ABAC_POLICY.split('\n')[1]}\n{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":7}}\n`);
  const err = await startApiServer({ args: ['--authorization-mode=ABAC', `--authorization-policy-file=${file}`], readyTimeoutMs: 30_000 }).then(
    (s) => {
      void s.stop();
      return undefined;
    },
    (e: Error) => e,
  );
  assert.ok(err, 'the server must not start');
  assert.match(err!.message, new RegExp(`error reading policy file ${file}, line 2: .*user must be a string`));
});

test('OIDC in-process: email claim needs email_verified true when present; groups as a string; a token of another issuer is left to other methods', async () => {
  await waitFor(() => byEmail.initialized, 10_000, 'keys');
  const as = { iss: issuer2 };
  assert.equal((await byEmail.authenticateToken(await mint({ email: 'a@example.com', email_verified: true, groups: 'one' }, as)))?.user, { username: 'a@example.com', groups: ['one'] });
  assert.equal((await byEmail.authenticateToken(await mint({ email: 'a@example.com' }, as)))?.user.username, 'a@example.com', 'email_verified absent is accepted');
  await byEmail.authenticateToken(await mint({ email: 'a@example.com', email_verified: false }, as)).then(
    () => assert.unreachable('unverified email accepted'),
    (err: Error) => assert.ok(err instanceof AuthenticationFailure && /email not verified/.test(err.message), err.message),
  );
  assert.is(await byEmail.authenticateToken(await mint({ email: 'a@example.com' }, { iss: 'https://elsewhere' })), null);
});

test('OIDC in-process: key rotation: a new key id makes the key set be fetched again, at most once per cooldown', async () => {
  const before = issuer2Fetches;
  const rotated = await newKey('key-2', true);
  const token = await mint({ email: 'r@example.com' }, { key: rotated, iss: issuer2 });
  // Within 10 s of the last fetch it may still be refused (the cooldown); the first try after it fetches.
  const accepts = (t: string) => byEmail.authenticateToken(t).then((a) => a?.user.username === 'r@example.com', () => false);
  await waitFor(() => accepts(token), 15_000, 'the rotated key');
  assert.is(issuer2Fetches - before, 1);
  // A flood of unknown key ids right after: no further fetch (rate-limited), every one refused.
  for (let i = 0; i < 5; i++) {
    const forged = await mint({ email: 'r@example.com' }, { key: await newKey(`forged-${i}`, false), iss: issuer2 });
    assert.is(await accepts(forged), false);
  }
  assert.is(issuer2Fetches - before, 1);
});

// ---------------------------------------------------------------------------------------------
// OIDC once the issuer answers

test('OIDC: once the keys arrive a good token is the prefixed user with prefixed groups; readonly ABAC by group', async () => {
  const good = await mint({ sub: 'alice' });
  await waitFor(async () => (await api!.request('GET', '/api/v1/namespaces/team-c/pods', undefined, bearer(good))).status === 200, 25_000, 'the issuer keys');
  const write = await api!.request('POST', '/api/v1/namespaces/team-c/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, bearer(good));
  assert.is(write.status, 403);
  assert.ok(write.json.message.includes(`User "${issuer}#alice" cannot create resource "configmaps" in API group "" in the namespace "team-c"`), write.json.message);
  const seen = accessReviews.at(-1)!.spec;
  assert.is(seen['user'], `${issuer}#alice`);
  assert.equal(seen['groups'], ['oidc:viewers', 'system:authenticated']);
});



test('OIDC: wrong audience, expired, a disallowed algorithm, a missing or wrong required claim, an unpublished key => 401', async () => {
  const other = await newKey('unpublished', false);
  const { privateKey: ecKey } = await generateKeyPair('ES256');
  const bad: Record<string, string> = {
    'wrong aud': await mint({ sub: 'alice' }, { aud: 'someone-else' }),
    expired: await mint({ sub: 'alice' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
    'ES256 (not in --oidc-signing-algs)': await new SignJWT({ sub: 'alice', team: 'core' }).setProtectedHeader({ alg: 'ES256', kid: 'key-1' }).setIssuer(issuer).setAudience(CLIENT_ID).setExpirationTime('5m').sign(ecKey),
    'HS256 (alg confusion)': await new SignJWT({ sub: 'alice', team: 'core' }).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).setIssuer(issuer).setAudience(CLIENT_ID).setExpirationTime('5m').sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long')),
    'required claim missing': await mint({ sub: 'alice', team: undefined }),
    'required claim wrong': await mint({ sub: 'alice', team: 'other' }),
    'key not published': await mint({ sub: 'alice' }, { key: other }),
    'no sub': await mint({}),
  };
  for (const [what, token] of Object.entries(bad)) {
    const r = await api!.request('GET', '/api/v1/namespaces/team-c/pods', undefined, bearer(token));
    assert.is(r.status, 401, what);
  }
});



// ---------------------------------------------------------------------------------------------
// webhooks down

test('webhooks down: token webhook => 401 (not anonymous); SAR webhook => no opinion, ABAC still decides, else 500', async () => {
  await stopServer(sarWebhook);
  const stillAbac = await api!.request('GET', '/api/v1/namespaces/team-b/pods', undefined, bearer('bob-token'));
  assert.is(stillAbac.status, 200, stillAbac.text);
  // No mode allowed or denied and one could not decide: as established, an internal error, not a policy's 403.
  const refused = await api!.request('GET', '/api/v1/namespaces/ops/pods', undefined, bearer('dave-token'));
  assert.is(refused.status, 500);
  assert.is(refused.json.reason, 'InternalError');
  assert.match(refused.json.message, /^Internal error occurred: webhook authorizer: .*ECONNREFUSED/);
  // An access review reports the failure in status.evaluationError instead.
  const review = await api!.request('POST', '/apis/authorization.svc.io/v1/subjectaccessreviews', { apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', spec: { user: 'dave', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'ops' } } }, bearer('admin-token'));
  assert.is(review.status, 201, review.text);
  assert.is(review.json.status.allowed, false);
  assert.match(review.json.status.evaluationError, /webhook authorizer: .*ECONNREFUSED/);

  await stopServer(tokenWebhook);
  const r = await api!.request('GET', '/version', undefined, bearer('erin-token-2'));
  assert.is(r.status, 401, 'an uncached token while the webhook is down');
});


async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test.run();
