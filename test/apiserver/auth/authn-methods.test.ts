/**
 * The API server's request authentication methods, impersonation and the authentication reviews,
 * through real apiserver processes over HTTPS:
 *
 * - server A (AlwaysAllow, anonymous refused): client certificates (--client-ca-file), static
 *   tokens (--token-auth-file), an authenticating proxy (--requestheader-*), TokenReview and
 *   SelfSubjectReview, the extension-apiserver-authentication ConfigMap, `kubectl auth whoami`;
 * - server B (AlwaysDeny): only system:masters may impersonate; anyone else gets the established 403;
 *   `kubectl --as` with a system:masters certificate.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { sendRequest } from '../../helpers/api-http.js';
import { type ApiServerProcess, startApiServer } from '../../helpers/apiserver.js';
import { writeSvcconfig } from '../../helpers/client.js';
import { connect } from '../../../src/client/connect.js';
import { resources } from '../../../src/client/typed.js';
import { KUBECTL_V28, KUBECTL_V35, kubectl } from '../../helpers/kubectl.js';
import { type CertificateAuthority, clientAgent, createCA, type IssuedCertificate } from '../../helpers/pki.js';
import { parseTokenFile } from '../../../src/apiserver/auth/token-file.js';

const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const TOKEN_REVIEWS = '/apis/authentication.svc.io/v1/tokenreviews';
const ISSUER = 'https://issuer.authn.example';

let ca: CertificateAuthority;
let otherCa: CertificateAuthority;
let proxyCa: CertificateAuthority;
let a: ApiServerProcess;
let b: ApiServerProcess;
const certs: Record<string, IssuedCertificate> = {};
const agents: Agent[] = [];

function agent(server: ApiServerProcess, cert: IssuedCertificate): Agent {
  const ag = clientAgent(server, cert);
  agents.push(ag);
  return ag;
}

/** Who `server` says the caller is (SelfSubjectReview), or the refusal's status. */
async function whoami(server: ApiServerProcess, through: Agent | undefined, headers: Record<string, string | string[]> = {}) {
  const r = await sendRequest(through ?? server.agent, server.url, 'POST', SSR, SSR_BODY, headers as Record<string, string>);
  return { status: r.status, user: r.json?.status?.userInfo, body: r.json };
}

