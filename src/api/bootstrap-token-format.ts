/**
 * Bootstrap token Secrets as established, one home for their names and fields: the API server's
 * bootstrap token authenticator (src/apiserver/auth/bootstrap-tokens.ts) reads them, the
 * tokencleaner deletes expired ones and the bootstrapsigner signs `cluster-info` with them.
 *
 * A Secret `bootstrap-token-<id>` in `svc-system` of type `bootstrap.svc.io/token`, with (decoded)
 * `token-id`, `token-secret`, optionally `expiration` (RFC 3339), `usage-bootstrap-authentication`
 * and `usage-bootstrap-signing` ("true") and `auth-extra-groups`.
 */
import type { SvcObject } from './types.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.svc.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'svc-system';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
/** The public namespace and the ConfigMap the bootstrapsigner signs (`kube-public/cluster-info`). */
export const CLUSTER_INFO_NAMESPACE = 'svc-public';
export const CLUSTER_INFO_CONFIGMAP = 'cluster-info';
/** The `cluster-info` key signed, and the prefix of the signature keys (`jws-kubeconfig-<id>`). */
export const CLUSTER_INFO_KUBECONFIG_KEY = 'kubeconfig';
export const JWS_SIGNATURE_KEY_PREFIX = 'jws-kubeconfig-';

/** The Secret's data, decoded (base64 in storage). */
export function bootstrapSecretData(secret: SvcObject): Record<string, string> {
  const raw = secret['data'];
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}

/**
 * A token's expiry as established (`GetExpiration`): no `expiration`, never; one that is not an
 * RFC 3339 time counts as expired already.
 */
export function bootstrapTokenExpiry(data: Record<string, string>): { expired: boolean; at?: number } {
  const expiration = data['expiration'];
  if (expiration === undefined || expiration === '') return { expired: false };
  const at = Date.parse(expiration);
  if (!Number.isFinite(at) || !/^\d{4}-\d\d-\d\dT/.test(expiration)) return { expired: true };
  return { expired: false, at };
}
