/**
 * Service-account issuer discovery (the ServiceAccountIssuerDiscovery gate): the OpenID Connect
 * discovery document at `/.well-known/openid-configuration` and the key set at `/openid/v1/jwks`,
 * so anyone can verify this server's tokens with an ordinary OIDC library. As established:
 *
 * - the document names the first --service-account-issuer, `jwks_uri` (--service-account-jwks-uri,
 *   else `https://<this server's external address>/openid/v1/jwks`), `response_types_supported`
 *   ["id_token"], `subject_types_supported` ["public"] and the signing algorithms of the keys;
 * - the key set holds every verification key (`use` sig, `kid`, `alg`);
 * - both are GETs of non-resource paths: they go through authentication and authorization like any
 *   other path (the `system:service-account-issuer-discovery` role grants them), answered as
 *   `application/json` and `application/jwk-set+json` with `Cache-Control: public, max-age=3600`;
 * - when the issuer is not an https URL without query or fragment, or a given jwks URI is not
 *   https, the paths are not served (the established server logs why and carries on).
 */
import type { Response } from '../http.js';
import { type VerificationKey, jwkOf } from '../../api/service-account-keys.js';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
const CACHE_CONTROL = 'public, max-age=3600';

export interface IssuerDiscoveryOptions {
  issuer: string;
  jwksUri?: string;
  keys: VerificationKey[];
  /** host[:port] this server is reached at (the default jwks_uri), known once it listens. */
  externalAddress: () => string;
}

/** Why the documents cannot be served, or undefined when they can. */
export function issuerDiscoveryProblem(o: Pick<IssuerDiscoveryOptions, 'issuer' | 'jwksUri' | 'keys'>): string | undefined {
  let issuer: URL;
  try {
    issuer = new URL(o.issuer);
  } catch {
    return `the issuer ${JSON.stringify(o.issuer)} is not a URL`;
  }
  if (issuer.protocol !== 'https:') return `the issuer URL must use the https scheme, got: ${o.issuer}`;
  if (issuer.search) return `the issuer URL may not include a query, got: ${o.issuer}`;
  if (issuer.hash) return `the issuer URL may not include a fragment, got: ${o.issuer}`;
  if (o.jwksUri !== undefined) {
    let jwks: URL;
    try {
      jwks = new URL(o.jwksUri);
    } catch {
      return `--service-account-jwks-uri ${JSON.stringify(o.jwksUri)} is not a URL`;
    }
    if (jwks.protocol !== 'https:') return `--service-account-jwks-uri requires the https scheme, got: ${o.jwksUri}`;
  }
  if (o.keys.length === 0) return 'no keys provided for validating the key set';
  return undefined;
}

export class IssuerDiscovery {
  private jwks: Buffer | undefined;

  constructor(private readonly o: IssuerDiscoveryOptions) {}

  /** Answers the two paths (GET); false for any other. */
  async serve(pathname: string, method: string, res: Response): Promise<boolean> {
    if (pathname !== OPENID_CONFIGURATION_PATH && pathname !== JWKS_PATH) return false;
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' });
      res.end('405 method not allowed\n');
      return true;
    }
    const isConfig = pathname === OPENID_CONFIGURATION_PATH;
    const body = isConfig ? this.configuration() : await this.keySet();
    res.writeHead(200, { 'content-type': isConfig ? 'application/json' : 'application/jwk-set+json', 'cache-control': CACHE_CONTROL, 'content-length': String(body.length) });
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  }

  private configuration(): Buffer {
    const algs = [...new Set(this.o.keys.map((k) => k.alg))].sort();
    return Buffer.from(
      JSON.stringify({
        issuer: this.o.issuer,
        jwks_uri: this.o.jwksUri ?? `https://${this.o.externalAddress()}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: algs,
      }),
    );
  }

  private async keySet(): Promise<Buffer> {
    this.jwks ??= Buffer.from(JSON.stringify({ keys: await Promise.all(this.o.keys.map(jwkOf)) }));
    return this.jwks;
  }
}
