/**
 * From the resolved --service-account-* settings to the parts that use them: the token method
 * (./authenticators.ts puts it in its place in the chain), the TokenRequest subresource's issuer,
 * and the issuer discovery documents. Each part is present only when its settings and gate are:
 *
 * - the token method: whenever there are verification keys (legacy tokens; bound ones too once an
 *   issuer is given);
 * - TokenRequest: a signing key (the options refuse one without the TokenRequest gate and an issuer);
 * - discovery: the ServiceAccountIssuerDiscovery gate and an issuer that is an https URL (else the
 *   paths are not served and the reason is logged, as established).
 */
import type { Logger } from 'pino';
import { podDefinition, secretDefinition, serviceAccountDefinition } from '../../api/kinds/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import type { TokenRequestSettings } from '../handlers/token-request.js';
import type { AuthenticationConfig, ServiceAccountTokenConfig } from './config.js';
import { IssuerDiscovery, issuerDiscoveryProblem } from './issuer-discovery.js';
import { signingKeyFrom, type VerificationKey, verificationKeysFrom } from '../../api/service-account-keys.js';
import { type ObjectLookup, ServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer } from './service-account-tokens.js';

/** --api-audiences, defaulting to the issuers (established: a token must be meant for this API). */
export function effectiveApiAudiences(config: AuthenticationConfig): string[] {
  if (config.apiAudiences.length) return [...config.apiAudiences];
  return [...(config.serviceAccounts?.issuers ?? [])];
}

/** Every verification key of every --service-account-key-file. */
export function verificationKeys(sa: ServiceAccountTokenConfig): VerificationKey[] {
  return sa.verificationKeys.flatMap((pem, i) => verificationKeysFrom(pem, `--service-account-key-file[${i}]`));
}

/** Service accounts, Pods and Secrets as the server's stores have them (watch cache first). */
export function objectLookup(storeFor: (def: ResourceDefinition) => ResourceStore): ObjectLookup {
  const defs = { ServiceAccount: serviceAccountDefinition, Pod: podDefinition, Secret: secretDefinition } as const;
  return (kind, namespace, name) => storeFor(defs[kind]).peek(namespace, name);
}

/** The token method, when there is a key to verify with. */
export function serviceAccountAuthenticator(config: AuthenticationConfig, objects: ObjectLookup): ServiceAccountTokenAuthenticator | undefined {
  const sa = config.serviceAccounts;
  if (!sa || sa.verificationKeys.length === 0) return undefined;
  return new ServiceAccountTokenAuthenticator({ issuers: sa.issuers, keys: verificationKeys(sa), apiAudiences: effectiveApiAudiences(config), lookup: sa.lookup, objects });
}

/** The TokenRequest subresource's settings, when tokens can be issued. */
export function tokenRequestSettings(config: AuthenticationConfig, now: () => number): TokenRequestSettings | undefined {
  const sa = config.serviceAccounts;
  if (!sa?.signingKey || sa.issuers.length === 0) return undefined;
  const issuer = new ServiceAccountTokenIssuer(signingKeyFrom(sa.signingKey, '--service-account-signing-key-file'), sa.issuers[0]!, now);
  return {
    issuer,
    apiAudiences: effectiveApiAudiences(config),
    ...(sa.maxTokenExpirationSeconds ? { maxExpirationSeconds: sa.maxTokenExpirationSeconds } : {}),
  };
}

/** The discovery documents, when the gate is on and the issuer allows them. */
export function issuerDiscovery(config: AuthenticationConfig, externalAddress: () => string, logger: Logger): IssuerDiscovery | undefined {
  const sa = config.serviceAccounts;
  if (!sa?.issuerDiscovery || sa.issuers.length === 0) return undefined;
  const keys = verificationKeys(sa);
  const o = { issuer: sa.issuers[0]!, keys, externalAddress, ...(sa.jwksUri ? { jwksUri: sa.jwksUri } : {}) };
  const problem = issuerDiscoveryProblem(o);
  if (problem) {
    logger.error({ problem }, 'ServiceAccountIssuerDiscovery: /.well-known/openid-configuration and /openid/v1/jwks are not served');
    return undefined;
  }
  return new IssuerDiscovery(o);
}
