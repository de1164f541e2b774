/**
 * The service-account and bootstrap token methods in unit form, for the rules the process test
 * (./service-account-tokens.test.ts) does not reach: key files of every PEM shape, the key id,
 * legacy tokens with --service-account-lookup on and off, claims that contradict each other,
 * audiences, and the bootstrap Secret's own checks.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keyId, signingKeyFrom, verificationKeysFrom } from '../../../src/api/service-account-keys.js';
import { signLegacyToken } from '../../../src/api/service-account-token-format.js';
import type { SvcObject } from '../../../src/api/types.js';
import { AuthenticationFailure } from '../../../src/apiserver/auth/authentication.js';
import { BootstrapTokenAuthenticator } from '../../../src/apiserver/auth/bootstrap-tokens.js';
import { type ObjectLookup, ServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer } from '../../../src/apiserver/auth/service-account-tokens.js';
import { issuerDiscovery, serviceAccountAuthenticator, tokenRequestSettings } from '../../../src/apiserver/auth/service-account-setup.js';
import { apiResources } from '../../../src/apiserver/discovery.js';
import { serviceAccountDefinition } from '../../../src/api/kinds/index.js';
import { pino } from 'pino';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const rsaPem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
const signing = signingKeyFrom(rsaPem, 'test');

const objects = new Map<string, SvcObject>();
const put = (kind: string, ns: string, name: string, uid: string, extra: Record<string, unknown> = {}) =>
  objects.set(`${kind}/${ns}/${name}`, { apiVersion: 'v1', kind, metadata: { name, namespace: ns, uid }, ...extra } as SvcObject);
const lookup: ObjectLookup = async (kind, ns, name) => objects.get(`${kind}/${ns}/${name}`);

function authenticator(o: { lookup?: boolean; apiAudiences?: string[] } = {}) {
  return new ServiceAccountTokenAuthenticator({
    issuers: ['https://issuer.example'],
    keys: verificationKeysFrom(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'test'),
    apiAudiences: o.apiAudiences ?? ['https://issuer.example'],
    lookup: o.lookup ?? true,
    objects: lookup,
  });
}

async function fails(p: Promise<unknown>, re: RegExp): Promise<void> {
  await p.then(
    () => assert.unreachable(`expected a failure matching ${re}`),
    (e: Error) => {
      assert.instance(e, AuthenticationFailure);
      assert.match(e.message, re);
    },
  );
}

test('key files: PKCS#1, PKCS#8 and SEC1 private keys, PKIX public keys; the kid is base64url SHA-256 of the PKIX DER', () => {
  const sec1 = ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string;
  const pkcs8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const pub = ec.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const keys = verificationKeysFrom(`${rsaPem}\n${sec1}\n${pkcs8}\n${pub}`, 'bundle');
  assert.equal(keys.map((k) => k.alg), ['RS256', 'ES384', 'RS256', 'ES384']);
  const der = rsa.publicKey.export({ type: 'spki', format: 'der' });
  assert.is(keyId(rsa.publicKey), createHash('sha256').update(der).digest('base64url'));
  assert.is(keys[0]!.kid, keys[2]!.kid, 'one key, one id, whatever its file form');
  assert.throws(() => verificationKeysFrom('no pem here', 'f.pem'), /f.pem: no PEM-encoded/);
  const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
  assert.throws(() => verificationKeysFrom(ed, 'ed.pem'), /ed.pem: ed25519 key is not supported/);
});

test('bound tokens: the account and the bound object must exist with their uids; claims that disagree are refused', async () => {
  put('ServiceAccount', 'ns', 'sa', 'sa-uid');
  put('Secret', 'ns', 's', 's-uid');
  const issuer = new ServiceAccountTokenIssuer(signing, 'https://issuer.example');
  const a = authenticator();
  const { token } = await issuer.issue({ namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, audiences: ['https://issuer.example'], expirationSeconds: 600, boundObject: { kind: 'Secret', name: 's', uid: 's-uid' } });
  const ok = await a.authenticateToken(token);
  assert.equal(ok?.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns']);
  assert.is(ok?.user.uid, 'sa-uid');
  assert.match(ok?.user.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^JTI=/);
  put('Secret', 'ns', 's', 'other-uid');
  await fails(a.authenticateToken(token), /Secret UID \(other-uid\) does not match claim \(s-uid\)/);
  put('Secret', 'ns', 's', 's-uid');
  put('ServiceAccount', 'ns', 'sa', 'sa-uid', { metadata: { name: 'sa', namespace: 'ns', uid: 'sa-uid', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  await fails(a.authenticateToken(token), /being deleted/);
  put('ServiceAccount', 'ns', 'sa', 'sa-uid');
  // Bound tokens are checked whatever --service-account-lookup says (established).
  objects.delete('Secret/ns/s');
  await fails(authenticator({ lookup: false }).authenticateToken(token), /Secret ns\/s not found/);
  // A sub that names another account than the private claim.
  const lying = await new SignJWT({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } } })
    .setProtectedHeader({ alg: 'RS256' }).setIssuer('https://issuer.example').setSubject('system:serviceaccount:ns:admin').setAudience('https://issuer.example').setExpirationTime('10m').sign(rsa.privateKey);
  await fails(a.authenticateToken(lying), /sub claim does not match/);
  // No exp: bound tokens must expire.
  const forever = await new SignJWT({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } } })
    .setProtectedHeader({ alg: 'RS256' }).setIssuer('https://issuer.example').setSubject('system:serviceaccount:ns:sa').setAudience('https://issuer.example').sign(rsa.privateKey);
  await fails(a.authenticateToken(forever), /exp/);
  // Issued in the future (beyond the minute of leeway).
  const future = await new SignJWT({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } } })
    .setProtectedHeader({ alg: 'RS256' }).setIssuer('https://issuer.example').setSubject('system:serviceaccount:ns:sa').setAudience('https://issuer.example')
    .setIssuedAt(Math.floor(Date.now() / 1000) + 600).setExpirationTime('20m').sign(rsa.privateKey);
  await fails(a.authenticateToken(future), /issued in the future/);
  // Algorithm confusion: an HMAC token keyed with the public key's PEM is not verified by it.
  const pubPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const hmac = await new SignJWT({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } } })
    .setProtectedHeader({ alg: 'HS256' }).setIssuer('https://issuer.example').setSubject('system:serviceaccount:ns:sa').setAudience('https://issuer.example')
    .setExpirationTime('10m').sign(new TextEncoder().encode(pubPem));
  await fails(a.authenticateToken(hmac), /signature is invalid/);
  // Another issuer's JWT, or no JWT at all: not this method's.
  assert.is(await a.authenticateToken(await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setIssuer('https://elsewhere').sign(rsa.privateKey)), null);
  assert.is(await a.authenticateToken('abcdef.0123456789abcdef'), null);
});

test('legacy tokens: the Secret must hold this very token with --service-account-lookup; without it only the signature counts', async () => {
  put('ServiceAccount', 'ns', 'old', 'old-uid');
  const token = await signLegacyToken(signing, 'ns', 'old', 'old-uid', 'old-token');
  put('Secret', 'ns', 'old-token', 't-uid', { type: 'svc.io/service-account-token', data: { token: Buffer.from(token).toString('base64') } });
  const a = authenticator();
  const ok = await a.authenticateToken(token);
  assert.is(ok?.user.username, 'system:serviceaccount:ns:old');
  assert.equal(ok?.audiences, ['https://issuer.example'], 'a token without audiences is taken as meant for the API');
  put('Secret', 'ns', 'old-token', 't-uid', { type: 'svc.io/service-account-token', data: { token: Buffer.from('another').toString('base64') } });
  await fails(a.authenticateToken(token), /does not match the server's copy/);
  objects.delete('Secret/ns/old-token');
  await fails(a.authenticateToken(token), /old-token is gone/);
  assert.is((await authenticator({ lookup: false }).authenticateToken(token))?.user.username, 'system:serviceaccount:ns:old');
});

test('audiences: a token must be meant for one of --api-audiences; none set accepts any', async () => {
  put('ServiceAccount', 'ns', 'sa', 'sa-uid');
  const issuer = new ServiceAccountTokenIssuer(signing, 'https://issuer.example');
  const { token } = await issuer.issue({ namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, audiences: ['vault'], expirationSeconds: 600 });
  await fails(authenticator().authenticateToken(token), /token audiences \["vault"\] is invalid for the target audiences \["https:\/\/issuer.example"\]/);
  assert.equal((await authenticator({ apiAudiences: ['vault', 'x'] }).authenticateToken(token))?.audiences, ['vault']);
  assert.equal((await authenticator({ apiAudiences: [] }).authenticateToken(token))?.audiences, ['vault']);
});

test('bootstrap tokens: usage, expiration format, extra groups', async () => {
  const secrets = new Map<string, SvcObject>();
  const b = new BootstrapTokenAuthenticator(async (name) => secrets.get(name), () => Date.parse('2026-06-01T00:00:00Z'));
  const secret = (data: Record<string, string>, type = 'bootstrap.svc.io/token') =>
    secrets.set('bootstrap-token-abcdef', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'svc-system' }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) } as SvcObject);
  const base = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
  secret({ ...base, 'auth-extra-groups': 'system:bootstrappers:workers,system:bootstrappers:workers' });
  assert.equal(await b.authenticateToken('abcdef.0123456789abcdef'), { user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:workers'] } });
  assert.is(await b.authenticateToken('ABCDEF.0123456789abcdef'), null, 'not the token shape');
  secret({ ...base, 'usage-bootstrap-authentication': 'false' });
  assert.is(await b.authenticateToken('abcdef.0123456789abcdef'), null);
  secret({ ...base, expiration: 'next tuesday' });
  assert.is(await b.authenticateToken('abcdef.0123456789abcdef'), null, 'an expiration that does not parse is expired');
  secret({ ...base, expiration: '2027-01-01T00:00:00Z' });
  assert.ok(await b.authenticateToken('abcdef.0123456789abcdef'));
  secret(base, 'Opaque');
  assert.is(await b.authenticateToken('abcdef.0123456789abcdef'), null, 'another Secret type');
  secret({ ...base, 'auth-extra-groups': 'system:masters' });
  await fails(b.authenticateToken('abcdef.0123456789abcdef'), /auth-extra-groups "system:masters" must match/);
});

test('without a signing key (TokenRequest off) tokens are verified but not issued: no serviceaccounts/token, no discovery', () => {
  const pub = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const verifyOnly = { anonymous: true, apiAudiences: [], serviceAccounts: { issuers: [], verificationKeys: [pub], lookup: true, issuerDiscovery: true } };
  assert.ok(serviceAccountAuthenticator(verifyOnly, lookup));
  assert.is(tokenRequestSettings(verifyOnly, Date.now), undefined);
  assert.is(issuerDiscovery(verifyOnly, () => 'x', pino({ level: 'silent' })), undefined);
  const listed = (served: boolean) => apiResources([serviceAccountDefinition], { serviceAccountToken: served }).map((r) => r.name);
  assert.equal(listed(false), ['serviceaccounts']);
  assert.equal(listed(true), ['serviceaccounts', 'serviceaccounts/token']);
  const signs = { ...verifyOnly, serviceAccounts: { ...verifyOnly.serviceAccounts, issuers: ['https://issuer.example'], signingKey: rsaPem } };
  assert.is(tokenRequestSettings(signs, Date.now)?.issuer.issuer, 'https://issuer.example');
  assert.equal(tokenRequestSettings(signs, Date.now)?.apiAudiences, ['https://issuer.example'], 'audiences default to the issuers');
});

test.run();
