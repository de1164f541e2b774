import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import {
  certificateNames,
  createSniCallback,
  generateSelfSignedPair,
  loadServingCertificates,
  mapCipherSuites,
  mapTlsMinVersion,
  selectSniCertificate,
  type ServingCertificates,
} from '../../src/cli/tls.js';

const hosts = ['127.0.0.1', '::1', 'localhost'];

async function handshake(
  certs: ServingCertificates,
  client: tls.ConnectionOptions,
): Promise<{ protocol: string | null; peer: tls.PeerCertificate }> {
  const server = tls.createServer({
    cert: certs.cert,
    key: certs.key,
    ...(certs.minVersion ? { minVersion: certs.minVersion } : {}),
    ...(certs.ciphers ? { ciphers: certs.ciphers } : {}),
    ...(certs.sni.length ? { SNICallback: createSniCallback(certs) } : {}),
  });
  server.on('secureConnection', (s) => s.end('ok'));
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    return await new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ...client }, () => {
        resolve({ protocol: socket.getProtocol(), peer: socket.getPeerCertificate() });
        socket.end();
      });
      socket.on('error', reject);
    });
  } finally {
    server.close();
  }
}

function caOf(certs: ServingCertificates): string {
  // The generated file holds the serving certificate followed by its CA.
  const blocks = certs.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  assert.is(blocks.length, 2);
  return blocks[1] as string;
}

test('a self-signed pair is generated into --cert-dir once and reused byte for byte', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const first = await loadServingCertificates({ certDir: dir, sniCertKeys: [], hosts, component: 'apiserver' });
  const onDisk = readFileSync(join(dir, 'apiserver.crt'), 'utf8');
  assert.is(onDisk, first.cert);
  assert.is(readFileSync(join(dir, 'apiserver.key'), 'utf8'), first.key);
  const second = await loadServingCertificates({ certDir: dir, sniCertKeys: [], hosts: ['other'], component: 'apiserver' });
  assert.is(second.cert, first.cert);
  assert.is(second.key, first.key);
  const cert = new X509Certificate(first.cert);
  assert.match(cert.subjectAltName ?? '', /DNS:localhost/);
  assert.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
  assert.ok(cert.checkIssued(new X509Certificate(caOf(first))));
});

test('the generated certificate completes a verified TLS handshake', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const certs = await loadServingCertificates({ certDir: dir, sniCertKeys: [], hosts, component: 'scheduler' });
  const r = await handshake(certs, { ca: caOf(certs), servername: 'localhost' });
  assert.ok(r.protocol);
  assert.match(String(r.peer.subject.CN), /^127\.0\.0\.1@\d+$/);
});

test('--tls-min-version is enforced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const certs = await loadServingCertificates({ certDir: dir, sniCertKeys: [], hosts, component: 'apiserver', minVersion: 'VersionTLS13' });
  assert.is(certs.minVersion, 'TLSv1.3');
  const ok = await handshake(certs, { ca: caOf(certs), servername: 'localhost' });
  assert.is(ok.protocol, 'TLSv1.3');
  try {
    await handshake(certs, { ca: caOf(certs), servername: 'localhost', maxVersion: 'TLSv1.2' });
    assert.unreachable('a TLS 1.2 client must be refused');
  } catch (e) {
    assert.match(String((e as Error).message), /version|alert|protocol/i);
  }
});

test('--tls-cipher-suites maps established names and restricts TLS 1.2 suites', async () => {
  assert.is(
    mapCipherSuites(['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384']),
    'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES256-GCM-SHA384',
  );
  assert.is(mapCipherSuites([]), undefined);
  assert.throws(() => mapCipherSuites(['TLS_FAKE']), /--tls-cipher-suites.*TLS_FAKE|TLS_FAKE.*--tls-cipher-suites/);
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const certs = await loadServingCertificates({
    certDir: dir,
    sniCertKeys: [],
    hosts,
    component: 'apiserver',
    cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  });
  const r = await handshake(certs, { ca: caOf(certs), servername: 'localhost', maxVersion: 'TLSv1.2' });
  assert.is(r.protocol, 'TLSv1.2');
  await handshake(certs, { ca: caOf(certs), servername: 'localhost', maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }).then(
    () => assert.unreachable('a suite outside the list must be refused'),
    (e: Error) => assert.ok(e),
  );
});

test('--tls-min-version rejects unknown names', () => {
  assert.is(mapTlsMinVersion('VersionTLS12'), 'TLSv1.2');
  assert.throws(() => mapTlsMinVersion('TLS12'), /--tls-min-version/);
});

