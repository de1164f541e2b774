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
}

export interface AuthorizationConfig {
  /** --authorization-mode, in order. */
  modes: AuthorizationMode[];
}

/** What a server that sets nothing gets: the established defaults (anonymous on, AlwaysAllow). */
export const DEFAULT_AUTHENTICATION: Readonly<AuthenticationConfig> = Object.freeze({ anonymous: true, apiAudiences: [] });
export const DEFAULT_AUTHORIZATION: Readonly<AuthorizationConfig> = Object.freeze({ modes: ['AlwaysAllow'] as AuthorizationMode[] });
