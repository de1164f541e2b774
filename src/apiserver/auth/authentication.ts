/**
 * Authentication: the chain of methods the API server tries on every request, and the contract a
 * method implements. The established server's rules, kept exactly:
 *
 * - Methods are tried in a fixed order (request headers from an authenticating proxy, client
 *   certificates, then bearer tokens: static file, service accounts, bootstrap, OIDC, webhook);
 *   the first that recognises the request wins.
 * - A method that finds no credentials of its kind answers `null` and the next is tried. One that
 *   finds credentials it cannot accept throws `AuthenticationFailure`; the chain goes on (another
 *   method may still recognise the request), but if none does the request is a 401, never
 *   anonymous: credentials that are present but wrong are refused.
 * - A bearer token no token method recognises is such a failure ("invalid bearer token").
 * - With no credentials at all: the anonymous user (`system:anonymous` in
 *   `system:unauthenticated`) when --anonymous-auth is on, else a 401.
 * - Every recognised user is also in `system:authenticated` (./user.ts).
 *
 * In-process calls (`svc up`'s components) carry the identity their transport was made with and
 * skip the chain. The user found is kept with the request (`requestUser`) for the stages after it:
 * impersonation, authorization, admission, and the handlers that answer "who am I".
 */
import type { IncomingHttpHeaders } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { StatusError } from '../../api/status.js';
import type { PipelineRequest } from '../http.js';
import { InProcessRequest } from '../in-process-exchange.js';
import { ANONYMOUS, type UserInfo, withAuthenticatedGroup } from './user.js';

/** What a method may read of a request. */
export interface AuthenticationRequest {
  readonly headers: IncomingHttpHeaders;
  /**
   * The header lines as sent (name, value, name, value, ...), when known: a header sent several
   * times (X-Remote-Group, Impersonate-Group) has each value here, where `headers` joins them.
   */
  readonly rawHeaders?: readonly string[];
  /**
   * The certificate chain the client presented in the TLS handshake, leaf first, as sent (not yet
   * verified: a method verifies it against its own authorities); empty when the client sent none.
   */
  peerCertificates(): readonly X509Certificate[];
}

/** A recognised request. */
export interface Authenticated {
  user: UserInfo;
  /** The audiences the credential was valid for (tokens), when the method knows them. */
  audiences?: string[];
}

/** One way of recognising a request (a client certificate, request headers, ...). */
export interface RequestAuthenticator {
  /** For logs and messages, e.g. "x509". */
  readonly name: string;
  /** `null`: none of this method's credentials in the request. Throws AuthenticationFailure when they are present but not valid. */
  authenticate(req: AuthenticationRequest): Authenticated | null | Promise<Authenticated | null>;
}

/** One way of recognising a bearer token (static file, service-account JWT, OIDC, webhook, ...). */
export interface TokenAuthenticator {
  readonly name: string;
  /**
   * `null`: not a token of this kind. Throws AuthenticationFailure for one of its kind that is not valid (expired, bad signature, ...).
   * `audiences`: the token must be meant for at least one of these (a request: --api-audiences; a
   * TokenReview: its spec.audiences); absent when the server names none. An audience-aware method
   * answers the audiences it found in `Authenticated.audiences`; others are wrapped by `audienceAgnostic`.
   */
  authenticateToken(token: string, audiences?: readonly string[]): Authenticated | null | Promise<Authenticated | null>;
}

/** Credentials of a method's kind that it cannot accept; the message is logged, never sent (the client hears only 401). */
export class AuthenticationFailure extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(message);
    this.name = 'AuthenticationFailure';
  }
}

/** The 401 every refused request gets (the established body: the reason's name as the message). */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** The bearer token of `Authorization: Bearer <token>`, or undefined (another scheme, or none). */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers['authorization'];
  if (typeof h !== 'string') return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** The values of header `name` (lower case), each as sent: from `rawHeaders` when known, else the joined `headers` entry. */
export function headerValues(req: Pick<AuthenticationRequest, 'headers' | 'rawHeaders'>, name: string): string[] {
  if (req.rawHeaders) {
    const out: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === name) out.push(req.rawHeaders[i + 1]!);
    return out;
  }
  const v = req.headers[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [String(v)];
}

/**
 * A token method that knows nothing of audiences (static tokens, bootstrap tokens), as the
 * established server wraps one: its tokens are meant for the server's own audiences (`implicit`,
 * --api-audiences), so a check for other audiences does not recognise them, and a recognised
 * token answers the audiences it was checked for that the server holds.
 */
export function audienceAgnostic(implicit: readonly string[], method: TokenAuthenticator): TokenAuthenticator {
  return {
    name: method.name,
    async authenticateToken(token, audiences) {
      if (audiences === undefined) return method.authenticateToken(token);
      const shared = implicit.filter((a) => audiences.includes(a));
      if (shared.length === 0) return null;
      const found = await method.authenticateToken(token);
      return found ? { ...found, audiences: shared } : null;
    },
  };
}

