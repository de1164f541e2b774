// The certificate rules without a server: parsing certificate requests, each built-in signer's
// rules and messages, usages to X.509, signing (subject, SANs, usages, validity, capped by the CA),
// the CSR write rules (requester identity, status and approval narrowing, condition validation),
// the three admission plugins, the approver's recognisers and the cleaner's deadlines.
import { webcrypto, X509Certificate } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  apiServerClientCsrError, approvalState, builtinSignerDecision, canonicalSignerName, CsrParseError, isApproved, nodeClientCsrError, nodeServingCsrError, parseCsr,
  SIGNER_APISERVER_CLIENT, SIGNER_APISERVER_CLIENT_NODE, SIGNER_LEGACY_UNKNOWN, x509Usages,
} from '../../src/api/certificate-signers.js';
import { loadSigningCA } from '../../src/api/x509-signing.js';
import { certificateSigningRequestDefinition } from '../../src/api/kinds/certificates/certificatesigningrequest.js';
import type { SvcObject } from '../../src/api/types.js';
import { prepareCsrApprovalUpdate, prepareCsrStatusUpdate, setRequester } from '../../src/apiserver/csr-strategy.js';
import { certificateApproval } from '../../src/apiserver/admission/certificate-approval.js';
import { certificateSigning } from '../../src/apiserver/admission/certificate-signing.js';
import { certificateSubjectRestriction } from '../../src/apiserver/admission/certificate-subject-restriction.js';
import type { AdmissionAttributes } from '../../src/apiserver/admission/chain.js';
import type { Authorizer } from '../../src/apiserver/auth/authorization.js';
import { createCertificateAuthority } from '../../src/cli/pki.js';
import { RECOGNIZERS } from '../../controllers/csrapproving/index.js';
import { cleanupDeadline } from '../../controllers/csrcleaner/index.js';
import { BACKDATE_MS, signRequest, validity } from '../../controllers/csrsigning/index.js';
import type { CertificateSigningRequest } from '../../src/api/generated/kinds.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function request(subject: string, sans: x509.JsonGeneralName[] = []): Promise<string> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject, keys, signingAlgorithm: EC, extensions: sans.length ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return Buffer.from(csr.toString('pem')).toString('base64');
}

test('parseCsr: subject, organizations and SANs; a wrong PEM block or a broken signature is refused', async () => {
  const p = await parseCsr(await request('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1.example' }, { type: 'ip', value: '10.0.0.1' }]));
  assert.is(p.commonName, 'system:node:n1');
  assert.equal(p.organizations, ['system:nodes']);
  assert.equal(p.dnsNames, ['n1.example']);
  assert.equal(p.ipAddresses, ['10.0.0.1']);
  try {
    await parseCsr(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64'));
    assert.unreachable();
  } catch (e) {
    assert.instance(e, CsrParseError);
    assert.match((e as Error).message, 'PEM block type must be CERTIFICATE REQUEST');
  }
  const pem = Buffer.from(await request('CN=x'), 'base64').toString();
  const body = pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
  const der = Buffer.from(body, 'base64');
  der[der.length - 5] = der[der.length - 5]! ^ 0xff; // inside the signature
  const broken = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  await parseCsr(broken).then(() => assert.unreachable(), (e) => assert.instance(e, CsrParseError));
});

