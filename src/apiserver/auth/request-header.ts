/**
 * Authenticating proxy (--requestheader-*): a front proxy that authenticated the user itself
 * passes them on in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>), and the server
 * believes those headers only from a client that proves it is that proxy: a TLS client
 * certificate verified by --requestheader-client-ca-file (./x509.ts `ChainVerifier`) whose
 * CommonName is in --requestheader-allowed-names (any, when the list is empty).
 *
 * The established rules, kept exactly:
 * - no client certificate: not this method's request (`null`);
 * - a certificate this CA does not verify, or a CommonName not allowed: a failure (the chain may
 *   still recognise the certificate as a plain client certificate, ./x509.ts);
 * - a verified proxy but no user header with a value: not this method's request;
 * - user: the first --requestheader-username-headers header with a value; groups: every value of
 *   every --requestheader-group-headers header; extra: each header starting with a
 *   --requestheader-extra-headers-prefix, its key the rest of the name lower-cased and
 *   %-unescaped, its values in order.
 */
import { AuthenticationFailure, type Authenticated, type AuthenticationRequest, headerValues, type RequestAuthenticator } from './authentication.js';
import type { RequestHeaderConfig } from './config.js';
import type { X509Certificate } from 'node:crypto';
import { ChainVerifier, subjectOf, verifyForMethod } from './x509.js';

/** A %-escaped extra key decoded as the established server does (kept as it is when malformed). */
export function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

export class RequestHeaderAuthenticator implements RequestAuthenticator {
  readonly name = 'requestheader';
  private readonly verifier: ChainVerifier;
  private readonly usernameHeaders: string[];
  private readonly groupHeaders: string[];
  private readonly extraPrefixes: string[];
  /** Per connection (the leaf is cached with its socket): the certificate's CommonName. */
  private readonly commonNames = new WeakMap<object, string>();
  private readonly failures = new WeakMap<X509Certificate, AuthenticationFailure>();

  constructor(private readonly config: RequestHeaderConfig) {
    this.verifier = new ChainVerifier(config.clientCA, '--requestheader-client-ca-file');
    const names = (list: string[]) => list.map((h) => h.trim().toLowerCase()).filter(Boolean);
    this.usernameHeaders = names(config.usernameHeaders);
    this.groupHeaders = names(config.groupHeaders);
    this.extraPrefixes = names(config.extraHeaderPrefixes);
  }

  authenticate(req: AuthenticationRequest): Authenticated | null {
    const chain = req.peerCertificates();
    const leaf = chain[0];
    if (!leaf) return null;
    verifyForMethod(this.verifier, chain, this.name, this.failures);
    if (this.config.allowedNames.length > 0) {
      let cn = this.commonNames.get(leaf);
      if (cn === undefined) this.commonNames.set(leaf, (cn = subjectOf(leaf).commonName));
      if (!this.config.allowedNames.includes(cn)) throw new AuthenticationFailure(this.name, `x509: subject with cn=${cn} is not in the allowed list`);
    }
    let username = '';
    for (const h of this.usernameHeaders) {
      username = headerValues(req, h)[0] ?? '';
      if (username) break;
    }
    if (!username) return null;
    const groups: string[] = [];
    for (const h of this.groupHeaders) for (const v of headerValues(req, h)) if (v) groups.push(v);
    const extra: Record<string, string[]> = {};
    const names = req.rawHeaders ? req.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()) : Object.keys(req.headers);
    for (const prefix of this.extraPrefixes) {
      for (const name of new Set(names)) {
        if (!name.startsWith(prefix) || name.length === prefix.length) continue;
        const key = unescapeExtraKey(name.slice(prefix.length));
        (extra[key] ??= []).push(...headerValues(req, name));
      }
    }
    return { user: { username, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) } };
  }
}