test.before(async () => {
  [ca, otherCa, proxyCa] = await Promise.all([createCA('client-ca'), createCA('other-ca'), createCA('front-proxy-ca')]);
  certs['alice'] = await ca.issue({ cn: 'alice', orgs: ['devs', 'ops'] });
  certs['admin'] = await ca.issue({ cn: 'admin', orgs: ['system:masters'] });
  certs['expired'] = await ca.issue({ cn: 'late', notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
  certs['serverOnly'] = await ca.issue({ cn: 'server-only', extendedKeyUsages: ['1.3.6.1.5.5.7.3.1'] });
  certs['stranger'] = await otherCa.issue({ cn: 'alice', orgs: ['system:masters'] });
  certs['proxy'] = await proxyCa.issue({ cn: 'front-proxy' });
  certs['rogueProxy'] = await proxyCa.issue({ cn: 'rogue-proxy' });
  // Service-account tokens too, so TokenReview is asked about a token meant for another audience.
  const saKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const saKeyFile = join(ca.dir, 'sa.key');
  const saPubFile = join(ca.dir, 'sa.pub');
  writeFileSync(saKeyFile, saKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  writeFileSync(saPubFile, saKey.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const tokens = join(ca.dir, 'tokens.csv');
  writeFileSync(tokens, ['t-bob,bob,uid-bob,"g1,g2"', 't-carol, carol, uid-carol', ''].join('\n'));
  [a, b] = await Promise.all([
    startApiServer({
      args: [
        `--client-ca-file=${ca.certFile}`,
        `--token-auth-file=${tokens}`,
        `--requestheader-client-ca-file=${proxyCa.certFile}`,
        '--requestheader-allowed-names=front-proxy',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--anonymous-auth=false',
        `--service-account-issuer=${ISSUER}`,
        `--service-account-key-file=${saPubFile}`,
        `--service-account-signing-key-file=${saKeyFile}`,
      ],
      readyStatus: 401,
    }),
    startApiServer({ args: [`--client-ca-file=${ca.certFile}`, '--authorization-mode=AlwaysDeny'], readyStatus: 403 }),
  ]);
});

test.after(async () => {
  for (const ag of agents) await ag.close().catch(() => undefined);
  for (const s of [a, b]) {
    if (!s) continue;
    await s.stop();
    s.cleanup();
  }
  for (const c of [ca, otherCa, proxyCa]) c?.cleanup();
});

test('a client certificate from the CA is its CommonName in its Organizations; others are a 401', async () => {
  const me = await whoami(a, agent(a, certs['alice']!));
  assert.is(me.status, 201);
  assert.equal(me.user, { username: 'alice', groups: ['devs', 'ops', 'system:authenticated'] });
  assert.is(me.body.kind, 'SelfSubjectReview');
  assert.is(me.body.apiVersion, 'authentication.k8s.io/v1');
  for (const bad of ['stranger', 'expired', 'serverOnly']) {
    const r = await whoami(a, agent(a, certs[bad]!));
    assert.is(r.status, 401, bad);
    assert.is(r.body.reason, 'Unauthorized', bad);
  }
  // No credentials at all: anonymous is off here.
  assert.is((await whoami(a, undefined)).status, 401);
  // The project's own client, from a client configuration with the certificate.
  const conn = connect({ svcconfig: writeSvcconfig(a, { name: 'alice-client.yaml', user: certs['alice']! }), qps: 0 });
  try {
    assert.is((await conn.client.get(resources.namespaces, '', 'default')).metadata.name, 'default');
  } finally {
    await conn.close();
  }
});

test('static tokens: the file line is the user; an unknown token is a 401, never anonymous', async () => {
  const bob = await whoami(a, undefined, { authorization: 'Bearer t-bob' });
  assert.equal(bob.user, { username: 'bob', uid: 'uid-bob', groups: ['g1', 'g2', 'system:authenticated'] });
  const carol = await whoami(a, undefined, { authorization: 'Bearer t-carol' });
  assert.equal(carol.user, { username: 'carol', uid: 'uid-carol', groups: ['system:authenticated'] });
  assert.is((await whoami(a, undefined, { authorization: 'Bearer t-nobody' })).status, 401);
  // A certificate and a wrong token: the certificate is recognised first (the established order).
  assert.is((await whoami(a, agent(a, certs['alice']!), { authorization: 'Bearer wrong' })).user.username, 'alice');
});

test('TokenReview answers from the token methods; audiences the server does not hold are not authenticated', async () => {
  const asAlice = agent(a, certs['alice']!);
  const review = (token: string, audiences?: string[]) =>
    sendRequest(asAlice, a.url, 'POST', TOKEN_REVIEWS, { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
  const ok = await review('t-bob');
  assert.is(ok.status, 201);
  assert.is(ok.json.status.authenticated, true);
  assert.equal(ok.json.status.user, { username: 'bob', uid: 'uid-bob', groups: ['g1', 'g2', 'system:authenticated'] });
  const wrong = await review('t-nobody');
  assert.is(wrong.status, 201);
  assert.is(wrong.json.status.authenticated, undefined);
  assert.match(wrong.json.status.error, /invalid bearer token/);
  const elsewhere = await review('t-bob', ['https://other.example']);
  assert.is(elsewhere.json.status.authenticated, undefined);
  // A service-account token meant for another audience: valid for it when the review asks for it
  // (spec.audiences), not for the server's own audiences (the issuer).
  assert.is((await sendRequest(asAlice, a.url, 'POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } })).status, 201);
  const issued = await sendRequest(asAlice, a.url, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['https://vault.example'] } });
  assert.is(issued.status, 201, issued.text);
  const vaultToken = issued.json.status.token as string;
  const forVault = await review(vaultToken, ['https://vault.example']);
  assert.is(forVault.json.status.authenticated, true, JSON.stringify(forVault.json.status));
  assert.is(forVault.json.status.user.username, 'system:serviceaccount:default:robot');
  assert.equal(forVault.json.status.audiences, ['https://vault.example']);
  const forServer = await review(vaultToken);
  assert.is(forServer.json.status.authenticated, undefined);
  assert.match(forServer.json.status.error, /audiences/);
  const empty = await review('');
  assert.is(empty.status, 400);
  assert.match(empty.json.message, /token is required/);
  // Never stored: there is nothing to list.
  assert.is((await sendRequest(asAlice, a.url, 'GET', TOKEN_REVIEWS)).status, 405);
});

test('authenticating proxy: only a certificate from its CA with an allowed name may assert a user', async () => {
  const headers = { 'x-remote-user': 'dave', 'x-remote-group': ['g1', 'g2'], 'x-remote-extra-acme.com%2fproject': 'p1' };
  const dave = await whoami(a, agent(a, certs['proxy']!), headers);
  assert.is(dave.status, 201);
  assert.equal(dave.user, { username: 'dave', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
  // The proxy's CA, a name not allowed: refused (its certificate is no client certificate either).
  assert.is((await whoami(a, agent(a, certs['rogueProxy']!), headers)).status, 401);
  // A plain client certificate asserting headers: the headers are ignored.
  assert.equal((await whoami(a, agent(a, certs['alice']!), headers)).user.username, 'alice');
  // The published trust, for servers that delegate to this one.
  const cm = await sendRequest(agent(a, certs['alice']!), a.url, 'GET', '/api/v1/namespaces/svc-system/configmaps/extension-apiserver-authentication');
  assert.is(cm.status, 200);
  const data = cm.json.data as Record<string, string>;
  assert.is(data['client-ca-file'], ca.certPem);
  assert.is(data['requestheader-client-ca-file'], proxyCa.certPem);
  assert.is(data['requestheader-allowed-names'], '["front-proxy"]');
  assert.is(data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.is(data['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.is(data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
});

test('impersonation: system:masters may (the impersonated user replaces theirs); others get the established 403', async () => {
  const admin = agent(b, certs['admin']!);
  const other = await whoami(b, admin, { 'impersonate-user': 'other', 'impersonate-group': 'system:masters', 'impersonate-extra-scopes': 'view' });
  assert.is(other.status, 201);
  assert.equal(other.user, { username: 'other', groups: ['system:masters', 'system:authenticated'], extra: { scopes: ['view'] } });
  // As `other` without system:masters, AlwaysDeny refuses the request itself.
  const plain = await sendRequest(admin, b.url, 'GET', '/api/v1/namespaces', undefined, { 'impersonate-user': 'other' });
  assert.is(plain.status, 403);
  assert.match(plain.json.message, /User "other" cannot list/);
  const sa = await whoami(b, admin, { 'impersonate-user': 'system:serviceaccount:ns1:robot', 'impersonate-group': 'system:masters' });
  assert.is(sa.user.username, 'system:serviceaccount:ns1:robot');
  // Groups without a user: an error, as established.
  assert.is((await whoami(b, admin, { 'impersonate-group': 'system:masters' })).status, 500);

  const alice = agent(b, certs['alice']!);
  const refused = await whoami(b, alice, { 'impersonate-user': 'other' });
  assert.is(refused.status, 403);
  assert.is(refused.body.message, 'users "other" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.');
  assert.equal(refused.body.details, { name: 'other', kind: 'users' });
  const saRefused = await whoami(b, alice, { 'impersonate-user': 'system:serviceaccount:ns1:robot' });
  assert.match(saRefused.body.message, /^serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"/);
  const uidRefused = await whoami(b, alice, { 'impersonate-user': 'alice', 'impersonate-uid': '1234' });
  assert.is(uidRefused.status, 403);
});

test('kubectl 1.35 with a client certificate: auth whoami, and --as for a system:masters certificate', async () => {
  const aliceConfig = writeSvcconfig(a, { name: 'alice.yaml', user: certs['alice']! });
  const who = await kubectl(aliceConfig, ['auth', 'whoami'], 30_000, { bin: KUBECTL_V35 });
  assert.is(who.code, 0, who.stderr);
  assert.match(who.stdout, /Username\s+alice/);
  assert.match(who.stdout, /Groups\s+\[devs ops system:authenticated\]/);
  // kubectl 1.28 (the first with whoami on v1) too.
  const who28 = await kubectl(aliceConfig, ['auth', 'whoami'], 30_000, { bin: KUBECTL_V28 });
  assert.is(who28.code, 0, who28.stderr);
  assert.match(who28.stdout, /Username\s+alice/);

  const adminConfig = writeSvcconfig(b, { name: 'admin.yaml', user: certs['admin']! });
  const asOther = await kubectl(adminConfig, ['--as=other', '--as-group=system:masters', 'get', 'ns', '-o', 'name'], 30_000, { bin: KUBECTL_V35 });
  assert.is(asOther.code, 0, asOther.stderr);
  assert.match(asOther.stdout, /namespace\/default/);
  const whoOther = await kubectl(adminConfig, ['--as=other', '--as-group=system:masters', 'auth', 'whoami', '-o', 'json'], 30_000, { bin: KUBECTL_V35 });
  assert.is(JSON.parse(whoOther.stdout).status.userInfo.username, 'other');
  const aliceOnB = writeSvcconfig(b, { name: 'alice.yaml', user: certs['alice']! });
  const refused = await kubectl(aliceOnB, ['--as=other', 'get', 'ns'], 30_000, { bin: KUBECTL_V35 });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /users "other" is forbidden: User "alice" cannot impersonate resource "users"/);
});

test('a token file that does not parse stops the server, naming the line', async () => {
  assert.equal([...parseTokenFile('a,u1,id1\n\n"b,x",u2,id2,"g1,g2"\n', 'f').entries()], [
    ['a', { username: 'u1', uid: 'id1', groups: [] }],
    ['b,x', { username: 'u2', uid: 'id2', groups: ['g1', 'g2'] }],
  ]);
  const bad = join(ca.dir, 'bad-tokens.csv');
  writeFileSync(bad, 't1,u1,id1\nt2,u2\n');
  const err = await startApiServer({ args: [`--token-auth-file=${bad}`], readyTimeoutMs: 30_000 }).then(
    async (s) => {
      await s.stop();
      s.cleanup();
      return 'started with a bad token file';
    },
    (e: Error) => e.message,
  );
  assert.match(err, /--token-auth-file .*bad-tokens\.csv: line 2: must have at least 3 columns/);
});

test.run();
