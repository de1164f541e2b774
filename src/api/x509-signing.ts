/**
 * Signing X.509 certificates with a CA's key: the one home for it. The cluster PKI
 * (src/cli/pki.ts: the CA, the components' client and serving certificates) and the csrsigning
 * controller (controllers/csrsigning: certificates for approved CertificateSigningRequests) both
 * sign here.
 *
 * - `loadSigningCA(certPem, keyPem)`: the CA certificate and its private key, RSA or ECDSA (PKCS#1,
 *   SEC 1 or PKCS#8 PEM, as `--cluster-signing-key-file` takes them), checked to belong together;
 *   the signature algorithm follows the key as established (RSA: SHA-256 with PKCS#1 v1.5; ECDSA:
 *   SHA-256 on P-256, SHA-384 on P-384, SHA-512 on P-521).
 * - `signLeaf(ca, ...)`: a certificate that is not a CA, for a public key, with the given subject,
 *   validity, key usages, extended key usages, authority key identifier and extra extensions.
 *
 * @peculiar/x509 over WebCrypto, node:crypto to read keys; no hand-written crypto.
 */
import { createPrivateKey, randomBytes, X509Certificate as NodeX509Certificate, webcrypto, type KeyObject } from 'node:crypto';
// @peculiar/x509 (through tsyringe) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/** A CA key or certificate that cannot be used; the message says which and why. */
export class SigningCAError extends Error {}

export interface SigningCA {
  readonly cert: x509.X509Certificate;
  /** PEM of the CA certificate. */
  readonly certPem: string;
  readonly signingKey: webcrypto.CryptoKey;
  readonly signingAlgorithm: Algorithm | EcdsaParams;
  /** The authority key identifier every certificate it signs carries. */
  readonly aki: x509.Extension;
}

interface Algorithm {
  name: string;
  hash?: string;
}
interface EcdsaParams {
  name: string;
  hash: string;
}

export function useWebCrypto(): void {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
}

const CURVES: Record<string, { namedCurve: string; hash: string }> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** The WebCrypto import and signature algorithms of a private key (RSA or ECDSA). */
function algorithmsOf(key: KeyObject, what: string): { importAlg: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams; signAlg: Algorithm | EcdsaParams } {
  if (key.asymmetricKeyType === 'rsa') {
    return { importAlg: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, signAlg: { name: 'RSASSA-PKCS1-v1_5' } };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new SigningCAError(`${what}: ECDSA curve ${key.asymmetricKeyDetails?.namedCurve ?? '(unknown)'} is not supported (P-256, P-384, P-521)`);
    return { importAlg: { name: 'ECDSA', namedCurve: curve.namedCurve }, signAlg: { name: 'ECDSA', hash: curve.hash } };
  }
  throw new SigningCAError(`${what}: a ${key.asymmetricKeyType ?? 'non-asymmetric'} key cannot sign certificates (RSA or ECDSA)`);
}

/**
 * The checks of `loadSigningCA` without importing the key (synchronous, for flag checking at start):
 * throws SigningCAError naming `what` when the pair cannot sign.
 */
export function checkSigningCA(certPem: string, keyPem: string, what = 'the CA'): { nodeCert: NodeX509Certificate; key: KeyObject } {
  let nodeCert: NodeX509Certificate;
  let key: KeyObject;
  try {
    nodeCert = new NodeX509Certificate(certPem);
  } catch (e) {
    throw new SigningCAError(`${what}: the certificate does not parse: ${(e as Error).message}`);
  }
  try {
    key = createPrivateKey(keyPem);
  } catch (e) {
    throw new SigningCAError(`${what}: the private key does not parse: ${(e as Error).message}`);
  }
  if (!nodeCert.checkPrivateKey(key)) throw new SigningCAError(`${what}: the private key is not the certificate's`);
  if (!nodeCert.ca) throw new SigningCAError(`${what}: the certificate is not a CA (basic constraints)`);
  algorithmsOf(key, what);
  return { nodeCert, key };
}

/**
 * The CA of `certPem` with the private key `keyPem`; `what` names them in errors (e.g. the flags'
 * files). Throws SigningCAError when either does not parse, the key is not the certificate's, or the
 * certificate is not a CA.
 */
export async function loadSigningCA(certPem: string, keyPem: string, what = 'the CA'): Promise<SigningCA> {
  useWebCrypto();
  const { nodeCert, key } = checkSigningCA(certPem, keyPem, what);
  const { importAlg, signAlg } = algorithmsOf(key, what);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, importAlg, false, ['sign']);
  const cert = new x509.X509Certificate(nodeCert.raw);
  const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const aki = ski ? new x509.AuthorityKeyIdentifierExtension(ski.keyId) : await x509.AuthorityKeyIdentifierExtension.create(cert);
  return { cert, certPem: nodeCert.toString(), signingKey, signingAlgorithm: signAlg, aki };
}

export interface LeafRequest {
  subject: x509.JsonName | x509.Name | string;
  publicKey: x509.PublicKey | webcrypto.CryptoKey;
  notBefore: Date;
  notAfter: Date;
  /** x509.KeyUsageFlags, or'ed; 0 leaves the extension out. */
  keyUsages: number;
  /** Extended key usage OIDs; empty leaves the extension out. */
  extendedKeyUsages: readonly string[];
  extensions?: readonly x509.Extension[];
}

/** A certificate signed by `ca` that is not a CA itself, with a random 128-bit serial number. */
export async function signLeaf(ca: SigningCA, r: LeafRequest): Promise<x509.X509Certificate> {
  useWebCrypto();
  // A positive serial: the top bit cleared so DER needs no sign byte.
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  return x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: r.subject,
    issuer: ca.cert.subjectName,
    notBefore: r.notBefore,
    notAfter: r.notAfter,
    publicKey: r.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...(r.keyUsages ? [new x509.KeyUsagesExtension(r.keyUsages, true)] : []),
      ...(r.extendedKeyUsages.length ? [new x509.ExtendedKeyUsageExtension([...r.extendedKeyUsages])] : []),
      ca.aki,
      ...(r.extensions ?? []),
    ],
  });
}
