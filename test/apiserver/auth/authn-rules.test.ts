/**
 * The rules of the authentication methods and of impersonation, in process (the e2e file
 * authn-methods.test.ts shows them through a real server): certificate chains through
 * intermediates, path-length limits and dates; the token file's CSV; request headers sent several
 * times; audiences of audience-agnostic tokens; the impersonated user's groups and the attributes
 * each part is authorized with.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BearerTokenAuthenticator, audienceAgnostic, type AuthenticationRequest } from '../../../src/apiserver/auth/authentication.js';
import type { AccessAttributes, Authorizer } from '../../../src/apiserver/auth/authorization.js';
import { impersonatedUser } from '../../../src/apiserver/auth/impersonation.js';
import { RequestHeaderAuthenticator } from '../../../src/apiserver/auth/request-header.js';
import { parseCsv, TokenFileAuthenticator } from '../../../src/apiserver/auth/token-file.js';
import { ChainVerifier, ClientCertificateAuthenticator, parseCertificateBundle } from '../../../src/apiserver/auth/x509.js';
import { type CertificateAuthority, createCA } from '../../helpers/pki.js';

let root: CertificateAuthority;
test.before(async () => {
  root = await createCA('root-ca');
});
test.after(() => root.cleanup());

const request = (rawHeaders: string[], chain: ReturnType<typeof parseCertificateBundle> = []): AuthenticationRequest => {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const k = rawHeaders[i]!.toLowerCase();
    headers[k] = headers[k] === undefined ? rawHeaders[i + 1]! : `${headers[k]}, ${rawHeaders[i + 1]}`;
  }
  return { headers, rawHeaders, peerCertificates: () => chain };
};

test('certificate chains: through the intermediates the client sends, within path lengths and dates', async () => {
  const team = await root.intermediate('team-ca');
  const alice = parseCertificateBundle((await team.issue({ cn: 'alice', orgs: ['team'] })).certPem, 'alice');
  assert.is(alice.length, 2, 'leaf and intermediate');
  const verifier = new ChainVerifier(root.certPem, 'test');
  assert.is(verifier.verify(alice).length, 3);
  // Without its intermediate the leaf does not reach the root.
  assert.throws(() => new ChainVerifier(root.certPem, 'test').verify(alice.slice(0, 1)), /unknown authority/);
  // A CA that allows no intermediate below it.
  const strict = await root.intermediate('strict-ca', { pathLength: 0 });
  const deep = parseCertificateBundle((await (await strict.intermediate('deep-ca')).issue({ cn: 'bob' })).certPem, 'bob');
  assert.is(deep.length, 3);
  assert.throws(() => verifier.verify(deep), /too many intermediates/);
  // Not yet valid now, valid later: a date refusal is not remembered for the connection.
  const soon = parseCertificateBundle((await root.issue({ cn: 'soon', notBefore: new Date(Date.now() + 3_600_000) })).certPem, 'soon');
  assert.throws(() => verifier.verify(soon), /not yet valid|is before/);
  assert.is(verifier.verify(soon, Date.now() + 7_200_000).length, 2);

  const x509 = new ClientCertificateAuthenticator(root.certPem);
  assert.equal(x509.authenticate(request([], alice)), { user: { username: 'alice', groups: ['team'] } });
  assert.is(x509.authenticate(request([], [])), null, 'no certificate: not this method');
  assert.throws(() => new ClientCertificateAuthenticator('not a pem'), /--client-ca-file: no PEM certificate/);
});

test('the token file: quoted fields, blank lines, errors naming the line', () => {
  assert.equal(parseCsv('a,"b,c","say ""hi"""\r\n\r\n  d , e,"multi\nline"\n').map((r) => [r.line, r.fields]), [
    [1, ['a', 'b,c', 'say "hi"']],
    [3, ['d ', 'e', 'multi\nline']],
  ]);
  assert.throws(() => parseCsv('ok,1,2\nbad"quote,1,2\n'), /line 2: bare " in non-quoted-field/);
  assert.throws(() => new TokenFileAuthenticator('t1,u1,id1\n"open,u2,id2\n', 'tokens.csv'), /--token-auth-file tokens\.csv: .*extraneous or missing "/);
  const file = new TokenFileAuthenticator('t1,u1,id1,"a,b"\n,skipped,id\nt1,again,id2\n', 'tokens.csv');
  assert.is(file.size, 1, 'an empty token is skipped; a repeated token keeps its last line');
  assert.equal(file.authenticateToken('t1'), { user: { username: 'again', uid: 'id2', groups: [] } });
});

test('static tokens are for the server audiences only (audience agnostic)', async () => {
  const file = new TokenFileAuthenticator('t1,u1,id1\n', 'tokens.csv');
  const bearer = new BearerTokenAuthenticator([audienceAgnostic(['https://svc'], file)], ['https://svc']);
  assert.equal((await bearer.authenticateToken('t1', ['https://svc', 'other'])).audiences, ['https://svc']);
  await bearer.authenticateToken('t1', ['other']).then(
    () => assert.unreachable('another audience'),
    (e: Error) => assert.match(e.message, /invalid bearer token/),
  );
  const open = new BearerTokenAuthenticator([audienceAgnostic([], file)]);
  assert.is((await open.authenticate(request(['Authorization', 'Bearer t1'])))?.user.username, 'u1');
});

test('request headers: each value of a header sent several times; extras unescaped; no user header is not this method', async () => {
  const proxyCa = await createCA('proxy-ca', root.dir);
  const proxy = parseCertificateBundle((await proxyCa.issue({ cn: 'front-proxy' })).certPem, 'proxy');
  const rh = new RequestHeaderAuthenticator({ clientCA: proxyCa.certPem, allowedNames: ['front-proxy'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] });
  const found = rh.authenticate(request(['X-Remote-User', 'dave', 'X-Remote-Group', 'a, b', 'x-remote-group', 'c', 'X-Remote-Extra-Acme.com%2FScopes', 'read', 'X-Remote-Extra-acme.com%2fscopes', 'write'], proxy));
  assert.equal(found, { user: { username: 'dave', groups: ['a, b', 'c'], extra: { 'acme.com/scopes': ['read', 'write'] } } });
  assert.is(rh.authenticate(request(['X-Remote-Group', 'a'], proxy)), null);
  const other = parseCertificateBundle((await root.issue({ cn: 'front-proxy' })).certPem, 'other');
  assert.throws(() => rh.authenticate(request(['X-Remote-User', 'dave'], other)), /unknown authority/);
});

test('impersonation: the groups of the new user and the attributes each part is authorized with', async () => {
  const asked: AccessAttributes[] = [];
  const allowAll: Authorizer = { mode: 'Test', authorize: (_u, a) => (asked.push(a), { allowed: true, reason: '' }), rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }) };
  const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'], uid: 'x', extra: { a: ['b'] } };
  const as = (raw: string[]) => impersonatedUser(request(raw), admin, allowAll);

  assert.is(await as([]), admin, 'no headers: the same user');
  assert.equal(await as(['Impersonate-User', 'bob']), { username: 'bob', groups: ['system:authenticated'] });
  assert.equal(await as(['Impersonate-User', 'system:anonymous']), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  assert.equal(await as(['Impersonate-User', 'bob', 'Impersonate-Group', 'system:unauthenticated']), { username: 'bob', groups: ['system:unauthenticated'] });
  assert.equal(await as(['Impersonate-User', 'system:serviceaccount:ns1:robot']), {
    username: 'system:serviceaccount:ns1:robot',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
  });
  asked.length = 0;
  const full = await as(['Impersonate-User', 'bob', 'Impersonate-Group', 'g1', 'Impersonate-Group', 'g2', 'Impersonate-Uid', '42', 'Impersonate-Extra-Acme.com%2fProject', 'p1']);
  assert.equal(full, { username: 'bob', uid: '42', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
  const attrs = (a: AccessAttributes) => (a.kind === 'resource' ? [a.verb, a.group, a.resource, a.subresource, a.namespace, a.name] : []);
  assert.equal(asked.map(attrs), [
    ['impersonate', '', 'users', '', '', 'bob'],
    ['impersonate', '', 'groups', '', '', 'g1'],
    ['impersonate', '', 'groups', '', '', 'g2'],
    ['impersonate', 'authentication.svc.io', 'userextras', 'acme.com/project', '', 'p1'],
    ['impersonate', 'authentication.svc.io', 'uids', '', '', '42'],
  ]);
  // The first part refused decides, with the established message.
  const onlyUsers: Authorizer = { ...allowAll, authorize: (_u, a) => ({ allowed: a.kind === 'resource' && a.resource === 'users', reason: 'not groups' }) };
  await impersonatedUser(request(['Impersonate-User', 'bob', 'Impersonate-Group', 'g1']), admin, onlyUsers).then(
    () => assert.unreachable('group refused'),
    (e: { code: number; message: string }) => {
      assert.is(e.code, 403);
      assert.is(e.message, 'groups "g1" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope: not groups');
    },
  );
});

test.run();
