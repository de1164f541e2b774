/**
 * The wire format of service-account tokens, shared by the API server (which issues bound tokens
 * and verifies every kind, src/apiserver/auth/service-account-tokens.ts) and the
 * `serviceaccount-token` controller (which fills legacy token Secrets). The claim names are the
 * established server's, unchanged (outside verifiers read them); the Secret type and annotations
 * are this project's spelling of the established ones.
 */
import { SignJWT } from 'jose';
import type { SigningKey } from './service-account-keys.js';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
/** The private claim of bound tokens. */
export const PRIVATE_CLAIM = 'kubernetes.io';
/** The issuer of legacy secret-based tokens, and their flat claims. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
export const LEGACY_CLAIMS = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

/** The Secret type of legacy tokens, and the annotations naming their account. */
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPE = 'svc.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'svc.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'svc.io/service-account.uid';
/** The data keys of a filled token Secret. */
export const TOKEN_SECRET_KEYS = { token: 'token', caCrt: 'ca.crt', namespace: 'namespace' } as const;

/** The user name of a service account (the established MakeUsername). The one home of service accounts' user names and groups. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The groups every service account of `namespace` is in: `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** `system:serviceaccount:<ns>:<name>` -> its namespace and name; undefined for any other user name. */
export function serviceAccountOfUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** A legacy token for the account `name` (uid `uid`) of `namespace`, kept in Secret `secretName`: no audience, no expiry. */
export function signLegacyToken(key: SigningKey, namespace: string, name: string, uid: string, secretName: string): Promise<string> {
  return new SignJWT({
    [LEGACY_CLAIMS.namespace]: namespace,
    [LEGACY_CLAIMS.secretName]: secretName,
    [LEGACY_CLAIMS.serviceAccountName]: name,
    [LEGACY_CLAIMS.serviceAccountUid]: uid,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(namespace, name))
    .sign(key.key);
}
