/**
 * Delegated authentication and authorization of a component's secure port (the scheduler's, the
 * controller manager's): who a request is and whether it may have the path, asked of the API
 * server instead of decided here. The established rules, kept:
 *
 * Authentication (the methods in the established order, then anonymous, which is always on here):
 * - request headers from an authenticating proxy (--requestheader-*): the client certificate
 *   verified against --requestheader-client-ca-file (and its CommonName in
 *   --requestheader-allowed-names when given), then the user from the first non-empty username
 *   header, groups and extra from theirs;
 * - client certificates verified against --client-ca-file (CommonName = user, Organizations =
 *   groups);
 * - bearer tokens sent to the API server as a TokenReview through the client configuration of
 *   --authentication-svcconfig, answers cached --authentication-token-webhook-cache-ttl (failures
 *   are not cached);
 * - missing CA settings looked up in the ConfigMap svc-system/extension-apiserver-authentication
 *   unless --authentication-skip-lookup; a failed lookup is fatal unless
 *   --authentication-tolerate-lookup-failure (a missing ConfigMap is not a failure);
 * - credentials present but not accepted: 401, never anonymous (src/apiserver/auth/authentication.ts).
 *
 * Authorization: --authorization-always-allow-paths (exact, or a prefix ending in `*`) and the
 * group system:masters are allowed without asking; every other request is a SubjectAccessReview
 * (non-resource path and the HTTP method's verb) through the client configuration of
 * --authorization-svcconfig, allow and deny answers cached for their two TTLs; without that file it
 * is forbidden (403). A review that fails is refused (500 naming the failure, as established), never an allow.
 *
 * The methods are the API server's own (src/apiserver/auth/: x509.ts, request-header.ts), and the
 * reviews use its webhook authenticator and authorizer aimed at the API server's review APIs (the
 * established delegating components do the same: the webhook wire over their client), so the
 * verification, the wire, the retries and the caches have one home.
 */
import type { Logger } from 'pino';
import { internalError, StatusError } from '../api/status.js';
import type { SvcObject } from '../api/types.js';
import { AuthenticationChain, authenticationRequest, BearerTokenAuthenticator, setRequestUser, type RequestAuthenticator } from '../apiserver/auth/authentication.js';
import { RequestHeaderAuthenticator } from '../apiserver/auth/request-header.js';
import { ClientCertificateAuthenticator } from '../apiserver/auth/x509.js';
import { MASTERS_GROUP, type UserInfo } from '../apiserver/auth/user.js';
import { WebhookAuthorizer } from '../apiserver/auth/webhook-authorizer.js';
import { WebhookTokenAuthenticator } from '../apiserver/auth/webhook-token.js';
import { loadClientConfig, type ClientConfig } from '../client/svcconfig.js';
import { writeStatus, type Request, type Response } from '../apiserver/http.js';
import { isForbidden, isNotFound } from '../client/api-errors.js';
import type { ApiClient, ResourceRef } from '../client/types.js';
import type { Connection } from '../client/connect.js';
import { OptionsError, readFlagFile } from './common-options.js';
import type { DelegatedAuthOptions, RequestHeaderOptions } from './delegated-auth-flags.js';

/** The checks a component's secure port runs on each request before its handlers. */
export interface DelegatedAuth {
  /** Whether the TLS listener asks clients for a certificate (a client CA is configured). */
  readonly requestClientCertificates: boolean;
  /** Answers a refused request (401, 403) and returns true; false: the request may go on. */
  guard(req: Request, res: Response): Promise<boolean>;
}

/**
 * Where the reviews go on the API server: the established delegating components call the
 * TokenReview and SubjectAccessReview APIs with the wire of the webhooks (webhook.NewFromInterface),
 * so the same authenticator and authorizer serve both (src/apiserver/auth/webhook-*.ts).
 */
const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
const SUBJECT_ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const CONFIG_MAPS: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const AUTHENTICATION_CONFIGMAP = { namespace: 'svc-system', name: 'extension-apiserver-authentication' } as const;

// ---------------------------------------------------------------------------------------------
// authorization

