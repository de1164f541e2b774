/**
 * Service-account and bootstrap tokens through a real apiserver process over HTTPS, with keys made
 * here (node:crypto): `kubectl create token` (1.35 and 1.28, authenticated by a bootstrap token)
 * gives tokens that authenticate, and that an outside verifier (jose) checks against the server's
 * own discovery document and key set; a wrong audience, an expired token, a deleted account, a
 * deleted bound pod and a token signed by another key are 401s; bootstrap tokens that are expired
 * or carry the wrong secret are 401s. The controller manager's serviceaccount-token controller fills
 * legacy token Secrets (and deletes the one of a missing account); a legacy token stops working
 * when its Secret goes. After a restart with --authorization-mode=AlwaysDeny the 403s name the
 * users the tokens are. An in-process server with the ServiceAccountIssuerDiscovery gate off does
 * not serve the discovery paths (without a signing key, `serviceaccounts/token` is neither listed
 * nor served: ./token-methods.test.ts), and TokenRequests pass admission: under NodeRestriction a
 * node gets a token bound to its own pod and is refused one bound to nothing.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeJwt, jwtVerify, SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent } from 'undici';
import { type ApiServerProcess, startApiServer } from '../../helpers/apiserver.js';
import { sendRequest } from '../../helpers/api-http.js';
import { eventually } from '../../helpers/client.js';
import { startInProcessApiServer } from '../../helpers/in-process-apiserver.js';
import { connectInProcess } from '../../../src/cli/in-process-client.js';
import { ApiError, resources } from '../../../src/client/index.js';
import { kubectl, KUBECTL_V28, KUBECTL_V35 } from '../../helpers/kubectl.js';
import { CONTROLLER_MANAGER_BIN, startExecutable, type SvcProcess } from '../../helpers/svc-process.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-sa-keys-'));
const ISSUER = 'https://issuer.svc.example';
const OLD_ISSUER = 'https://old-issuer.svc.example';
const BOOTSTRAP = 'abcdef.0123456789abcdef';

// The signing key in PKCS#1 (the established `RSA PRIVATE KEY` files), a second verification key
// of another type (ECDSA, as a certificate-free public key) and a key the server does not know.
const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ecdsa = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const signingFile = file('sa.key', signing.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
const publicFile = file('sa.pub', signing.publicKey.export({ type: 'spki', format: 'pem' }) as string);
const ecFile = file('ec.pub', ecdsa.publicKey.export({ type: 'spki', format: 'pem' }) as string);

const KEY_ARGS = [`--service-account-issuer=${ISSUER}`, `--service-account-issuer=${OLD_ISSUER}`, `--service-account-key-file=${publicFile}`, `--service-account-key-file=${ecFile}`];

let server: ApiServerProcess | undefined;
let manager: SvcProcess | undefined;
test.after(async () => {
  await manager?.stop('SIGKILL');
  await server?.stop();
  server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function kubeconfig(s: ApiServerProcess, token: string): string {
  return file(
    `kubeconfig-${s.port}`,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: svc', '  cluster:', `    server: ${s.url}`, `    certificate-authority: ${s.caFile}`, 'users:', '- name: u', `  user: {token: ${token}}`, 'contexts:', '- name: svc', '  context: {cluster: svc, user: u, namespace: ns}', 'current-context: svc', ''].join('\n'),
  );
}

function bootstrapSecret(id: string, secret: string, expiration: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'svc-system' },
    type: 'bootstrap.svc.io/token',
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:e2e', expiration },
  };
}

/** A token with the claims of `like` (re-signed: other times, issuer or key). */
async function forge(like: string, key: KeyObject, changes: Record<string, unknown>): Promise<string> {
  const claims = { ...decodeJwt(like), ...changes };
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(key);
}

