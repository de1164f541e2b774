/**
 * Service-account tokens: the JWTs this server issues (`serviceaccounts/<name>/token`, a
 * TokenRequest) and the token method that recognises them and the legacy secret-based ones. The
 * established server's wire format and rules, kept exactly, so tokens verify with any OIDC library
 * and tools that read their claims (cloud workload identity, Vault) work unchanged:
 *
 * - Bound tokens: `iss` (the first --service-account-issuer), `sub` `system:serviceaccount:<ns>:<name>`,
 *   `aud`, `exp`, `iat`, `nbf`, `jti`, and the private claim `kubernetes.io` {namespace,
 *   serviceaccount {name, uid}, pod|secret {name, uid}}. Accepted from any --service-account-issuer.
 *   The account must still exist with the token's uid, and the bound Pod or Secret with its uid
 *   (always, as established: --service-account-lookup does not switch this off).
 * - Legacy tokens (iss `kubernetes/serviceaccount`, flat `kubernetes.io/serviceaccount/*` claims,
 *   no expiry): with --service-account-lookup the Secret must still hold this very token and the
 *   account must still exist with the claimed uid.
 * - Both: signed RS256/ES256/384/512, verified with every --service-account-key-file key (jose; no
 *   hand-written crypto); a minute of clock leeway; the token's audiences must meet --api-audiences
 *   (a token without audiences is taken as meant for them; no --api-audiences: any audience).
 * - A string that is not a JWT, or a JWT of another issuer, is not this method's (`null`: another
 *   token method may know it); one of ours that fails a check is a 401 (AuthenticationFailure).
 *
 * The user: `system:serviceaccount:<ns>:<name>`, uid the account's, groups `system:serviceaccounts`
 * and `system:serviceaccounts:<ns>`, extra `authentication.kubernetes.io/pod-name` and `pod-uid`
 * for pod-bound tokens and `authentication.kubernetes.io/credential-id` (`JTI=<jti>`).
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { SvcObject } from '../../api/types.js';
import { type Authenticated, AuthenticationFailure, type TokenAuthenticator } from './authentication.js';
import type { SigningKey, VerificationKey } from '../../api/service-account-keys.js';
import { LEGACY_CLAIMS, LEGACY_ISSUER, PRIVATE_CLAIM, serviceAccountGroups, serviceAccountUsername } from '../../api/service-account-token-format.js';
import type { UserInfo } from './user.js';

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

/** The established leeway on exp/nbf/iat. */
const CLOCK_LEEWAY_SECONDS = 60;

/** The user of a service account (and the extra of the object its token is bound to). */
export function serviceAccountUser(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
  return {
    username: serviceAccountUsername(namespace, name),
    uid,
    groups: serviceAccountGroups(namespace),
    ...(extra && Object.keys(extra).length ? { extra } : {}),
  };
}

export interface ObjectRef {
  name: string;
  uid: string;
}

/** What a bound token says. */
export interface BoundTokenRequest {
  namespace: string;
  serviceAccount: ObjectRef;
  audiences: string[];
  expirationSeconds: number;
  /** The Pod or Secret the token lives and dies with. */
  boundObject?: { kind: 'Pod' | 'Secret' } & ObjectRef;
}

/** Mints bound tokens with the signing key, as the first issuer. */
export class ServiceAccountTokenIssuer {
  constructor(
    private readonly signing: SigningKey,
    readonly issuer: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The token and when it expires (ms since the epoch). */
  async issue(r: BoundTokenRequest): Promise<{ token: string; expiresAt: number }> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const exp = nowSeconds + r.expirationSeconds;
    const priv: Record<string, unknown> = { namespace: r.namespace, serviceaccount: { name: r.serviceAccount.name, uid: r.serviceAccount.uid } };
    if (r.boundObject) priv[r.boundObject.kind === 'Pod' ? 'pod' : 'secret'] = { name: r.boundObject.name, uid: r.boundObject.uid };
    const token = await new SignJWT({ [PRIVATE_CLAIM]: priv })
      .setProtectedHeader({ alg: this.signing.alg, kid: this.signing.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(r.namespace, r.serviceAccount.name))
      .setAudience(r.audiences)
      .setIssuedAt(nowSeconds)
      .setNotBefore(nowSeconds)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.signing.key);
    return { token, expiresAt: exp * 1000 };
  }
}

/** Reads the objects a token depends on (the server's stores, through their watch caches). */
export type ObjectLookup = (kind: 'ServiceAccount' | 'Pod' | 'Secret', namespace: string, name: string) => Promise<SvcObject | undefined>;

export interface ServiceAccountAuthenticatorOptions {
  /** Accepted issuers of bound tokens (empty: only legacy tokens). */
  issuers: string[];
  keys: VerificationKey[];
  /** --api-audiences (empty: any audience). */
  apiAudiences: string[];
  /** --service-account-lookup (legacy tokens). */
  lookup: boolean;
  objects: ObjectLookup;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const rec = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'service-account';
  constructor(private readonly opts: ServiceAccountAuthenticatorOptions) {}

  /** `audiences`: what the token is checked for (a TokenReview's spec.audiences); absent: --api-audiences. */
  async authenticateToken(token: string, audiences?: readonly string[]): Promise<Authenticated | null> {
    let unverified: JWTPayload;
    let kid: string | undefined;
    try {
      unverified = decodeJwt(token);
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return null; // not a JWT
    }
    const legacy = unverified.iss === LEGACY_ISSUER;
    if (!legacy && !this.opts.issuers.includes(str(unverified.iss))) return null; // another issuer's
    const payload = await this.verify(token, kid, legacy);
    const valid = this.audiences(payload, audiences ?? this.opts.apiAudiences);
    return legacy ? this.legacyUser(token, payload, valid) : this.boundUser(payload, valid);
  }