test('signer rules: node client, node serving, API server client, legacy; the established messages', async () => {
  const node = await parseCsr(await request('CN=system:node:n1, O=system:nodes'));
  assert.is(nodeClientCsrError(node, ['digital signature', 'key encipherment', 'client auth']), undefined);
  assert.is(nodeClientCsrError(node, ['digital signature', 'client auth']), undefined);
  assert.is(nodeClientCsrError(node, ['client auth']), 'usages did not match [client auth digital signature key encipherment]');
  assert.is(nodeClientCsrError(await parseCsr(await request('CN=system:node:n1')), ['digital signature', 'client auth']), 'subject organization is not system:nodes');
  assert.is(nodeClientCsrError(await parseCsr(await request('CN=alice, O=system:nodes')), ['digital signature', 'client auth']), 'subject common name does not begin with system:node:');
  const withDns = await parseCsr(await request('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1' }]));
  assert.is(nodeClientCsrError(withDns, ['digital signature', 'client auth']), 'DNS subjectAltNames are not allowed');
  assert.is(nodeServingCsrError(withDns, ['digital signature', 'server auth']), undefined);
  assert.is(nodeServingCsrError(node, ['digital signature', 'server auth']), 'DNS or IP subjectAltName is required');
  assert.is(apiServerClientCsrError(['client auth', 'digital signature']), undefined);
  assert.is(apiServerClientCsrError(['server auth', 'client auth']), 'invalid usage for client certificate: server auth');
  assert.is(apiServerClientCsrError(['digital signature']), 'missing required usage for client certificate: client auth');
  assert.equal(builtinSignerDecision(SIGNER_LEGACY_UNKNOWN, node, ['anything']), { recognized: true, error: undefined });
  assert.equal(builtinSignerDecision('example.com/mine', node, []), { recognized: false });
  assert.is(canonicalSignerName('kubernetes.io/kube-apiserver-client-kubelet'), SIGNER_APISERVER_CLIENT_NODE);
  assert.is(canonicalSignerName('example.com/mine'), 'example.com/mine');
});

test('usages map to X.509 key usages and extended key usages', () => {
  const u = x509Usages(['digital signature', 'key encipherment', 'client auth', 'server auth']);
  assert.is(u.keyUsages, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
  assert.equal(u.extendedKeyUsages, [x509.ExtendedKeyUsage.clientAuth, x509.ExtendedKeyUsage.serverAuth]);
  assert.throws(() => x509Usages(['flying']), /unknown usage: flying/);
});

test('signing: the request subject, SANs and key, the usages, 5 min backdate, the duration, expirationSeconds, capped by the CA', async () => {
  const caPair = await createCertificateAuthority('test-ca');
  const ca = await loadSigningCA(caPair.certPem, caPair.keyPem);
  const now = Date.now();
  const year = 365 * 86_400_000;
  assert.equal(validity(now, year, undefined, new Date(now + 2 * year)), { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + year) });
  assert.is(validity(now, year, 3600, new Date(now + 2 * year)).notAfter.getTime(), now + 3_600_000, 'a shorter request wins');
  assert.is(validity(now, year, 60, new Date(now + 2 * year)).notAfter.getTime(), now + 600_000, 'never below ten minutes');
  assert.is(validity(now, year, 10 * 365 * 86400, new Date(now + 2 * year)).notAfter.getTime(), now + year, 'never above the duration');
  assert.is(validity(now, year, undefined, new Date(now + 1000)).notAfter.getTime(), now + 1000, 'never past the CA');
  const parsed = await parseCsr(await request('CN=system:node:n1, O=system:nodes', [{ type: 'ip', value: '10.1.2.3' }]));
  const pem = await signRequest(ca, parsed, ['digital signature', 'server auth'], validity(now, year, undefined, ca.cert.notAfter));
  const cert = new X509Certificate(pem);
  assert.ok(cert.verify(new X509Certificate(caPair.certPem).publicKey), 'signed by the CA');
  assert.is(cert.ca, false);
  assert.match(cert.subject, /CN=system:node:n1/);
  assert.match(cert.subject, /O=system:nodes/);
  assert.match(cert.subjectAltName ?? '', /IP Address:10.1.2.3/);
  assert.equal(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(cert.publicKey.equals(await publicKeyOf(parsed)), "the request's key");
});

async function publicKeyOf(p: Awaited<ReturnType<typeof parseCsr>>) {
  const { createPublicKey } = await import('node:crypto');
  return createPublicKey({ key: Buffer.from(p.request.publicKey.rawData), format: 'der', type: 'spki' });
}

const csr = (o: Partial<CertificateSigningRequest> = {}): SvcObject =>
  ({ apiVersion: 'certificates.svc.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c' }, spec: { request: 'x', signerName: SIGNER_APISERVER_CLIENT, usages: ['client auth'], username: 'alice' }, ...o }) as SvcObject;
