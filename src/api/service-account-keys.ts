/**
 * The keys of service-account tokens: the one private key that signs (--service-account-signing-key-file)
 * and the public keys that verify (every key of every --service-account-key-file), read as the
 * established server reads them:
 *
 * - a file may hold several PEM blocks: public keys (PKIX or PKCS#1), certificates (their public
 *   key) and private keys (PKCS#8, PKCS#1 or SEC1; their public half);
 * - only RSA and ECDSA (P-256, P-384, P-521) keys; their algorithms are RS256 and ES256/384/512;
 * - a key's id (`kid`, in token headers and the JWKS document) is the unpadded base64url SHA-256 of
 *   its PKIX (DER) encoding.
 *
 * Parsing and hashing are node:crypto's; signing and verifying are jose's (./service-account-tokens.ts).
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import { exportJWK, type JWK } from 'jose';

export type TokenAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** One verification key. */
export interface VerificationKey {
  key: KeyObject;
  kid: string;
  alg: TokenAlgorithm;
}

/** The signing key, with the id and algorithm of its public half. */
export interface SigningKey {
  key: KeyObject;
  kid: string;
  alg: TokenAlgorithm;
}

/** A key file that holds no usable key, or one of another kind; the message names the source. */
export class KeyFileError extends Error {}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

const CURVE_ALG: Record<string, TokenAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** The token algorithm of a (public or private) key, or a KeyFileError naming what it is. */
export function algorithmOf(key: KeyObject, source: string): TokenAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
    const alg = CURVE_ALG[curve];
    if (alg) return alg;
    throw new KeyFileError(`${source}: ECDSA key on curve ${curve} is not supported (P-256, P-384 or P-521)`);
  }
  throw new KeyFileError(`${source}: ${key.asymmetricKeyType ?? 'unknown'} key is not supported (RSA or ECDSA)`);
}

/** The established key id: unpadded base64url of the SHA-256 of the PKIX (DER) public key. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function publicKeyOfBlock(label: string, block: string, source: string): KeyObject {
  try {
    if (label === 'CERTIFICATE') return new X509Certificate(block).publicKey;
    if (label.includes('PRIVATE KEY')) return createPublicKey(createPrivateKey(block));
    return createPublicKey(block);
  } catch (err) {
    throw new KeyFileError(`${source}: the ${label} block could not be read: ${(err as Error).message}`);
  }
}

/** Every public key in the PEM text `pem` (a KeyFileError when there is none, or one is not RSA/ECDSA). */
export function verificationKeysFrom(pem: string, source: string): VerificationKey[] {
  const out: VerificationKey[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const label = m[1]!;
    if (label === 'EC PARAMETERS') continue;
    const key = publicKeyOfBlock(label, m[0], source);
    out.push({ key, kid: keyId(key), alg: algorithmOf(key, source) });
  }
  if (out.length === 0) throw new KeyFileError(`${source}: no PEM-encoded public key, certificate or private key found`);
  return out;
}

/** The private key in the PEM text `pem` (RSA or ECDSA). */
export function signingKeyFrom(pem: string, source: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new KeyFileError(`${source}: no PEM-encoded RSA or ECDSA private key could be read: ${(err as Error).message}`);
  }
  const pub = createPublicKey(key);
  return { key, kid: keyId(pub), alg: algorithmOf(key, source) };
}

/** Does the text hold a private key of a kind that can verify tokens (the established test of --tls-private-key-file)? */
export function isServiceAccountKeyText(pem: string): boolean {
  try {
    verificationKeysFrom(pem, 'key');
    return true;
  } catch {
    return false;
  }
}

/** The JWKS document's entry of a verification key. */
export async function jwkOf(k: VerificationKey): Promise<JWK> {
  return { use: 'sig', ...(await exportJWK(k.key)), kid: k.kid, alg: k.alg };
}
