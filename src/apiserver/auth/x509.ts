/**
 * Client certificates (--client-ca-file): a request whose TLS client certificate chains to one of
 * the configured authorities is the user named by the certificate's subject, as established:
 * CommonName = user name, each Organization = a group.
 *
 * The listener asks every client for a certificate but accepts the handshake whatever it sends
 * (`requestCert`, `rejectUnauthorized: false`, `listenerClientCA` below): a client without one must
 * still reach the other methods, and an untrusted certificate must be a 401 Status, not a TLS
 * alert. So the chain is verified here, with node:crypto, against this method's own bundle:
 *
 * - every signature from the leaf through the intermediates the client sent up to a certificate of
 *   the bundle (an intermediate must be a CA);
 * - every certificate on that path (the authority too) within its validity dates;
 * - extended key usage: a certificate that lists any must list clientAuth (or anyExtendedKeyUsage).
 *
 * A certificate with no CommonName is not this method's (the next method is asked). A verified
 * chain is remembered per connection (the chain never changes within one); its dates are checked
 * again on every request, so a long-lived connection does not outlive its certificate.
 *
 * The request-header method (./request-header.ts) verifies its proxy's certificate with the same
 * `ChainVerifier`, against its own bundle.
 */
import { X509Certificate } from 'node:crypto';
// @peculiar/x509 (through tsyringe) needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import * as px509 from '@peculiar/x509';
import { AuthenticationFailure, type Authenticated, type AuthenticationRequest, type RequestAuthenticator } from './authentication.js';
import type { AuthenticationConfig } from './config.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** Longest path of intermediates followed (the established verifier stops far earlier in practice). */
const MAX_DEPTH = 10;