const errorsOf = (o: SvcObject, old?: SvcObject) => certificateSigningRequestDefinition.validate!(o, old).map((e) => `${e.field}: ${e.message}`);

test('write rules: requester set on create; status keeps approval; approval keeps the certificate; condition validation', () => {
  const created = csr({ spec: { request: 'x', signerName: 's/x', usages: [], username: 'mallory', groups: ['system:masters'] } });
  setRequester(created, { username: 'bob', uid: 'u1', groups: ['devs'] });
  assert.equal(created.spec, { request: 'x', signerName: 's/x', usages: [], username: 'bob', uid: 'u1', groups: ['devs'] });
  const approved = csr({ status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', lastUpdateTime: '2020-01-01T00:00:00Z', lastTransitionTime: '2020-01-01T00:00:00Z' }] } });
  const statusWrite = csr({ spec: { request: 'changed' }, status: { certificate: 'Y2VydA==', conditions: [{ type: 'Denied', status: 'True' }] } } as Partial<CertificateSigningRequest>);
  prepareCsrStatusUpdate(statusWrite, approved, '2024-01-01T00:00:00Z');
  assert.is((statusWrite.spec as { request: string }).request, 'x', 'the spec stays');
  assert.equal((statusWrite.status as { conditions: { type: string }[] }).conditions.map((c) => c.type), ['Approved'], 'status cannot approve or deny');
  const signed = csr({ status: { certificate: 'Y2VydA==' } });
  const approval = csr({ status: { certificate: 'b3RoZXI=', conditions: [{ type: 'Approved', status: 'True' }] } });
  prepareCsrApprovalUpdate(approval, signed, '2024-01-01T00:00:00Z');
  const st = approval.status as { certificate: string; conditions: Record<string, string>[] };
  assert.is(st.certificate, 'Y2VydA==', 'approval cannot change the certificate');
  assert.is(st.conditions[0]!['lastUpdateTime'], '2024-01-01T00:00:00Z');
  assert.is(st.conditions[0]!['lastTransitionTime'], '2024-01-01T00:00:00Z');
  const both = csr({ status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } });
  assert.ok(errorsOf(both).some((e) => e.includes('Approved and Denied conditions are mutually exclusive')));
  assert.ok(errorsOf(csr({ status: { conditions: [{ type: 'Approved', status: 'False' }] } })).some((e) => e.startsWith('status.conditions[0].status')));
  assert.ok(errorsOf(csr(), approved).some((e) => e.includes('updates may not remove a condition of type "Approved"')));
  assert.ok(errorsOf(csr({ status: { certificate: 'b3RoZXI=' } }), signed).some((e) => e.includes('updates may not modify existing certificate content')));
  assert.ok(errorsOf(csr({ spec: { request: 'x', signerName: 'a/b', usages: ['client auth'], expirationSeconds: 60 } })).some((e) => e.startsWith('spec.expirationSeconds')));
  assert.is(approvalState(approved as unknown as CertificateSigningRequest).approved, true);
  assert.is(isApproved(both as unknown as CertificateSigningRequest), false, 'denied wins');
});

const attrs = (o: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: 'UPDATE', def: certificateSigningRequestDefinition, namespace: '', name: 'c', subresource: 'approval', dryRun: false, user: { username: 'u', groups: [] }, ...o,
});
/** The refusal a plugin's validate rejects with (a test failure when it admits). */
async function refusal(p: void | Promise<void>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error('admitted');
}
const allowOnly = (allowed: (verb: string, name: string) => boolean): Authorizer => ({
  mode: 'test',
  authorize: (_u, a) => ({ allowed: a.kind === 'resource' && a.resource === 'signers' && allowed(a.verb, a.name), reason: '' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
});

test('admission: approve and sign on the signer, by name or <domain>/*; no system:masters for the client signer', async () => {
  const approval = certificateApproval(() => allowOnly((v, n) => v === 'approve' && n === 'svc.io/*'));
  await approval.validate!(attrs({ object: csr() }));
  const strict = certificateApproval(() => allowOnly(() => false));
  const e = await refusal(strict.validate!(attrs({ object: csr() })));
  assert.is(e.code, 403);
  assert.is(e.message, 'certificatesigningrequests.certificates.svc.io "c" is forbidden: user not permitted to approve requests with signerName "svc.io/svc-apiserver-client"');
  const signing = certificateSigning(() => allowOnly(() => false));
  assert.ok(signing.handles(attrs({ subresource: 'status' })));
  await signing.validate!(attrs({ subresource: 'status', object: csr(), oldObject: csr() }));
  assert.match((await refusal(signing.validate!(attrs({ subresource: 'status', object: csr({ status: { certificate: 'eA==' } }), oldObject: csr() })))).message, 'user not permitted to sign requests with signerName');
  const restriction = certificateSubjectRestriction();
  const masters = csr({ spec: { request: await request('CN=boss, O=system:masters'), signerName: SIGNER_APISERVER_CLIENT, usages: ['client auth'] } });
  assert.ok(restriction.handles(attrs({ operation: 'CREATE', subresource: '' })));
  assert.match((await refusal(restriction.validate!(attrs({ operation: 'CREATE', subresource: '', object: masters })))).message, 'use of svc.io/svc-apiserver-client signer with system:masters group is not allowed');
  const legacy = csr({ spec: { request: await request('CN=boss, O=system:masters'), signerName: SIGNER_LEGACY_UNKNOWN, usages: ['client auth'] } });
  await restriction.validate!(attrs({ operation: 'CREATE', subresource: '', object: legacy }));
});

test('approver recognisers: selfnodeclient when the requester is the subject, nodeclient for any node client request', async () => {
  const parsed = await parseCsr(await request('CN=system:node:n1, O=system:nodes'));
  const of = (username: string, signerName = SIGNER_APISERVER_CLIENT_NODE) =>
    RECOGNIZERS.filter((r) => r.recognize({ spec: { signerName, username, usages: ['digital signature', 'client auth'], request: '' } } as unknown as CertificateSigningRequest, parsed)).map((r) => r.subresource);
  assert.equal(of('system:node:n1'), ['selfnodeclient', 'nodeclient']);
  assert.equal(of('system:bootstrap:abcdef'), ['nodeclient']);
  assert.equal(of('system:node:n1', SIGNER_APISERVER_CLIENT), []);
});

test('cleaner deadlines: approved and issued 1 h, denied 1 h, failed 1 h, pending 24 h, an expired certificate at once', async () => {
  const t0 = Date.parse('2024-01-01T00:00:00Z');
  const at = (o: Partial<CertificateSigningRequest>) => cleanupDeadline({ metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' }, ...o } as CertificateSigningRequest)?.at;
  assert.is(at({}), t0 + 24 * 3_600_000);
  assert.is(at({ status: { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2024-01-01T00:00:00Z' }] } } as Partial<CertificateSigningRequest>), t0 + 3_600_000);
  assert.is(at({ status: { conditions: [{ type: 'Approved', status: 'True' }] } } as Partial<CertificateSigningRequest>), undefined, 'approved, not issued, no time: never');
  const caPair = await createCertificateAuthority('c');
  const ca = await loadSigningCA(caPair.certPem, caPair.keyPem);
  const expired = await signRequest(ca, await parseCsr(await request('CN=x')), ['client auth'], { notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 3600_000) });
  const deadline = at({ status: { certificate: Buffer.from(expired).toString('base64'), conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: new Date().toISOString() }] } } as Partial<CertificateSigningRequest>)!;
  assert.ok(deadline < Date.now(), 'expired certificate: due now');
});

test.run();
