/**
 * The resolved authentication and authorization settings of one API server (files already read:
 * PEM and policy text, not paths). `src/cli/apiserver-options.ts` builds them from the flags; tests
 * and `svc up` build them directly. Each method adds its own optional section here; a section that
 * is absent means the method is off.
 */

/** The --authorization-mode values, in the spec's order. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface AuthenticationConfig {
  /** --anonymous-auth: requests without credentials are system:anonymous instead of a 401. */
  anonymous: boolean;
  /** --api-audiences: a token must be meant for one of these (empty: the issuer, else any). */
  apiAudiences: string[];
  /** Service-account tokens (./service-account-tokens.ts). Absent: off (no verification key). */
  serviceAccounts?: ServiceAccountTokenConfig;
  /** --enable-bootstrap-token-auth (./bootstrap-tokens.ts). */
  bootstrapTokens?: boolean;
}

/** The --service-account-* flags, files read. */
export interface ServiceAccountTokenConfig {
  /**
   * --service-account-issuer (repeatable): the issuers whose tokens are accepted; the first is the
   * one new tokens carry. Empty: only legacy (secret-based) tokens are recognised.
   */
  issuers: string[];
  /** PEM text of each --service-account-key-file (else of --tls-private-key-file): every key in them verifies. */
  verificationKeys: string[];
  /** PEM text of --service-account-signing-key-file: the `serviceaccounts/token` subresource is served (the TokenRequest gate). */
  signingKey?: string;
  /** --service-account-max-token-expiration in seconds (absent: no bound). */
  maxTokenExpirationSeconds?: number;
  /** --service-account-lookup: a legacy token's Secret and ServiceAccount must still exist. */
  lookup: boolean;
  /** --service-account-jwks-uri: the jwks_uri of the discovery document (absent: this server's /openid/v1/jwks). */
  jwksUri?: string;
  /** The ServiceAccountIssuerDiscovery gate: /.well-known/openid-configuration and /openid/v1/jwks are served. */
  issuerDiscovery: boolean;
}

export interface AuthorizationConfig {
  /** --authorization-mode, in order. */
  modes: AuthorizationMode[];
}

/** What a server that sets nothing gets: the established defaults (anonymous on, AlwaysAllow). */
export const DEFAULT_AUTHENTICATION: Readonly<AuthenticationConfig> = Object.freeze({ anonymous: true, apiAudiences: [] });
export const DEFAULT_AUTHORIZATION: Readonly<AuthorizationConfig> = Object.freeze({ modes: ['AlwaysAllow'] as AuthorizationMode[] });