/** The verb of a non-resource request (established: from the HTTP method). */
export function nonResourceVerb(method: string | undefined): string {
  switch ((method ?? 'GET').toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return (method ?? '').toLowerCase();
  }
}

/** Whether `path` is one of `patterns` (exact, or a prefix when the pattern ends in `*`). */
export function pathAllowed(patterns: readonly string[], path: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path));
}

function forbidden(user: UserInfo, verb: string, path: string, reason: string): StatusError {
  const msg = `forbidden: User ${JSON.stringify(user.username)} cannot ${verb} path ${JSON.stringify(path)}`;
  return new StatusError(403, 'Forbidden', reason ? `${msg}: ${reason}` : msg);
}

// ---------------------------------------------------------------------------------------------
// building from the flags

export interface DelegatedAuthDeps {
  logger: Logger;
  /** Opens a client from a client-config file (the daemon's own connect, with its user agent): the ConfigMap lookup. */
  connect(svcconfig: string): Connection;
}

/** The client configuration of a review flag's file, aimed at one review API of its server. */
function reviewTarget(flag: string, file: string, path: string): ClientConfig {
  try {
    const cfg = loadClientConfig({ svcconfig: file });
    return { ...cfg, server: `${cfg.server.replace(/\/+$/, '')}${path}` };
  } catch (e) {
    throw new OptionsError(`${flag}: ${(e as Error).message}`);
  }
}

interface LookedUp {
  clientCA?: string;
  requestHeader?: Partial<RequestHeaderOptions> & { clientCA?: string };
}