/** The token methods as one request method: the first recognising the bearer token wins; a token none recognises fails. */
export class BearerTokenAuthenticator implements RequestAuthenticator {
  readonly name = 'bearer-token';
  /** `apiAudiences`: --api-audiences, the audiences a request's token must be meant for (empty: none named). */
  constructor(
    private readonly methods: readonly TokenAuthenticator[],
    readonly apiAudiences: readonly string[] = [],
  ) {}

  async authenticate(req: AuthenticationRequest): Promise<Authenticated | null> {
    const token = bearerToken(req.headers);
    if (token === undefined) return null;
    return this.authenticateToken(token, this.apiAudiences.length > 0 ? this.apiAudiences : undefined);
  }

  /** `token` checked for `audiences` by each method in turn (TokenReview asks this directly); throws AuthenticationFailure when none recognises it. */
  async authenticateToken(token: string, audiences?: readonly string[]): Promise<Authenticated> {
    const failures: string[] = [];
    for (const m of this.methods) {
      try {
        const found = await m.authenticateToken(token, audiences);
        if (found) return found;
      } catch (err) {
        if (!(err instanceof AuthenticationFailure)) throw err;
        // A union inside (the token cache wraps one): its failure already says it all.
        if (err.method === this.name) throw err;
        failures.push(`${m.name}: ${err.message}`);
      }
    }
    throw new AuthenticationFailure(this.name, failures.length ? `invalid bearer token (${failures.join('; ')})` : 'invalid bearer token');
  }
}

export interface AuthenticationChainOptions {
  /** The methods in the established order (./authenticators.ts builds them from the flags). */
  methods: readonly RequestAuthenticator[];
  /** --anonymous-auth. */
  anonymous: boolean;
  /** Told of each refused request (method failures), for the log. */
  onFailure?: (failures: string[]) => void;
  /** The bearer-token methods of `methods` (what TokenReview asks); absent when none is configured. */
  tokens?: BearerTokenAuthenticator;
}

export class AuthenticationChain {
  constructor(private readonly opts: AuthenticationChainOptions) {}

  /** The token methods in force, for TokenReview (undefined: no token method configured). */
  get tokens(): BearerTokenAuthenticator | undefined {
    return this.opts.tokens;
  }

  /** The user `req` is, or throws the 401 StatusError. */
  async authenticate(req: AuthenticationRequest): Promise<UserInfo> {
    const failures: string[] = [];
    for (const m of this.opts.methods) {
      let found: Authenticated | null;
      try {
        found = await m.authenticate(req);
      } catch (err) {
        if (!(err instanceof AuthenticationFailure)) throw err;
        failures.push(`${err.method}: ${err.message}`);
        continue;
      }
      if (found) return withAuthenticatedGroup(found.user);
    }
    if (failures.length > 0) {
      this.opts.onFailure?.(failures);
      throw unauthorized();
    }
    if (this.opts.anonymous) return ANONYMOUS;
    throw unauthorized();
  }
}

/** The certificates a listener request's client presented (cached per connection: a handshake's chain never changes). */
const chains = new WeakMap<object, readonly X509Certificate[]>();

/** The AuthenticationRequest view of a listener request. */
export function authenticationRequest(req: Exclude<PipelineRequest, InProcessRequest>): AuthenticationRequest {
  return {
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    peerCertificates: () => peerCertificates(tlsSocketOf(req)),
  };
}

function tlsSocketOf(req: Exclude<PipelineRequest, InProcessRequest>): TLSSocket | undefined {
  // HTTP/2: the session's socket; HTTP/1.1: the request's own.
  const stream = (req as { stream?: { session?: { socket?: unknown } } }).stream;
  const socket = (stream?.session?.socket ?? req.socket) as TLSSocket | undefined;
  return socket && typeof socket.getPeerCertificate === 'function' ? socket : undefined;
}

function peerCertificates(socket: TLSSocket | undefined): readonly X509Certificate[] {
  if (!socket) return [];
  const cached = chains.get(socket);
  if (cached) return cached;
  const out: X509Certificate[] = [];
  let cert = socket.getPeerCertificate(true) as { raw?: Buffer; issuerCertificate?: unknown } | null;
  const seen = new Set<unknown>();
  while (cert && cert.raw && !seen.has(cert)) {
    seen.add(cert);
    out.push(new X509Certificate(cert.raw));
    cert = (cert.issuerCertificate ?? null) as typeof cert;
  }
  chains.set(socket, out);
  return out;
}

/** The user each request was authenticated as (set by the pipeline, read by the stages after it). */
const users = new WeakMap<PipelineRequest, UserInfo>();

export function setRequestUser(req: PipelineRequest, user: UserInfo): void {
  users.set(req, user);
}

/** The user `req` was authenticated as (in-process calls: their transport's identity). */
export function requestUser(req: PipelineRequest): UserInfo {
  const u = users.get(req);
  if (u) return u;
  if (req instanceof InProcessRequest) return req.user;
  throw new Error('requestUser: the request was not authenticated (the pipeline sets its user first)');
}