test('insecure choices are refused with the reason: TLS 1.0/1.1, RC4, 3DES and CBC-SHA256 suites', () => {
  assert.throws(() => mapTlsMinVersion('VersionTLS10'), /--tls-min-version: TLS 1.0 and 1.1 are insecure .*use VersionTLS12/);
  assert.throws(() => mapTlsMinVersion('VersionTLS11'), /"VersionTLS11" for --tls-min-version: TLS 1.0 and 1.1 are insecure/);
  assert.is(mapTlsMinVersion('VersionTLS13'), 'TLSv1.3');
  assert.throws(() => mapCipherSuites(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_RC4_128_SHA']), /"TLS_RSA_WITH_RC4_128_SHA" for --tls-cipher-suites: insecure cipher suite \(RC4 is broken\)/);
  assert.throws(() => mapCipherSuites(['TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA']), /insecure cipher suite \(3DES is open to Sweet32 attacks\)/);
  assert.throws(() => mapCipherSuites(['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256']), /insecure cipher suite \(CBC with SHA-256/);
  // The CBC-SHA1 suites are not on the established insecure list: still accepted.
  assert.ok(mapCipherSuites(['TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA'])!.includes('ECDHE-ECDSA-AES128-SHA'));
});

test('cert and key files are read as given and must come in pairs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const pair = await generateSelfSignedPair(['example.com']);
  writeFileSync(join(dir, 'c.crt'), pair.cert);
  writeFileSync(join(dir, 'c.key'), pair.key);
  const certs = await loadServingCertificates({ certFile: join(dir, 'c.crt'), keyFile: join(dir, 'c.key'), certDir: dir, sniCertKeys: [], hosts, component: 'x' });
  assert.is(certs.cert, pair.cert);
  await loadServingCertificates({ certFile: join(dir, 'c.crt'), certDir: dir, sniCertKeys: [], hosts, component: 'x' }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /--tls-cert-file and --tls-private-key-file/),
  );
  await loadServingCertificates({ certFile: join(dir, 'missing.crt'), keyFile: join(dir, 'c.key'), certDir: dir, sniCertKeys: [], hosts, component: 'x' }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /--tls-cert-file: cannot read/),
  );
});

test('SNI names come from explicit patterns, else from the certificate; exact beats wildcard', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const a = await generateSelfSignedPair(['a.example.com', 'shared.example.com']);
  const b = await generateSelfSignedPair(['b.example.com']);
  writeFileSync(join(dir, 'a.crt'), a.cert);
  writeFileSync(join(dir, 'a.key'), a.key);
  writeFileSync(join(dir, 'b.crt'), b.cert);
  writeFileSync(join(dir, 'b.key'), b.key);
  // The CN (`a.example.com@<time>`) is not host-like, so only the SANs are names.
  assert.equal(certificateNames(a.cert), ['a.example.com', 'shared.example.com']);
  const certs = await loadServingCertificates({
    certDir: dir,
    hosts,
    component: 'apiserver',
    sniCertKeys: [
      { certFile: join(dir, 'a.crt'), keyFile: join(dir, 'a.key'), names: [] },
      { certFile: join(dir, 'b.crt'), keyFile: join(dir, 'b.key'), names: ['*.example.com', 'shared.example.com'] },
    ],
  });
  assert.is(selectSniCertificate(certs.sni, 'a.example.com')?.cert, a.cert, 'extracted exact name');
  assert.is(selectSniCertificate(certs.sni, 'shared.example.com')?.cert, b.cert, 'explicit beats extracted');
  assert.is(selectSniCertificate(certs.sni, 'other.example.com')?.cert, b.cert, 'wildcard');
  assert.is(selectSniCertificate(certs.sni, 'x.other.org'), undefined);
  const r = await handshake(certs, { ca: caOf({ ...certs, cert: b.cert }), servername: 'zzz.example.com', checkServerIdentity: () => undefined });
  assert.match(String(r.peer.subject.CN), /^b\.example\.com@/);

  // With client certificates asked for (--client-ca-file), a name chosen by SNI still names the
  // client CA in its certificate request (Go clients send a certificate only to a CA named there).
  const clientCA = a.caCert;
  const server = tls.createServer({ cert: certs.cert, key: certs.key, requestCert: true, rejectUnauthorized: false, ca: clientCA, SNICallback: certs.sniCallbackWithClientCA!(clientCA) });
  server.on('secureConnection', (sock) => sock.end());
  server.on('tlsClientError', () => {});
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const port = (server.address() as { port: number }).port;
    const caName = new X509Certificate(clientCA).subject.replace(/^CN=/, 'CN = ');
    for (const name of ['a.example.com', 'localhost']) {
      const out = await new Promise<string>((resolve) => {
        execFile('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', name], { timeout: 10_000 }, (_err, stdout) => resolve(stdout)).stdin?.end();
      });
      assert.match(out, `Acceptable client certificate CA names\n${caName}`, name);
    }
  } finally {
    server.close();
  }
});

test.run();