/** Reads the missing CA settings from svc-system/extension-apiserver-authentication (undefined: no such ConfigMap). */
async function lookupAuthenticationConfigMap(client: ApiClient): Promise<LookedUp | undefined> {
  let cm: SvcObject & { data?: Record<string, string> };
  try {
    cm = await client.get(CONFIG_MAPS, AUTHENTICATION_CONFIGMAP.namespace, AUTHENTICATION_CONFIGMAP.name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    if (isForbidden(e)) {
      throw new Error(
        `cannot read configmap/${AUTHENTICATION_CONFIGMAP.name} in ${AUTHENTICATION_CONFIGMAP.namespace} (${(e as Error).message}); usually fixed by 'kubectl create rolebinding -n svc-system ROLEBINDING_NAME --role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA'`,
      );
    }
    throw e;
  }
  const data = cm.data ?? {};
  const list = (k: string): string[] | undefined => {
    if (data[k] === undefined) return undefined;
    const v = JSON.parse(data[k] as string) as unknown;
    return Array.isArray(v) ? v.map(String) : undefined;
  };
  const out: LookedUp = {};
  if (data['client-ca-file']) out.clientCA = data['client-ca-file'];
  if (data['requestheader-client-ca-file']) {
    const rh: NonNullable<LookedUp['requestHeader']> = { clientCA: data['requestheader-client-ca-file'] };
    const names = list('requestheader-allowed-names');
    if (names) rh.allowedNames = names;
    const users = list('requestheader-username-headers');
    if (users) rh.usernameHeaders = users;
    const groups = list('requestheader-group-headers');
    if (groups) rh.groupHeaders = groups;
    const extra = list('requestheader-extra-headers-prefix');
    if (extra) rh.extraHeadersPrefix = extra;
    out.requestHeader = rh;
  }
  return out;
}

/** `make()`, with an unusable CA bundle an OptionsError (the daemon stops at start naming the flag). */
function method(make: () => RequestAuthenticator): RequestAuthenticator {
  try {
    return make();
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }
}

/** The checks of a component's port from its delegated auth flags; rejects (OptionsError) on unusable settings. */
export async function buildDelegatedAuth(o: DelegatedAuthOptions, deps: DelegatedAuthDeps): Promise<DelegatedAuth> {
  const { logger } = deps;
  let clientCA = o.clientCAFile ? readFlagFile('--client-ca-file', o.clientCAFile) : undefined;
  let rhCA = o.requestHeader.clientCAFile ? readFlagFile('--requestheader-client-ca-file', o.requestHeader.clientCAFile) : undefined;
  let rh: Omit<RequestHeaderOptions, 'clientCAFile'> = o.requestHeader;
  const authn = o.authenticationSvcconfig ? reviewTarget('--authentication-svcconfig', o.authenticationSvcconfig, TOKEN_REVIEW_PATH) : undefined;
  const authz = o.authorizationSvcconfig ? reviewTarget('--authorization-svcconfig', o.authorizationSvcconfig, SUBJECT_ACCESS_REVIEW_PATH) : undefined;
  if (!o.authenticationSvcconfig) {
    logger.warn('no --authentication-svcconfig: bearer tokens are not reviewed (requests carrying one are anonymous) and the client CA is not looked up in the cluster');
  } else if (!o.skipLookup && (!clientCA || !rhCA)) {
    let lookup: Connection | undefined;
    try {
      lookup = deps.connect(o.authenticationSvcconfig);
      const found = await lookupAuthenticationConfigMap(lookup.client);
      if (!clientCA && found?.clientCA) clientCA = found.clientCA;
      if (!rhCA && found?.requestHeader?.clientCA) {
        rhCA = found.requestHeader.clientCA;
        rh = { ...rh, ...Object.fromEntries(Object.entries(found.requestHeader).filter(([k]) => k !== 'clientCA')) };
      }
    } catch (e) {
      if (!o.tolerateLookupFailure) throw new OptionsError(`unable to load configmap based request-header-client-ca-file: ${(e as Error).message}`);
      logger.warn(
        { err: (e as Error).message },
        'error looking up in-cluster authentication configuration; continuing without it, so requests may be treated as anonymous (set --authentication-tolerate-lookup-failure=false to require the lookup to succeed)',
      );
    } finally {
      await lookup?.close();
    }
  }
  const methods: RequestAuthenticator[] = [];
  if (rhCA) {
    const caPem = rhCA;
    methods.push(method(() => new RequestHeaderAuthenticator({ clientCA: caPem, allowedNames: rh.allowedNames, usernameHeaders: rh.usernameHeaders, groupHeaders: rh.groupHeaders, extraHeaderPrefixes: rh.extraHeadersPrefix })));
  }
  if (clientCA) {
    const caPem = clientCA;
    methods.push(method(() => new ClientCertificateAuthenticator(caPem)));
  }
  if (authn) methods.push(new BearerTokenAuthenticator([new WebhookTokenAuthenticator({ client: authn, version: 'v1', cacheTtlMs: o.tokenCacheTtlMs }, [])]));
  const chain = new AuthenticationChain({
    methods,
    anonymous: true,
    onFailure: (failures) => logger.debug({ failures }, 'request not authenticated'),
  });
  if (!authz) logger.warn(`no --authorization-svcconfig: every request to a path other than ${o.alwaysAllowPaths.join(', ') || '(none)'} is forbidden`);
  const sar = authz ? new WebhookAuthorizer({ client: authz, version: 'v1', authorizedTtlMs: o.authorizedTtlMs, unauthorizedTtlMs: o.unauthorizedTtlMs }, logger) : undefined;
  return {
    requestClientCertificates: Boolean(clientCA || rhCA),
    async guard(req, res) {
      const path = new URL(req.url ?? '/', 'https://localhost').pathname;
      const verb = nonResourceVerb(req.method);
      let user: UserInfo;
      try {
        user = await chain.authenticate(authenticationRequest(req));
      } catch (e) {
        writeStatus(res, e);
        return true;
      }
      // Handlers read who asked (the /debug/machines access panel defaults to that user).
      setRequestUser(req, user);
      if (pathAllowed(o.alwaysAllowPaths, path) || user.groups.includes(MASTERS_GROUP)) return false;
      const decision = sar ? await sar.authorize(user, { kind: 'nonResource', verb, path }) : { allowed: false, reason: '' };
      if (decision.allowed) return false;
      // A review that failed is not a refusal by policy: 500 naming the failure, as established.
      writeStatus(res, decision.evaluationError ? internalError(`Internal error occurred: ${decision.evaluationError}`) : forbidden(user, verb, path, decision.reason));
      return true;
    },
  };
}