/** The certificates of a PEM bundle; throws naming `what` when it holds none or one does not parse. */
export function parseCertificateBundle(pem: string, what: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${what}: no PEM certificate found (expected -----BEGIN CERTIFICATE----- blocks)`);
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (err) {
      throw new Error(`${what}: certificate ${i + 1} of the bundle does not parse: ${(err as Error).message}`);
    }
  });
}

/** The subject fields the established server reads: CommonName and Organizations. */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  const name = new px509.X509Certificate(cert.raw).subjectName;
  return { commonName: name.getField('CN')[0] ?? '', organizations: name.getField('O') };
}

/** The established verifier's wording for what it refuses (the text reaches logs only). */
class VerificationError extends Error {
  /** A date refusal may change with time (not yet valid); the others are final for the chain. */
  constructor(
    message: string,
    readonly final = true,
  ) {
    super(message);
  }
}

function checkDates(cert: X509Certificate, now: number): void {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (now < from) throw new VerificationError(`x509: certificate has expired or is not yet valid: current time ${new Date(now).toISOString()} is before ${new Date(from).toISOString()}`, false);
  if (now > to) throw new VerificationError(`x509: certificate has expired or is not yet valid: current time ${new Date(now).toISOString()} is after ${new Date(to).toISOString()}`, false);
}

function checkClientUsage(cert: X509Certificate): void {
  // node names the extended key usage list `keyUsage`; undefined when the extension is absent.
  const eku = cert.keyUsage as string[] | undefined;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_EXTENDED_KEY_USAGE)) {
    throw new VerificationError('x509: certificate specifies an incompatible key usage');
  }
}

/** The basic constraints' path length of a CA certificate (how many intermediates may follow it), or undefined when unlimited. */
function maxPathLength(cert: X509Certificate): number | undefined {
  const bc = new px509.X509Certificate(cert.raw).getExtension(px509.BasicConstraintsExtension);
  return bc?.pathLength;
}

function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** A verified path with the time window all of it is valid in (ms), or a final refusal. */
type Verified = { path: X509Certificate[]; from: number; to: number } | { error: VerificationError };

/** Verifies client certificate chains against one bundle of authorities. */
export class ChainVerifier {
  private readonly roots: readonly X509Certificate[];
  /**
   * Per connection: the leaf object is cached with its socket (authentication.ts), so this lives
   * as long as the connection. Refusals are remembered too: a server with a request-header CA
   * checks every plain client certificate against it, on every request.
   */
  private readonly verified = new WeakMap<X509Certificate, Verified>();

  /** `bundle`: PEM; `what` names it in errors (the flag). */
  constructor(bundle: string, what: string) {
    this.roots = parseCertificateBundle(bundle, what);
  }

  /**
   * Verifies `chain` (leaf first, as the client sent it) at `now`; returns the path used (leaf ...
   * authority). Throws with the established verifier's reason when it does not verify.
   */
  verify(chain: readonly X509Certificate[], now = Date.now()): X509Certificate[] {
    const leaf = chain[0];
    if (!leaf) throw new VerificationError('no client certificate');
    const known = this.verified.get(leaf);
    if (known && 'error' in known) throw known.error;
    if (known) {
      // Outside the window: the certificate whose dates refuse it gives the reason.
      if (now < known.from || now > known.to) for (const c of known.path) checkDates(c, now);
      return known.path;
    }
    try {
      const path = this.buildPath(leaf, chain.slice(1), now);
      const from = Math.max(...path.map((c) => Date.parse(c.validFrom)));
      const to = Math.min(...path.map((c) => Date.parse(c.validTo)));
      this.verified.set(leaf, { path, from, to });
      return path;
    } catch (err) {
      if (err instanceof VerificationError && err.final) this.verified.set(leaf, { error: err });
      throw err;
    }
  }

  private buildPath(leaf: X509Certificate, intermediates: readonly X509Certificate[], now: number): X509Certificate[] {
    checkDates(leaf, now);
    checkClientUsage(leaf);
    const path = [leaf];
    let current = leaf;
    for (let depth = 0; depth <= MAX_DEPTH; depth++) {
      const root = this.roots.find((r) => signedBy(current, r));
      if (root) {
        checkDates(root, now);
        if (root !== current && !path.some((c) => c.raw.equals(root.raw))) path.push(root);
        checkPathLengths(path);
        return path;
      }
      const next = intermediates.find((i) => i.ca && !path.includes(i) && signedBy(current, i));
      if (!next) break;
      checkDates(next, now);
      checkClientUsage(next);
      path.push(next);
      current = next;
    }
    throw new VerificationError('x509: certificate signed by unknown authority');
  }
}

/** Each CA on `path` (leaf first) allows the intermediates below it (established: too many is "too many intermediates"). */
function checkPathLengths(path: readonly X509Certificate[]): void {
  // path[i] for i >= 1 is a CA; between it and the leaf are i - 1 intermediates.
  for (let i = 2; i < path.length; i++) {
    const max = maxPathLength(path[i]!);
    if (max !== undefined && i - 1 > max) throw new VerificationError('x509: too many intermediates for path length constraint');
  }
}

/**
 * Verifies a request's chain for method `method`, as an AuthenticationFailure when it does not
 * verify. A final refusal (not a date) is the same failure object for the rest of the connection:
 * a plain client certificate meets the request-header method on every request.
 */
export function verifyForMethod(verifier: ChainVerifier, chain: readonly X509Certificate[], method: string, failures: WeakMap<X509Certificate, AuthenticationFailure>): void {
  const leaf = chain[0]!;
  const known = failures.get(leaf);
  if (known) throw known;
  try {
    verifier.verify(chain);
  } catch (err) {
    const failure = new AuthenticationFailure(method, `verifying certificate ${certificateIdentifier(leaf)} failed: ${(err as Error).message}`);
    if (err instanceof VerificationError && err.final) failures.set(leaf, failure);
    throw failure;
  }
}

/** "CN=alice,O=devs" style name of a certificate for log lines. */
export function certificateIdentifier(cert: X509Certificate): string {
  return `"${cert.subject.replace(/\n/g, ',')}" [serial ${cert.serialNumber}] issued by "${cert.issuer.replace(/\n/g, ',')}"`;
}

/** --client-ca-file: the user a verified client certificate names. */
export class ClientCertificateAuthenticator implements RequestAuthenticator {
  readonly name = 'x509';
  private readonly verifier: ChainVerifier;
  private readonly users = new WeakMap<X509Certificate, Authenticated | null>();
  private readonly failures = new WeakMap<X509Certificate, AuthenticationFailure>();

  constructor(clientCA: string) {
    this.verifier = new ChainVerifier(clientCA, '--client-ca-file');
  }

  authenticate(req: AuthenticationRequest): Authenticated | null {
    const chain = req.peerCertificates();
    const leaf = chain[0];
    if (!leaf) return null;
    verifyForMethod(this.verifier, chain, this.name, this.failures);
    let found = this.users.get(leaf);
    if (found === undefined) {
      const { commonName, organizations } = subjectOf(leaf);
      found = commonName ? { user: { username: commonName, groups: organizations } } : null;
      this.users.set(leaf, found);
    }
    return found && { user: { ...found.user, groups: [...found.user.groups] } };
  }
}

/**
 * The authorities the listener names when it asks for a client certificate (--client-ca-file and
 * --requestheader-client-ca-file together), or undefined when neither is set (no certificate is
 * asked for). Go clients such as kubectl send their certificate only when its issuer is in this
 * list, so both bundles must be in it.
 */
export function listenerClientCA(config: AuthenticationConfig | undefined): string | undefined {
  const bundles = [config?.x509?.clientCA, config?.requestHeader?.clientCA].filter((b): b is string => Boolean(b && b.trim()));
  return bundles.length > 0 ? bundles.map((b) => b.trim()).join('\n') + '\n' : undefined;
}
