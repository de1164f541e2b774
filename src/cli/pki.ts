/**
 * The cluster's small PKI, one home for making and checking certificates:
 *
 * - `ensureClusterCA(dir)`: the cluster CA (`ca.crt`, `ca.key` 0600) in a certificate folder, made
 *   on first use and read back unchanged afterwards, so client certificates issued earlier stay
 *   valid across restarts;
 * - `issueClientCertificate`: a client certificate as the established server reads one
 *   (CommonName = user name, each Organization = a group; extended key usage clientAuth);
 * - `issueServingCertificate`: a serving certificate for some hosts (serverAuth; DNS and IP SANs).
 *
 * Checking certificates is the API server's (src/apiserver/auth/x509.ts); the components' ports
 * and the reuse check here use it.
 *
 * Keys are ECDSA P-256 (fast to make, accepted by kubectl and every client library). Generation is
 * @peculiar/x509 over WebCrypto. No hand-written crypto.
 */
import { createPrivateKey, X509Certificate, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
// @peculiar/x509 (through tsyringe) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { ChainVerifier, subjectOf } from '../apiserver/auth/x509.js';
import { loadSigningCA, signLeaf, SigningCAError, useWebCrypto, type SigningCA } from '../api/x509-signing.js';

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
/** Established lifetimes (kubeadm): the CA ten years, the certificates it issues one. */
const CA_LIFETIME_MS = 10 * 365 * DAY_MS;
const LEAF_LIFETIME_MS = 365 * DAY_MS;
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

/** A PKI problem (unreadable or mismatched files); the message names the file. */
export class PkiError extends Error {}

export interface CertificateAuthority {
  /** PEM of the CA certificate (what a `--client-ca-file` or `certificate-authority-data` holds). */
  certPem: string;
  /** PEM (PKCS#8) of its private key. */
  keyPem: string;
  certPath?: string;
  keyPath?: string;
}

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function privatePem(key: webcrypto.CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** A new self-signed CA named `commonName`. */
export async function createCertificateAuthority(commonName: string, now: Date = new Date()): Promise<CertificateAuthority> {
  useWebCrypto();
  const keys = await newKeys();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [commonName] }],
    keys,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + CA_LIFETIME_MS),
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${ca.toString('pem')}\n`, keyPem: await privatePem(keys.privateKey) };
}

export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';

/**
 * The cluster CA in `dir` (`ca.crt`, `ca.key`): read back when both exist (checked to belong
 * together), else made and written (the key 0600, the folder 0700 when made here).
 */
export async function ensureClusterCA(dir: string, commonName = 'svc-ca'): Promise<CertificateAuthority> {
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const certPem = await readFile(certPath, 'utf8');
    const keyPem = await readFile(keyPath, 'utf8');
    let matches = false;
    try {
      matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
    } catch (e) {
      throw new PkiError(`${certPath} and ${keyPath}: not a readable certificate and key (${(e as Error).message}); move them away to make a new CA`);
    }
    if (!matches) throw new PkiError(`${keyPath} is not the key of ${certPath}; move both away to make a new CA`);
    // A key left readable by others (copied by hand, an old umask) is tightened, not trusted as is.
    await chmod(keyPath, 0o600);
    return { certPem, keyPem, certPath, keyPath };
  }
  if (existsSync(certPath) || existsSync(keyPath)) {
    throw new PkiError(`${existsSync(certPath) ? keyPath : certPath} is missing while ${existsSync(certPath) ? certPath : keyPath} exists; restore it, or move both away to make a new CA (certificates issued by the old one stop working)`);
  }
  const ca = await createCertificateAuthority(commonName);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(keyPath, ca.keyPem, { mode: 0o600 });
    await writeFile(certPath, ca.certPem, { mode: 0o644 });
  } catch (e) {
    throw new PkiError(`cannot write the cluster CA to ${dir}: ${(e as Error).message}`);
  }
  return { ...ca, certPath, keyPath };
}

/** The cluster CA already in `dir` (never made here); a PkiError saying how to get one when it is missing. */
export async function loadClusterCA(dir: string): Promise<CertificateAuthority> {
  if (!existsSync(join(dir, CA_CERT_FILE)) || !existsSync(join(dir, CA_KEY_FILE))) {
    throw new PkiError(`no cluster CA in ${dir} (${CA_CERT_FILE}, ${CA_KEY_FILE}): start svc up with this data folder first, or name the folder holding them`);
  }
  return ensureClusterCA(dir);
}

export interface ClientIdentity {
  /** The CommonName: the user name the server sees. */
  user: string;
  /** One Organization each: the groups. */
  groups?: string[];
  /** Lifetime; default one year. */
  lifetimeMs?: number;
}

/**
 * A leaf certificate signed by `ca`: a new key, valid from a minute before `now` for `lifetimeMs`,
 * not a CA, for digital signatures and key encipherment, with the one extended `usage` and the
 * authority key identifier, plus `extensions`.
 */
async function issueLeaf(ca: CertificateAuthority, subject: x509.JsonName, usage: string, lifetimeMs: number, now: Date, extensions: x509.Extension[] = []): Promise<{ cert: x509.X509Certificate; key: string }> {
  let signer: SigningCA;
  try {
    signer = await loadSigningCA(ca.certPem, ca.keyPem, ca.certPath ?? 'the cluster CA');
  } catch (e) {
    if (e instanceof SigningCAError) throw new PkiError(e.message);
    throw e;
  }
  const keys = await newKeys();
  const cert = await signLeaf(signer, {
    subject,
    publicKey: keys.publicKey,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + lifetimeMs),
    keyUsages: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    extendedKeyUsages: [usage],
    extensions,
  });
  return { cert, key: await privatePem(keys.privateKey) };
}

/** A client certificate for `who`, signed by `ca` (CN = user, O = groups, clientAuth). */
export async function issueClientCertificate(ca: CertificateAuthority, who: ClientIdentity, now: Date = new Date()): Promise<KeyPair> {
  if (!who.user) throw new PkiError('a client certificate needs a user name (its CommonName)');
  // Groups first, then the CN: the order openssl and kubeadm print ("O = system:masters, CN = ...").
  const subject = [...(who.groups ?? []).map((g) => ({ O: [g] })), { CN: [who.user] }];
  const { cert, key } = await issueLeaf(ca, subject, x509.ExtendedKeyUsage.clientAuth, who.lifetimeMs ?? LEAF_LIFETIME_MS, now);
  return { cert: `${cert.toString('pem')}\n`, key };
}

/** A serving certificate for `hosts` (IPs and DNS names), signed by `ca`; `cert` holds it then the CA's. */
export async function issueServingCertificate(ca: CertificateAuthority, hosts: string[], now: Date = new Date()): Promise<KeyPair> {
  const names = [...new Set(hosts.filter((h) => h !== ''))];
  const { cert, key } = await issueLeaf(ca, [{ CN: [`${names[0] ?? 'localhost'}@${Math.floor(now.getTime() / 1000)}`] }], x509.ExtendedKeyUsage.serverAuth, LEAF_LIFETIME_MS, now, [
    new x509.SubjectAlternativeNameExtension(names.map((h) => ({ type: isIP(h) ? 'ip' : 'dns', value: h }) as const)),
  ]);
  return { cert: `${cert.toString('pem')}\n${ca.certPem}`, key };
}

/** Reissued when less than this is left (so a long-running cluster never finds its admin locked out). */
const RENEW_BEFORE_MS = 30 * DAY_MS;

/**
 * The client certificate `<dir>/<base>.crt|.key` for `who`: read back when it is still `ca`'s, names
 * the same user and groups and has more than 30 days left; else issued anew and written (key 0600).
 * Kept across restarts so copies of a client configuration made from it keep working.
 */
export async function ensureClientCertificate(ca: CertificateAuthority, dir: string, base: string, who: ClientIdentity): Promise<KeyPair & { certPath: string; keyPath: string }> {
  const certPath = join(dir, `${base}.crt`);
  const keyPath = join(dir, `${base}.key`);
  if (existsSync(certPath) && existsSync(keyPath)) {
    try {
      const cert = await readFile(certPath, 'utf8');
      const key = await readFile(keyPath, 'utf8');
      const leaf = new X509Certificate(cert);
      // Still this CA's, valid for 30 more days, naming the same user and groups, with its own key.
      new ChainVerifier(ca.certPem, 'the cluster CA').verify([leaf], Date.now() + RENEW_BEFORE_MS);
      const { commonName, organizations } = subjectOf(leaf);
      const same = commonName === who.user && JSON.stringify(organizations) === JSON.stringify(who.groups ?? []);
      if (same && leaf.checkPrivateKey(createPrivateKey(key))) return { cert, key, certPath, keyPath };
    } catch {
      // Unreadable or foreign: issue a new one below.
    }
  }
  const pair = await issueClientCertificate(ca, who);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pair.key, { mode: 0o600 });
  await chmod(keyPath, 0o600);
  await writeFile(certPath, pair.cert, { mode: 0o644 });
  return { ...pair, certPath, keyPath };
}
