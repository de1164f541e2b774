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
 *   groups), with node:crypto's X509Certificate (./pki.ts);
 * - bearer tokens sent to the API server as a TokenReview (authentication.svc.io/v1) through the
 *   client of --authentication-svcconfig; answers cached --authentication-token-webhook-cache-ttl
 *   (errors are not cached);
 * - missing CA settings looked up in the ConfigMap svc-system/extension-apiserver-authentication
 *   unless --authentication-skip-lookup; a failed lookup is fatal unless
 *   --authentication-tolerate-lookup-failure (a missing ConfigMap is not a failure);
 * - credentials present but not accepted: 401, never anonymous (src/apiserver/auth/authentication.ts).
 *
 * Authorization: --authorization-always-allow-paths (exact, or a prefix ending in `*`) and the
 * group system:masters are allowed without asking; every other request is a SubjectAccessReview
 * (authorization.svc.io/v1, non-resource path and the HTTP method's verb) through the client of
 * --authorization-svcconfig, allow and deny answers cached for their two TTLs; without that file
 * it is forbidden (403). A review that fails is a 500, never an allow.
 */
import { createHash } from 'node:crypto';
import type { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { StatusError } from '../api/status.js';
import type { SvcObject } from '../api/types.js';
import {
  AuthenticationChain,
  AuthenticationFailure,
  authenticationRequest,
  BearerTokenAuthenticator,
  type Authenticated,
  type AuthenticationRequest,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from '../apiserver/auth/authentication.js';
import { MASTERS_GROUP, type UserInfo } from '../apiserver/auth/user.js';
import { writeStatus, type Request, type Response } from '../apiserver/http.js';
import { isForbidden, isNotFound } from '../client/api-errors.js';
import type { ApiClient, ResourceRef } from '../client/types.js';
import type { Connection } from '../client/connect.js';
import { OptionsError, readFlagFile } from './common-options.js';
import type { DelegatedAuthOptions, RequestHeaderOptions } from './delegated-auth-flags.js';
import { parseCertificateBundle, PkiError, verifyClientChain } from './pki.js';

/** The checks a component's secure port runs on each request before its handlers. */
export interface DelegatedAuth {
  /** Whether the TLS listener asks clients for a certificate (a client CA is configured). */
  readonly requestClientCertificates: boolean;
  /** Answers a refused request (401, 403, 500) and returns true; false: the request may go on. */
  guard(req: Request, res: Response): Promise<boolean>;
  /** Closes the clients to the API server. */
  close(): Promise<void>;
}

const TOKEN_REVIEWS: ResourceRef = { group: 'authentication.svc.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
const SUBJECT_ACCESS_REVIEWS: ResourceRef = { group: 'authorization.svc.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
const CONFIG_MAPS: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const AUTHENTICATION_CONFIGMAP = { namespace: 'svc-system', name: 'extension-apiserver-authentication' } as const;

interface TokenReview extends SvcObject {
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; audiences?: string[]; error?: string };
}

interface SubjectAccessReview extends SvcObject {
  spec: { user: string; uid?: string; groups: string[]; extra?: Record<string, string[]>; nonResourceAttributes: { path: string; verb: string } };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/** A small map whose entries expire; at most `max` entries (the oldest go first). */
class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  constructor(private readonly max = 4096) {}
  get(key: string, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: now + ttlMs });
  }
}

// ---------------------------------------------------------------------------------------------
// authentication methods

/** --client-ca-file: a client certificate signed by one of the authorities is its CommonName. */
export class ClientCertificateAuthenticator implements RequestAuthenticator {
  readonly name = 'x509';
  constructor(private readonly roots: readonly X509Certificate[]) {}

  authenticate(req: AuthenticationRequest): Authenticated | null {
    const chain = req.peerCertificates();
    if (chain.length === 0) return null;
    const v = verifyClientChain(chain, this.roots);
    if (!v.ok) throw new AuthenticationFailure(this.name, `verifying certificate: ${v.reason}`);
    return { user: { username: v.username, groups: v.groups } };
  }
}

/** --requestheader-*: the user an authenticating proxy (itself verified by its certificate) names in headers. */
export class RequestHeaderAuthenticator implements RequestAuthenticator {
  readonly name = 'requestheader';
  constructor(
    private readonly roots: readonly X509Certificate[],
    private readonly o: Omit<RequestHeaderOptions, 'clientCAFile'>,
  ) {}

  authenticate(req: AuthenticationRequest): Authenticated | null {
    const chain = req.peerCertificates();
    if (chain.length === 0) return null;
    const v = verifyClientChain(chain, this.roots);
    if (!v.ok) throw new AuthenticationFailure(this.name, `unable to verify the proxy's certificate: ${v.reason}`);
    if (this.o.allowedNames.length > 0 && !this.o.allowedNames.includes(v.username)) {
      throw new AuthenticationFailure(this.name, `x509: subject with cn=${v.username} is not in the allowed list`);
    }
    const values = (h: string): string[] => {
      const raw = req.headers[h.toLowerCase()];
      return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((s) => s !== '');
    };
    const username = this.o.usernameHeaders.map((h) => values(h)[0]).find((s) => s !== undefined);
    if (!username) return null;
    const groups = this.o.groupHeaders.flatMap(values);
    const extra: Record<string, string[]> = {};
    for (const prefix of this.o.extraHeadersPrefix.map((p) => p.toLowerCase())) {
      for (const [name, raw] of Object.entries(req.headers)) {
        if (!name.startsWith(prefix) || name.length === prefix.length || raw === undefined) continue;
        const key = decodeURIComponent(name.slice(prefix.length)).toLowerCase();
        (extra[key] ??= []).push(...(Array.isArray(raw) ? raw : [raw]));
      }
    }
    return { user: { username, groups, ...(Object.keys(extra).length ? { extra } : {}) } };
  }
}

/** Bearer tokens reviewed by the API server (TokenReview), answers cached `ttlMs`. */
export class TokenReviewAuthenticator implements TokenAuthenticator {
  readonly name = 'webhook';
  private readonly cache = new TtlCache<Authenticated | null>();
  constructor(
    private readonly client: ApiClient,
    private readonly ttlMs: number,
  ) {}

  async authenticateToken(token: string): Promise<Authenticated | null> {
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let review: TokenReview;
    try {
      review = await this.client.create<TokenReview>(TOKEN_REVIEWS as ResourceRef<TokenReview>, '', {
        apiVersion: 'authentication.svc.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token },
      });
    } catch (e) {
      throw new AuthenticationFailure(this.name, `TokenReview failed: ${(e as Error).message}`);
    }
    const s = review.status ?? {};
    if (s.error) throw new AuthenticationFailure(this.name, s.error);
    const found: Authenticated | null =
      s.authenticated && s.user?.username
        ? {
            user: { username: s.user.username, groups: s.user.groups ?? [], ...(s.user.uid ? { uid: s.user.uid } : {}), ...(s.user.extra ? { extra: s.user.extra } : {}) },
            ...(s.audiences ? { audiences: s.audiences } : {}),
          }
        : null;
    this.cache.set(key, found, this.ttlMs);
    return found;
  }
}

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

interface Decision {
  allowed: boolean;
  reason: string;
}

/** Asks the API server (SubjectAccessReview), caching allow and deny answers for their TTLs. */
export class SubjectAccessReviewAuthorizer {
  private readonly cache = new TtlCache<Decision>();
  constructor(
    private readonly client: ApiClient,
    private readonly ttl: { authorizedMs: number; unauthorizedMs: number },
  ) {}

  async authorize(user: UserInfo, path: string, verb: string): Promise<Decision> {
    const spec: SubjectAccessReview['spec'] = {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups,
      ...(user.extra ? { extra: user.extra } : {}),
      nonResourceAttributes: { path, verb },
    };
    const key = JSON.stringify(spec);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const review = await this.client.create<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS as ResourceRef<SubjectAccessReview>, '', {
      apiVersion: 'authorization.svc.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec,
    });
    const s = review.status ?? {};
    const decision: Decision = { allowed: s.allowed === true && s.denied !== true, reason: s.reason ?? '' };
    // An answer that came with an evaluation error is not kept: the next request asks again.
    if (!s.evaluationError) this.cache.set(key, decision, decision.allowed ? this.ttl.authorizedMs : this.ttl.unauthorizedMs);
    return decision;
  }
}

function forbidden(user: UserInfo, verb: string, path: string, reason: string): StatusError {
  const msg = `forbidden: User ${JSON.stringify(user.username)} cannot ${verb} path ${JSON.stringify(path)}`;
  return new StatusError(403, 'Forbidden', reason ? `${msg}: ${reason}` : msg);
}

// ---------------------------------------------------------------------------------------------
// building from the flags

export interface DelegatedAuthDeps {
  logger: Logger;
  /** Opens a client from a client-config file (the daemon's own connect, with its user agent). */
  connect(svcconfig: string): Connection;
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

function bundle(pem: string, what: string): X509Certificate[] {
  try {
    return parseCertificateBundle(pem, what);
  } catch (e) {
    if (e instanceof PkiError) throw new OptionsError(e.message);
    throw e;
  }
}

/** The checks of a component's port from its delegated auth flags; rejects (OptionsError) on unusable settings. */
export async function buildDelegatedAuth(o: DelegatedAuthOptions, deps: DelegatedAuthDeps): Promise<DelegatedAuth> {
  const { logger } = deps;
  const open = (flag: string, file: string): Connection => {
    try {
      return deps.connect(file);
    } catch (e) {
      throw new OptionsError(`${flag}: ${(e as Error).message}`);
    }
  };
  const authn = o.authenticationSvcconfig ? open('--authentication-svcconfig', o.authenticationSvcconfig) : undefined;
  const authz = o.authorizationSvcconfig ? open('--authorization-svcconfig', o.authorizationSvcconfig) : undefined;
  const close = async () => {
    await Promise.all([authn?.close(), authz?.close()]);
  };
  try {
    let clientCA = o.clientCAFile ? readFlagFile('--client-ca-file', o.clientCAFile) : undefined;
    let rhCA = o.requestHeader.clientCAFile ? readFlagFile('--requestheader-client-ca-file', o.requestHeader.clientCAFile) : undefined;
    let rh: Omit<RequestHeaderOptions, 'clientCAFile'> = o.requestHeader;
    if (!authn) {
      logger.warn('no --authentication-svcconfig: bearer tokens are not reviewed (requests carrying one are anonymous) and the client CA is not looked up in the cluster');
    } else if (!o.skipLookup && (!clientCA || !rhCA)) {
      try {
        const found = await lookupAuthenticationConfigMap(authn.client);
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
      }
    }
    const methods: RequestAuthenticator[] = [];
    if (rhCA) methods.push(new RequestHeaderAuthenticator(bundle(rhCA, 'requestheader-client-ca-file'), rh));
    if (clientCA) methods.push(new ClientCertificateAuthenticator(bundle(clientCA, 'client-ca-file')));
    if (authn) methods.push(new BearerTokenAuthenticator([new TokenReviewAuthenticator(authn.client, o.tokenCacheTtlMs)]));
    const chain = new AuthenticationChain({
      methods,
      anonymous: true,
      onFailure: (failures) => logger.debug({ failures }, 'request not authenticated'),
    });
    if (!authz) logger.warn(`no --authorization-svcconfig: every request to a path other than ${o.alwaysAllowPaths.join(', ') || '(none)'} is forbidden`);
    const sar = authz ? new SubjectAccessReviewAuthorizer(authz.client, { authorizedMs: o.authorizedTtlMs, unauthorizedMs: o.unauthorizedTtlMs }) : undefined;
    return {
      requestClientCertificates: Boolean(clientCA || rhCA),
      close,
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
        if (pathAllowed(o.alwaysAllowPaths, path) || user.groups.includes(MASTERS_GROUP)) return false;
        if (!sar) {
          writeStatus(res, forbidden(user, verb, path, ''));
          return true;
        }
        let decision: Decision;
        try {
          decision = await sar.authorize(user, path, verb);
        } catch (e) {
          logger.warn({ err: (e as Error).message, path, user: user.username }, 'SubjectAccessReview failed');
          writeStatus(res, new StatusError(500, 'InternalError', `Internal error occurred: SubjectAccessReview failed: ${(e as Error).message}`));
          return true;
        }
        if (decision.allowed) return false;
        writeStatus(res, forbidden(user, verb, path, decision.reason));
        return true;
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}