  /** The verified claims, trying the key named by `kid` first, then every other key. */
  private async verify(token: string, kid: string | undefined, legacy: boolean): Promise<JWTPayload> {
    const keys = [...this.opts.keys].sort((a, b) => Number(b.kid === kid) - Number(a.kid === kid));
    const options = {
      issuer: legacy ? LEGACY_ISSUER : this.opts.issuers,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      ...(legacy ? {} : { requiredClaims: ['exp'] }),
    };
    for (const k of keys) {
      let payload: JWTPayload;
      try {
        payload = (await jwtVerify(token, k.key, { ...options, algorithms: [k.alg] })).payload;
      } catch (err) {
        // Another key may have signed it; any other failure is the token's own.
        if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JOSEAlgNotAllowed) continue;
        if (err instanceof joseErrors.JWTExpired) throw new AuthenticationFailure(this.name, 'service account token has expired');
        if (err instanceof joseErrors.JOSEError) throw new AuthenticationFailure(this.name, `service account token is invalid: ${err.message}`);
        throw err;
      }
      // jose checks exp and nbf; the established validator also refuses a token issued in the future.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_LEEWAY_SECONDS) {
        throw new AuthenticationFailure(this.name, 'service account token was issued in the future');
      }
      return payload;
    }
    throw new AuthenticationFailure(this.name, 'service account token signature is invalid (no verification key matches)');
  }

  /** The token's audiences that `api` (the audiences asked for) accepts (established: none given means the API's own). */
  private audiences(payload: JWTPayload, api: readonly string[]): string[] {
    const own = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const tokenAuds = own.length ? own : [...api];
    if (api.length === 0) return tokenAuds;
    const both = tokenAuds.filter((a) => api.includes(a));
    if (both.length === 0) throw new AuthenticationFailure(this.name, `token audiences ${JSON.stringify(own)} is invalid for the target audiences ${JSON.stringify(api)}`);
    return both;
  }

  private async boundUser(payload: JWTPayload, audiences: string[]): Promise<Authenticated> {
    const priv = rec(payload[PRIVATE_CLAIM]);
    const namespace = str(priv?.['namespace']);
    const sa = rec(priv?.['serviceaccount']);
    const saName = str(sa?.['name']);
    const saUid = str(sa?.['uid']);
    if (!namespace || !saName || !saUid) throw new AuthenticationFailure(this.name, `token has no valid ${PRIVATE_CLAIM} claim`);
    if (payload.sub !== serviceAccountUsername(namespace, saName)) throw new AuthenticationFailure(this.name, 'sub claim does not match the service account of the token');
    await this.mustExist('ServiceAccount', namespace, saName, saUid);
    const extra: Record<string, string[]> = {};
    const pod = rec(priv?.['pod']);
    const secret = rec(priv?.['secret']);
    if (secret) await this.mustExist('Secret', namespace, str(secret['name']), str(secret['uid']));
    if (pod) {
      await this.mustExist('Pod', namespace, str(pod['name']), str(pod['uid']));
      extra[EXTRA_POD_NAME] = [str(pod['name'])];
      extra[EXTRA_POD_UID] = [str(pod['uid'])];
    }
    if (payload.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${payload.jti}`];
    return { user: serviceAccountUser(namespace, saName, saUid, extra), audiences };
  }

  private async legacyUser(token: string, payload: JWTPayload, audiences: string[]): Promise<Authenticated> {
    const namespace = str(payload[LEGACY_CLAIMS.namespace]);
    const saName = str(payload[LEGACY_CLAIMS.serviceAccountName]);
    const saUid = str(payload[LEGACY_CLAIMS.serviceAccountUid]);
    const secretName = str(payload[LEGACY_CLAIMS.secretName]);
    if (!namespace || !saName || !saUid || !secretName) throw new AuthenticationFailure(this.name, 'legacy token is missing a service account claim');
    if (payload.sub !== serviceAccountUsername(namespace, saName)) throw new AuthenticationFailure(this.name, 'sub claim does not match the service account of the token');
    if (this.opts.lookup) {
      const secret = await this.opts.objects('Secret', namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw new AuthenticationFailure(this.name, `token has been invalidated: secret ${namespace}/${secretName} is gone`);
      const stored = str(rec(secret['data'])?.['token']);
      if (Buffer.from(stored, 'base64').toString('utf8') !== token) throw new AuthenticationFailure(this.name, "token does not match the server's copy");
      await this.mustExist('ServiceAccount', namespace, saName, saUid);
    }
    return { user: serviceAccountUser(namespace, saName, saUid), audiences };
  }

  /** The object must exist, not be on its way out, and be the one the token names (its uid). */
  private async mustExist(kind: 'ServiceAccount' | 'Pod' | 'Secret', namespace: string, name: string, uid: string): Promise<void> {
    const o = name ? await this.opts.objects(kind, namespace, name) : undefined;
    if (!o) throw new AuthenticationFailure(this.name, `token has been invalidated: ${kind} ${namespace}/${name} not found`);
    if (o.metadata.deletionTimestamp) throw new AuthenticationFailure(this.name, `token has been invalidated: ${kind} ${namespace}/${name} is being deleted`);
    if (o.metadata.uid !== uid) throw new AuthenticationFailure(this.name, `${kind} UID (${o.metadata.uid ?? ''}) does not match claim (${uid})`);
  }
}
