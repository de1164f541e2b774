/**
 * OpenID Connect id tokens (--oidc-issuer-url and the other --oidc-* flags): a bearer token that
 * is a JWT whose `iss` is the configured issuer is verified against the issuer's published keys.
 *
 * The established behaviour, kept:
 * - Start is never blocked by the issuer: its discovery document
 *   (`<issuer>/.well-known/openid-configuration`, whose `issuer` must equal the flag) and key set
 *   (`jwks_uri`) are fetched in the background, again every 10 s until they arrive. Until then
 *   the issuer's tokens are refused (401) with "authenticator not initialized".
 * - A token is this method's only when it is a JWT whose unverified `iss` is the issuer; any
 *   other token is left to the next method.
 * - Verified (jose): the signature with an algorithm of --oidc-signing-algs, `iss`, `aud`
 *   containing --oidc-client-id, `exp` present and not past, `nbf` not ahead.
 * - An unknown key id makes the key set be fetched again (key rotation), at most once per 10 s
 *   (a flood of forged key ids cannot make the server hammer the issuer); the key set is also
 *   refreshed when older than 10 minutes.
 * - The user name is the --oidc-username-claim (a string), prefixed by the resolved
 *   --oidc-username-prefix (config: default issuer URL + '#' for claims other than `email`, `-`
 *   none). With the `email` claim, a present `email_verified` must be true.
 * - Groups: the --oidc-groups-claim, a string or a list of strings (absent: none), each prefixed
 *   by --oidc-groups-prefix.
 * - Every --oidc-required-claim must be present with exactly the given string value.
 * HTTPS to the issuer trusts --oidc-ca-file when set, else the host's roots.
 */
import { createRemoteJWKSet, customFetch, decodeJwt, errors as joseErrors, type FetchImplementation, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { AuthenticationFailure, type Authenticated, type TokenAuthenticator } from './authentication.js';
import type { OidcConfig } from './config.js';
import type { UserInfo } from './user.js';
import { callRemote, jsonOf, type RemoteTarget } from './webhook-client.js';

/** Discovery is tried again this often while it fails (the established 10 s). */
export const OIDC_DISCOVERY_RETRY_MS = 10_000;
/** The least time between two fetches of the key set for unknown key ids. */
export const OIDC_JWKS_COOLDOWN_MS = 10_000;
/** The key set is fetched again when older than this. */
export const OIDC_JWKS_MAX_AGE_MS = 10 * 60_000;
/** One discovery or key-set fetch. */
const FETCH_TIMEOUT_MS = 10_000;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export class OidcAuthenticator implements TokenAuthenticator {
  readonly name = 'oidc';
  private keys: KeySet | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** The last discovery failure, for the refusal message. */
  private lastError = '';

  constructor(
    private readonly config: OidcConfig,
    private readonly logger?: Logger,
  ) {}

  /** Starts discovery in the background (never waits for the issuer). */
  start(): this {
    void this.discover();
    return this;
  }

  /** True once the issuer's keys have arrived. */
  get initialized(): boolean {
    return this.keys !== undefined;
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
  }

  private target(url: string): RemoteTarget {
    return { url, tls: this.config.caPem ? { ca: this.config.caPem } : {} };
  }

  /** jose's fetch of the key set, over our HTTPS call (which trusts --oidc-ca-file). */
  private readonly fetchKeys: FetchImplementation = async (url) => {
    const a = await callRemote(this.target(url), 'GET', undefined, { timeoutMs: FETCH_TIMEOUT_MS });
    return new Response(a.body, { status: a.status, headers: { 'content-type': 'application/json' } });
  };

  private async discover(): Promise<void> {
    if (this.closed) return;
    const issuer = this.config.issuerUrl;
    try {
      const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const doc = jsonOf(this.target(url), await callRemote(this.target(url), 'GET', undefined, { timeoutMs: FETCH_TIMEOUT_MS })) as Record<string, unknown>;
      if (doc?.['issuer'] !== issuer) throw new Error(`the discovery document names issuer ${JSON.stringify(doc?.['issuer'])}, not ${JSON.stringify(issuer)}`);
      const jwksUri = doc['jwks_uri'];
      if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://')) throw new Error(`the discovery document has no https jwks_uri (${JSON.stringify(jwksUri)})`);
      const keys = createRemoteJWKSet(new URL(jwksUri), {
        cooldownDuration: OIDC_JWKS_COOLDOWN_MS,
        cacheMaxAge: OIDC_JWKS_MAX_AGE_MS,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [customFetch]: this.fetchKeys,
      });
      await keys.reload();
      if (this.closed) return;
      this.keys = keys;
      this.logger?.info({ issuer, jwksUri }, 'oidc: issuer keys loaded');
    } catch (err) {
      this.lastError = (err as Error).message;
      this.logger?.warn({ issuer, err: this.lastError }, `oidc: issuer not reachable yet, trying again in ${OIDC_DISCOVERY_RETRY_MS / 1000} s`);
      if (!this.closed) {
        this.retry = setTimeout(() => void this.discover(), OIDC_DISCOVERY_RETRY_MS);
        this.retry.unref();
      }
    }
  }

  async authenticateToken(token: string): Promise<Authenticated | null> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return null; // not a JWT
    }
    if (unverified.iss !== this.config.issuerUrl) return null; // another issuer's token
    const fail = (why: string): never => {
      throw new AuthenticationFailure(this.name, `oidc: ${why}`);
    };
    if (!this.keys) return fail(`authenticator not initialized${this.lastError ? ` (${this.lastError})` : ''}`);
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuerUrl,
        audience: this.config.clientId,
        algorithms: this.config.signingAlgs,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return fail(`verify token: ${err.message}`);
      throw err;
    }
    return { user: this.userOf(claims, fail) };
  }

  private userOf(claims: JWTPayload, fail: (why: string) => never): UserInfo {
    const c = this.config;
    for (const [claim, want] of Object.entries(c.requiredClaims)) {
      if (!(claim in claims)) fail(`required claim ${claim} not present in ID token`);
      if (claims[claim] !== want) fail(`required claim ${claim} value does not match. Got = ${JSON.stringify(claims[claim])}, want = ${want}`);
    }
    const name = claims[c.usernameClaim];
    if (name === undefined) fail(`parse username claims ${JSON.stringify(c.usernameClaim)}: claim not present`);
    if (typeof name !== 'string') fail(`parse username claims ${JSON.stringify(c.usernameClaim)}: not a string`);
    if (c.usernameClaim === 'email' && 'email_verified' in claims) {
      const verified = claims['email_verified'];
      if (typeof verified !== 'boolean') fail("parse 'email_verified' claim: not a boolean");
      if (!verified) fail('email not verified');
    }
    const user: UserInfo = { username: `${c.usernamePrefix}${name as string}`, groups: [] };
    if (c.groupsClaim && claims[c.groupsClaim] !== undefined) {
      const g = claims[c.groupsClaim];
      const groups = typeof g === 'string' ? [g] : Array.isArray(g) && g.every((x) => typeof x === 'string') ? (g as string[]) : fail(`parse groups claim ${JSON.stringify(c.groupsClaim)}: not a string or a list of strings`);
      user.groups = groups.map((x) => `${c.groupsPrefix}${x}`);
    }
    return user;
  }
}
