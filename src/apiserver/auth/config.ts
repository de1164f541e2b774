/**
 * The resolved authentication and authorization settings of one API server (files already read:
 * PEM and policy text, not paths). `src/cli/apiserver-options.ts` builds them from the flags; tests
 * and `svc up` build them directly. Each method adds its own optional section here; a section that
 * is absent means the method is off.
 */

import type { ClientConfig } from '../../client/svcconfig.js';

/** The --authorization-mode values, in the spec's order. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface AuthenticationConfig {
  /** --anonymous-auth: requests without credentials are system:anonymous instead of a 401. */
  anonymous: boolean;
  /** --api-audiences: a token must be meant for one of these (empty: the issuer, else any). */
  apiAudiences: string[];
  /**
   * The token cache in front of every bearer-token method (./token-cache.ts). No flag sets it, as
   * established (success 10 s, failures 0); absent: those defaults. Embedders and tests may set it.
   */
  tokenCache?: { successTtlMs: number; failureTtlMs: number };
  /** --client-ca-file: client certificates signed by these authorities authenticate (./x509.ts). */
  x509?: X509Config;
  /** --token-auth-file (./token-file.ts). */
  tokenFile?: TokenFileConfig;
  /** --requestheader-*: an authenticating proxy's asserted user (./request-header.ts). */
  requestHeader?: RequestHeaderConfig;
  /** Service-account tokens (./service-account-tokens.ts). Absent: off (no verification key). */
  serviceAccounts?: ServiceAccountTokenConfig;
  /** --enable-bootstrap-token-auth (./bootstrap-tokens.ts). */
  bootstrapTokens?: boolean;
  /** The --oidc-* flags (./oidc.ts); absent: OIDC id tokens are not accepted. */
  oidc?: OidcConfig;
  /** The --authentication-token-webhook-* flags (./webhook-token.ts); absent: no token webhook. */
  tokenWebhook?: TokenWebhookConfig;
}

export interface X509Config {
  /** The PEM bundle of --client-ca-file. */
  clientCA: string;
}

export interface TokenFileConfig {
  /** The CSV text (`token,user,uid,"group1,group2"` per line). */
  text: string;
  /** Where it came from, for messages (e.g. the file's path). */
  source: string;
}

export interface RequestHeaderConfig {
  /** The PEM bundle of --requestheader-client-ca-file: only a client certificate it verifies may assert a user. */
  clientCA: string;
  /** --requestheader-allowed-names: the CommonNames that may (empty: any the CA verifies). */
  allowedNames: string[];
  /** --requestheader-username-headers, in order: the first with a value names the user. */
  usernameHeaders: string[];
  /** --requestheader-group-headers: every value of each is a group. */
  groupHeaders: string[];
  /** --requestheader-extra-headers-prefix: `<prefix><key>: value` is extra[key]. */
  extraHeaderPrefixes: string[];
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

/** The signing algorithms --oidc-signing-algs accepts (the established list). */
export const OIDC_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;

export interface OidcConfig {
  /** --oidc-issuer-url: https; must equal the discovery document's `issuer` and the tokens' `iss`. */
  issuerUrl: string;
  /** --oidc-client-id: the audience (`aud`) every token must name. */
  clientId: string;
  /** --oidc-ca-file's PEM: trusted for the issuer's certificate instead of the host's roots. */
  caPem?: string;
  /** --oidc-username-claim (default `sub`). */
  usernameClaim: string;
  /** The resolved prefix of user names (the established defaulting already applied: '' for none). */
  usernamePrefix: string;
  /** --oidc-groups-claim (unset: no groups from the token). */
  groupsClaim?: string;
  /** --oidc-groups-prefix. */
  groupsPrefix: string;
  /** --oidc-required-claim: claim -> the exact string value it must have. */
  requiredClaims: Record<string, string>;
  /** --oidc-signing-algs (default RS256). */
  signingAlgs: string[];
}

/** The TokenReview / SubjectAccessReview wire versions a webhook speaks. */
export type WebhookVersion = 'v1' | 'v1beta1';

export interface TokenWebhookConfig {
  /** The remote service, from --authentication-token-webhook-config-file (kubeconfig format). */
  client: ClientConfig;
  /** --authentication-token-webhook-version. */
  version: WebhookVersion;
  /** --authentication-token-webhook-cache-ttl, for answers both positive and negative. */
  cacheTtlMs: number;
}

export interface AuthorizationConfig {
  /** --authorization-mode, in order. */
  modes: AuthorizationMode[];
  /** --authorization-policy-file (mode ABAC, ./abac.ts): its name (for messages) and text. */
  abac?: { file: string; policy: string };
  /** --authorization-webhook-* (mode Webhook, ./webhook-authorizer.ts). */
  webhook?: AuthorizationWebhookConfig;
}

export interface AuthorizationWebhookConfig {
  /** The remote service, from --authorization-webhook-config-file (kubeconfig format). */
  client: ClientConfig;
  /** --authorization-webhook-version. */
  version: WebhookVersion;
  /** --authorization-webhook-cache-authorized-ttl. */
  authorizedTtlMs: number;
  /** --authorization-webhook-cache-unauthorized-ttl. */
  unauthorizedTtlMs: number;
}

/** What a server that sets nothing gets: the established defaults (anonymous on, AlwaysAllow). */
export const DEFAULT_AUTHENTICATION: Readonly<AuthenticationConfig> = Object.freeze({ anonymous: true, apiAudiences: [] });
export const DEFAULT_AUTHORIZATION: Readonly<AuthorizationConfig> = Object.freeze({ modes: ['AlwaysAllow'] as AuthorizationMode[] });
