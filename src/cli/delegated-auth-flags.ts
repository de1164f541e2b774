/**
 * The delegated authentication and authorization flags of the scheduler, controller manager and
 * cloud controller manager (spec "Authentication": scheduler, controller manager, cloud controller
 * manager), and their typed form. ./delegated-auth.ts builds the checks of the daemons' secure
 * ports from it; the established meanings are kept: without --authentication-svcconfig no token is
 * reviewed and no CA looked up; without --authorization-svcconfig every request off the
 * always-allowed paths is forbidden.
 */
import { FlagValues, type FlagSpec } from './option-table.js';

export type DelegatingComponent = 'scheduler' | 'controller-manager' | 'cloud-controller-manager';

export function delegatedAuthFlags(component: DelegatingComponent): FlagSpec[] {
  return [
    { flags: '--authentication-svcconfig', type: 'string', help: 'Client-config file with rights to create TokenReviews. Optional. If empty, all token requests are anonymous and no client CA is looked up.' },
    { flags: '--authentication-skip-lookup', type: 'bool', help: 'If false, the file above is used to look up missing authentication configuration (the ConfigMap svc-system/extension-apiserver-authentication).' },
    {
      flags: '--authentication-tolerate-lookup-failure',
      type: 'bool',
      ...(component === 'scheduler' ? { default: true } : {}),
      help: 'If true, a lookup failure is not fatal, and requests may be treated as anonymous.',
    },
    { flags: '--authentication-token-webhook-cache-ttl', type: 'duration', default: 10_000, help: 'Cache time of webhook token responses.' },
    { flags: '--authorization-svcconfig', type: 'string', help: 'Client-config file with rights to create SubjectAccessReviews. If empty, all requests not skipped are forbidden.' },
    { flags: '--authorization-always-allow-paths', type: 'stringSlice', default: ['/healthz'], defaultText: '[/healthz]', help: 'Paths authorized without contacting the core server (a trailing * matches a prefix).' },
    { flags: '--authorization-webhook-cache-authorized-ttl', type: 'duration', default: 10_000, help: 'Cache of allow answers.' },
    { flags: '--authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 10_000, help: 'Cache of deny answers.' },
    { flags: '--client-ca-file', type: 'string', help: 'A client certificate signed by one of these authorities authenticates as its CommonName (groups: its Organizations).' },
    { flags: '--requestheader-client-ca-file', type: 'string', help: 'CA bundle verifying client certs before header-supplied usernames are trusted.' },
    { flags: '--requestheader-allowed-names', type: 'stringSlice', help: 'Allowed client cert common names. Empty allows any cert the CA validates.' },
    { flags: '--requestheader-username-headers', type: 'stringSlice', default: ['x-remote-user'], defaultText: '[x-remote-user]', help: 'Headers inspected for user name.' },
    { flags: '--requestheader-group-headers', type: 'stringSlice', default: ['x-remote-group'], defaultText: '[x-remote-group]', help: 'Headers inspected for groups.' },
    { flags: '--requestheader-extra-headers-prefix', type: 'stringSlice', default: ['x-remote-extra-'], defaultText: '[x-remote-extra-]', help: 'Header prefixes inspected for extra attributes.' },
  ];
}

/** The request-header (authenticating proxy) settings; `clientCAFile` absent: off. */
export interface RequestHeaderOptions {
  clientCAFile?: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeadersPrefix: string[];
}

export interface DelegatedAuthOptions {
  authenticationSvcconfig?: string;
  skipLookup: boolean;
  tolerateLookupFailure: boolean;
  tokenCacheTtlMs: number;
  authorizationSvcconfig?: string;
  alwaysAllowPaths: string[];
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  clientCAFile?: string;
  requestHeader: RequestHeaderOptions;
}

/** The flags above as typed options. */
export function resolveDelegatedAuthOptions(opts: Record<string, unknown>): DelegatedAuthOptions {
  const f = new FlagValues(opts);
  const optional = (flag: string) => f.optionalString(flag) || undefined;
  const authenticationSvcconfig = optional('--authentication-svcconfig');
  const authorizationSvcconfig = optional('--authorization-svcconfig');
  const clientCAFile = optional('--client-ca-file');
  const requestHeaderCA = optional('--requestheader-client-ca-file');
  return {
    ...(authenticationSvcconfig ? { authenticationSvcconfig } : {}),
    skipLookup: f.bool('--authentication-skip-lookup'),
    tolerateLookupFailure: f.bool('--authentication-tolerate-lookup-failure'),
    tokenCacheTtlMs: f.number('--authentication-token-webhook-cache-ttl'),
    ...(authorizationSvcconfig ? { authorizationSvcconfig } : {}),
    alwaysAllowPaths: f.list('--authorization-always-allow-paths'),
    authorizedTtlMs: f.number('--authorization-webhook-cache-authorized-ttl'),
    unauthorizedTtlMs: f.number('--authorization-webhook-cache-unauthorized-ttl'),
    ...(clientCAFile ? { clientCAFile } : {}),
    requestHeader: {
      ...(requestHeaderCA ? { clientCAFile: requestHeaderCA } : {}),
      allowedNames: f.list('--requestheader-allowed-names'),
      usernameHeaders: f.list('--requestheader-username-headers'),
      groupHeaders: f.list('--requestheader-group-headers'),
      extraHeadersPrefix: f.list('--requestheader-extra-headers-prefix'),
    },
  };
}
