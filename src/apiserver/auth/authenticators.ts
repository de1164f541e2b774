/**
 * The one list of authentication methods, in the established order, and the chain the flags make
 * of them (./authentication.ts has the rules). A method's flags are refused at start until the
 * method is built here (their `honoured: false` in src/cli/apiserver-options.ts).
 */
import type { Logger } from 'pino';
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import { AuthenticationChain, audienceAgnostic, BearerTokenAuthenticator, type RequestAuthenticator, type TokenAuthenticator } from './authentication.js';
import type { AuthenticationConfig } from './config.js';
import { OidcAuthenticator } from './oidc.js';
import { RequestHeaderAuthenticator } from './request-header.js';
import { TokenFileAuthenticator } from './token-file.js';
import { WebhookTokenAuthenticator } from './webhook-token.js';
import { ClientCertificateAuthenticator } from './x509.js';

/** What a method may use: the server's own stores (service accounts, secrets) and its log. */
export interface AuthenticationContext {
  config: AuthenticationConfig;
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  logger: Logger;
}

/** The chain for `ctx.config`: request-header proxy, client certificates, then bearer tokens; anonymous last. */
export async function buildAuthentication(ctx: AuthenticationContext): Promise<AuthenticationChain> {
  const { config } = ctx;
  const methods: RequestAuthenticator[] = [];
  if (config.requestHeader) methods.push(new RequestHeaderAuthenticator(config.requestHeader));
  if (config.x509) methods.push(new ClientCertificateAuthenticator(config.x509.clientCA));
  const tokens: TokenAuthenticator[] = [];
  if (config.tokenFile) tokens.push(audienceAgnostic(config.apiAudiences, new TokenFileAuthenticator(config.tokenFile.text, config.tokenFile.source)));
  const { oidc, tokenWebhook } = config;
  // OIDC id tokens are meant for the client id, not for the server's audiences: audience agnostic, as established.
  if (oidc) tokens.push(audienceAgnostic(config.apiAudiences, new OidcAuthenticator(oidc, ctx.logger.child({ method: 'oidc' })).start()));
  if (tokenWebhook) tokens.push(new WebhookTokenAuthenticator(tokenWebhook, config.apiAudiences));
  const bearer = tokens.length > 0 ? new BearerTokenAuthenticator(tokens, config.apiAudiences) : undefined;
  if (bearer) methods.push(bearer);
  return new AuthenticationChain({
    methods,
    ...(bearer ? { tokens: bearer } : {}),
    anonymous: ctx.config.anonymous,
    onFailure: (failures) => ctx.logger.debug({ failures }, 'request not authenticated'),
  });
}
