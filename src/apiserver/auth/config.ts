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
  /** --client-ca-file: client certificates signed by these authorities authenticate (./x509.ts). */
  x509?: X509Config;
  /** --token-auth-file (./token-file.ts). */
  tokenFile?: TokenFileConfig;
  /** --requestheader-*: an authenticating proxy's asserted user (./request-header.ts). */
  requestHeader?: RequestHeaderConfig;
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

export interface AuthorizationConfig {
  /** --authorization-mode, in order. */
  modes: AuthorizationMode[];
}

/** What a server that sets nothing gets: the established defaults (anonymous on, AlwaysAllow). */
export const DEFAULT_AUTHENTICATION: Readonly<AuthenticationConfig> = Object.freeze({ anonymous: true, apiAudiences: [] });
export const DEFAULT_AUTHORIZATION: Readonly<AuthorizationConfig> = Object.freeze({ modes: ['AlwaysAllow'] as AuthorizationMode[] });