test('TokenRequest tokens and bootstrap tokens authenticate; every invalid one is a 401', async () => {
  server = await startApiServer({
    args: [...KEY_ARGS, `--service-account-signing-key-file=${signingFile}`, '--service-account-max-token-expiration=2h', '--feature-gates=ServiceAccountIssuerDiscovery=true', '--enable-bootstrap-token-auth'],
  });
  const s = server;
  const hour = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const created = await Promise.all([
    s.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } }),
    s.request('POST', '/api/v1/namespaces/svc-system/secrets', bootstrapSecret('abcdef', '0123456789abcdef', hour)),
    s.request('POST', '/api/v1/namespaces/svc-system/secrets', bootstrapSecret('old123', '0123456789abcdef', '2020-01-01T00:00:00Z')),
  ]);
  for (const c of created) assert.is(c.status, 201, c.text);
  const inNs = await Promise.all([
    ...['sa', 'who', 'legacy'].map((name) => s.request('POST', '/api/v1/namespaces/ns/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } })),
    s.request('POST', '/api/v1/namespaces/ns/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { serviceAccountName: 'sa', containers: [{ name: 'c', image: 'busybox' }] } }),
  ]);
  for (const c of inNs) assert.is(c.status, 201, c.text);
  const pod = inNs[3]!;

  // kubectl and the controller manager authenticate with the bootstrap token. The controller
  // manager's serviceaccount-token controller fills legacy token Secrets, signing with the same key.
  const cfg = kubeconfig(s, BOOTSTRAP);
  manager = startExecutable(CONTROLLER_MANAGER_BIN, [`--svcconfig=${cfg}`, '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${join(dir, 'cm-certs')}`, '--leader-elect=false', '--controllers=serviceaccount-token', `--service-account-private-key-file=${signingFile}`, `--root-ca-file=${s.caFile}`]);
  const tokenSecret = (name: string, account: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, annotations: { 'svc.io/service-account.name': account } }, type: 'svc.io/service-account-token' });
  for (const [name, account] of [['legacy-a', 'legacy'], ['legacy-b', 'legacy'], ['ghost-token', 'ghost']]) {
    assert.is((await s.request('POST', '/api/v1/namespaces/ns/secrets', tokenSecret(name!, account!))).status, 201);
  }
  const [plain, whoRun, bound] = await Promise.all([
    kubectl(cfg, ['create', 'token', 'sa'], 60_000, { bin: KUBECTL_V35 }),
    kubectl(cfg, ['create', 'token', 'who', '--duration=1h'], 60_000, { bin: KUBECTL_V35 }),
    kubectl(cfg, ['create', 'token', 'sa', '--bound-object-kind=Pod', '--bound-object-name=p', '--duration=3h'], 60_000, { bin: KUBECTL_V28 }),
  ]);
  for (const r of [plain, whoRun, bound]) assert.is(r.code, 0, r.stderr);
  const token = plain.stdout.trim();
  const who = whoRun.stdout.trim();
  const podToken = bound.stdout.trim();
  const claims = decodeJwt(podToken);
  assert.is(claims.iss, ISSUER);
  assert.is(claims.sub, 'system:serviceaccount:ns:sa');
  assert.equal(claims.aud, [ISSUER, OLD_ISSUER]);
  assert.is(claims.exp! - claims.iat!, 7200, 'the 3h request is cut to --service-account-max-token-expiration');
  const priv = claims['kubernetes.io'] as { namespace: string; serviceaccount: { name: string; uid: string }; pod: { name: string; uid: string } };
  assert.is(priv.namespace, 'ns');
  assert.is(priv.serviceaccount.name, 'sa');
  assert.is(priv.pod.name, 'p');
  assert.is(priv.pod.uid, pod.json.metadata.uid);

  // The legacy Secrets are filled; the one of an account that does not exist is deleted.
  const filled = async (name: string) => {
    let data: Record<string, string> | undefined;
    await eventually(async () => (data = (await s.request('GET', `/api/v1/namespaces/ns/secrets/${name}`)).json.data)?.token !== undefined, 45_000, `${name} filled`);
    return Object.fromEntries(Object.entries(data!).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  };
  const legacyA = await filled('legacy-a');
  const legacyB = (await filled('legacy-b')).token!;
  assert.is(legacyA['namespace'], 'ns');
  assert.is(legacyA['ca.crt'], (await import('node:fs')).readFileSync(s.caFile, 'utf8'));
  assert.is(decodeJwt(legacyA.token!).sub, 'system:serviceaccount:ns:legacy');
  assert.is(decodeJwt(legacyA.token!).iss, 'kubernetes/serviceaccount');
  await eventually(async () => (await s.request('GET', '/api/v1/namespaces/ns/secrets/ghost-token')).status === 404, 30_000, 'the token Secret of a missing account deleted');

  for (const t of [token, podToken, who, legacyA.token!, legacyB]) assert.is((await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(t))).status, 200);

  // An outside verifier: the discovery document, then the key set it points at.
  const oidc = await s.request('GET', '/.well-known/openid-configuration');
  assert.is(oidc.status, 200);
  assert.is(oidc.headers['content-type'], 'application/json');
  assert.is(oidc.json.issuer, ISSUER);
  assert.equal(oidc.json.id_token_signing_alg_values_supported, ['ES256', 'RS256']);
  const jwksPath = new URL(oidc.json.jwks_uri as string).pathname;
  assert.is(jwksPath, '/openid/v1/jwks');
  const jwks = await s.request('GET', jwksPath);
  assert.is(jwks.headers['content-type'], 'application/jwk-set+json');
  assert.is(jwks.json.keys.length, 2);
  const verified = await jwtVerify(podToken, createLocalJWKSet(jwks.json), { issuer: oidc.json.issuer, audience: ISSUER });
  assert.is(verified.payload.sub, 'system:serviceaccount:ns:sa');

  // Discovery lists the subresource while tokens can be issued.
  const core = await s.request('GET', '/api/v1');
  assert.equal(core.json.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token'), { name: 'serviceaccounts/token', singularName: '', namespaced: true, kind: 'TokenRequest', verbs: ['create'], group: 'authentication.svc.io', version: 'v1' });

  // The TokenRequest's own checks.
  const tr = (spec: object, sa = 'sa') => s.request('POST', `/api/v1/namespaces/ns/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  const short = await tr({ expirationSeconds: 300 });
  assert.is(short.status, 422);
  assert.match(short.json.message, /spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
  const answered = await tr({ audiences: ['https://elsewhere'] });
  assert.is(answered.status, 201);
  assert.is(answered.json.apiVersion, 'authentication.k8s.io/v1', 'answered in the spelling asked');
  assert.ok(answered.json.status.expirationTimestamp);
  assert.is((await tr({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'not-its-uid' } })).status, 409);
  assert.is((await tr({ boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'p' } })).status, 400);
  assert.is((await tr({}, 'nobody')).status, 404);

  // 401s: wrong audience, expired, another key, garbage; the old issuer is still accepted.
  const now = Math.floor(Date.now() / 1000);
  const unauthorized = async (t: string, what: string) => {
    const r = await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(t));
    assert.is(r.status, 401, what);
    assert.is(r.json.reason, 'Unauthorized', what);
  };
  await unauthorized(answered.json.status.token, 'audience https://elsewhere');
  await unauthorized(await forge(token, signing.privateKey, { iat: now - 7200, nbf: now - 7200, exp: now - 120 }), 'expired two minutes ago');
  await unauthorized(await forge(token, stranger.privateKey, {}), 'signed by a key the server does not know');
  await unauthorized('not-a-token', 'garbage');
  assert.is((await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(await forge(token, signing.privateKey, { iss: OLD_ISSUER })))).status, 200, 're-signed copy, old issuer');

  // Bootstrap tokens: expired, wrong secret.
  await unauthorized('old123.0123456789abcdef', 'expired bootstrap token');
  await unauthorized('abcdef.0123456789abcdee', 'wrong bootstrap secret');

  // A legacy token's Secret goes (--service-account-lookup): that token stops working.
  assert.is((await s.request('DELETE', '/api/v1/namespaces/ns/secrets/legacy-b')).status, 200);
  await eventually(async () => (await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(legacyB))).status === 401, 20_000, 'the legacy token of a deleted Secret refused');

  // The bound pod goes: its token stops working, the account's other token does not.
  assert.is((await s.request('DELETE', '/api/v1/namespaces/ns/pods/p?gracePeriodSeconds=0')).status, 200);
  await eventually(async () => (await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(podToken))).status === 401, 20_000, 'the pod-bound token refused');
  assert.is((await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(token))).status, 200);
  // The account goes: every token of it stops working.
  assert.is((await s.request('DELETE', '/api/v1/namespaces/ns/serviceaccounts/sa')).status, 200);
  await eventually(async () => (await s.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(token))).status === 401, 20_000, 'the deleted account refused');

  // Restarted with AlwaysDeny: the 403s name who the tokens are.
  await manager.stop('SIGTERM');
  await s.stop();
  server = await startApiServer({ args: [...KEY_ARGS, `--service-account-signing-key-file=${signingFile}`, '--authorization-mode=AlwaysDeny', '--enable-bootstrap-token-auth'], dataDir: s.dataDir, certDir: s.certDir, port: s.port, readyStatus: 403 });
  const denied = async (t: string) => (await server!.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(t))).json.message as string;
  assert.match(await denied(who), /User "system:serviceaccount:ns:who" cannot list resource "pods" in API group "" in the namespace "ns"/);
  assert.match(await denied(BOOTSTRAP), /User "system:bootstrap:abcdef" cannot list resource "pods" in API group "" in the namespace "ns"/);
  assert.match(await denied(legacyA.token!), /User "system:serviceaccount:ns:legacy" cannot list resource "pods" in API group "" in the namespace "ns"/);
  assert.is((await server.request('GET', '/api/v1/namespaces/ns/pods', undefined, bearer(podToken))).status, 401);
  rmSync(s.dataDir, { recursive: true, force: true });
  rmSync(s.certDir, { recursive: true, force: true });
});

test('discovery gate off: no discovery paths; a node asks only for tokens bound to its own pods (NodeRestriction)', async () => {
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  const api = await startInProcessApiServer([...KEY_ARGS, `--service-account-signing-key-file=${signingFile}`, '--authorization-mode=Node,AlwaysAllow', '--enable-admission-plugins=NodeRestriction']);
  const admin = connectInProcess(api.server);
  const node = connectInProcess(api.server, { user: { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] } });
  try {
    const get = (path: string) => sendRequest(agent, api.server.url, 'GET', path);
    assert.is((await get('/.well-known/openid-configuration')).status, 404);
    assert.is((await get('/openid/v1/jwks')).status, 404);
    await admin.client.create(resources.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await admin.client.create(resources.serviceaccounts, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app' } });
    const p = await admin.client.create(resources.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'busybox' }] } });
    const ask = (boundObjectRef?: object) =>
      node.client.subresource<{ status: { token: string } }>(resources.serviceaccounts, 'default', 'app', 'token', 'POST', { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { ...(boundObjectRef ? { boundObjectRef } : {}) } });
    const issued = await ask({ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: p.metadata.uid });
    assert.is(decodeJwt(issued.status.token).sub, 'system:serviceaccount:default:app');
    await ask().then(
      () => assert.unreachable('a token not bound to a pod'),
      (e: ApiError) => assert.match(`${e.code} ${e.message}`, /^403 .*node requested token not bound to a pod/),
    );
  } finally {
    await agent.close();
    await admin.close();
    await node.close();
    await api.stop();
  }
});

test.run();
