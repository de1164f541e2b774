/**
 * Test PKI: a certificate authority that issues client certificates, written as PEM files to a
 * temporary folder, and an HTTPS agent that presents one. For tests of client-certificate
 * authentication (--client-ca-file), an authenticating proxy (--requestheader-client-ca-file) and
 * components that log in with a certificate.
 *
 *   const ca = await createCA('test-ca');                      // ca.certFile for --client-ca-file
 *   const alice = await ca.issue({ cn: 'alice', orgs: ['devs'] }); // alice.certFile / alice.keyFile
 *   const agent = clientAgent(server, alice);                  // undici Agent for server.request-like calls
 *   writeSvcconfig(server, { name: 'alice.yaml', user: alice }) // kubectl / src/client (test/helpers/client.ts)
 *   const sub = await ca.intermediate('team-ca');              // its certificates carry the chain to `ca`
 *   const web = await ca.issue({ cn: 'hook', extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth], dnsNames: ['hook.ns.svc'], ips: ['127.0.0.1'] }); // a serving pair
 *
 * Keys are ECDSA P-256 (PKCS#8 PEM), signatures ECDSA-SHA256, as the serving pair of src/cli/tls.ts.
 * `ca.cleanup()` removes the folder.
 */
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { Agent } from 'undici';

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;

/** A certificate and its key, in memory and as files. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  certFile: string;
  keyFile: string;
}

export interface ClientCertificateRequest {
  /** CommonName: the user name. */
  cn: string;
  /** Organizations: the groups. */
  orgs?: string[];
  /** Validity (default: from a minute ago for a year). */
  notBefore?: Date;
  notAfter?: Date;
  /** Extended key usages (default clientAuth); [] leaves the extension out. */
  extendedKeyUsages?: string[];
  /** Subject alternative names, for a serving certificate (with extendedKeyUsages [serverAuth]). */
  dnsNames?: string[];
  ips?: string[];
}

export interface CertificateAuthority extends IssuedCertificate {
  /** The folder the PEM files are in. */
  dir: string;
  /**
   * Issues a client certificate signed by this CA; files `<cn>.crt` / `<cn>.key` (or `fileName`).
   * From an intermediate CA, `certPem` is the leaf followed by the intermediates (the chain a client sends).
   */
  issue(req: ClientCertificateRequest, fileName?: string): Promise<IssuedCertificate>;
  /** A CA signed by this one (`pathLength`: the basic constraints' limit; default none), in the same folder. */
  intermediate(name: string, opts?: { pathLength?: number }): Promise<CertificateAuthority>;
  cleanup(): void;
}

function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The subject of `cn` and `orgs` as an x509 name (each value its own RDN, as Go writes them). */
function subject(cn: string, orgs: readonly string[] = []): x509.Name {
  return new x509.Name([...orgs.map((o) => ({ O: [o] })), { CN: [cn] }]);
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** A new self-signed CA named `name` (files `<name>.crt` / `<name>.key` in a new temporary folder, or `dir`). */
export function createCA(name: string, dir = mkdtempSync(join(tmpdir(), 'svc-pki-'))): Promise<CertificateAuthority> {
  return makeCA(name, dir);
}

interface Signer {
  keys: webcrypto.CryptoKeyPair;
  cert: x509.X509Certificate;
  /** The PEM of the signer and its own issuers up to (not including) the root, for chains. */
  chainPem: string;
}

let serial = Date.now();

async function makeCA(name: string, dir: string, parent?: Signer, pathLength?: number): Promise<CertificateAuthority> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const now = Date.now();
  const keys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions = [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  const validity = { serialNumber: (++serial).toString(16), notBefore: new Date(now - 60_000), notAfter: new Date(now + 365 * DAY_MS), signingAlgorithm: SIGNING };
  const cert = parent
    ? await x509.X509CertificateGenerator.create({
        ...validity,
        subject: subject(name),
        issuer: parent.cert.subjectName,
        publicKey: keys.publicKey,
        signingKey: parent.keys.privateKey,
        extensions: [...extensions, await x509.AuthorityKeyIdentifierExtension.create(parent.keys.publicKey)],
      })
    : await x509.X509CertificateGenerator.createSelfSigned({ ...validity, name: subject(name), keys, extensions });
  const certPem = `${cert.toString('pem')}\n`;
  const keyPem = await pkcs8Pem(keys.privateKey);
  const certFile = join(dir, `${fileSafe(name)}.crt`);
  const keyFile = join(dir, `${fileSafe(name)}.key`);
  writeFileSync(certFile, certPem);
  writeFileSync(keyFile, keyPem, { mode: 0o600 });
  const self: Signer = { keys, cert, chainPem: parent ? certPem + parent.chainPem : '' };
  return {
    dir,
    certPem,
    keyPem,
    certFile,
    keyFile,
    async issue(req, fileName) {
      const leafKeys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const ekus = req.extendedKeyUsages ?? [x509.ExtendedKeyUsage.clientAuth];
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: (++serial).toString(16),
        subject: subject(req.cn, req.orgs),
        issuer: cert.subjectName,
        notBefore: req.notBefore ?? new Date(Date.now() - 60_000),
        notAfter: req.notAfter ?? new Date(Date.now() + 365 * DAY_MS),
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: SIGNING,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          ...(ekus.length > 0 ? [new x509.ExtendedKeyUsageExtension(ekus)] : []),
          ...(req.dnsNames?.length || req.ips?.length
            ? [new x509.SubjectAlternativeNameExtension([...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(req.ips ?? []).map((value) => ({ type: 'ip' as const, value }))])]
            : []),
          await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      const base = fileSafe(fileName ?? req.cn);
      const out: IssuedCertificate = {
        certPem: `${leaf.toString('pem')}\n${self.chainPem}`,
        keyPem: await pkcs8Pem(leafKeys.privateKey),
        certFile: join(dir, `${base}.crt`),
        keyFile: join(dir, `${base}.key`),
      };
      writeFileSync(out.certFile, out.certPem);
      writeFileSync(out.keyFile, out.keyPem, { mode: 0o600 });
      return out;
    },
    intermediate(childName, opts = {}) {
      return makeCA(childName, dir, self, opts.pathLength);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An HTTPS agent for `server` (trusting its serving CA) that presents `client`'s certificate. */
export function clientAgent(server: { caFile: string }, client: Pick<IssuedCertificate, 'certPem' | 'keyPem'>): Agent {
  return new Agent({
    connect: { ca: readFileSync(server.caFile, 'utf8'), servername: 'localhost', cert: client.certPem, key: client.keyPem },
    keepAliveTimeout: 4000,
  });
}
