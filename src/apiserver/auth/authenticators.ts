/**
 * The one list of authentication methods, in the established order, and the chain the flags make
 * of them (./authentication.ts has the rules). A method's flags are refused at start until the
 * method is built here (their `honoured: false` in src/cli/apiserver-options.ts).
 */
import type { Logger } from 'pino';
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import { AuthenticationChain, BearerTokenAuthenticator, type RequestAuthenticator, type TokenAuthenticator } from './authentication.js';
import type { AuthenticationConfig } from './config.js';
import { OidcAuthenticator } from './oidc.js';
import { WebhookTokenAuthenticator } from './webhook-token.js';

/** What a method may use: the server's own stores (service accounts, secrets) and its log. */
export interface AuthenticationContext {
  config: AuthenticationConfig;
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  logger: Logger;
}

/** The chain for `ctx.config`: request-header proxy, client certificates, then bearer tokens; anonymous last. */
export async function buildAuthentication(ctx: AuthenticationContext): Promise<AuthenticationChain> {
  const methods: RequestAuthenticator[] = [];
  const tokens: TokenAuthenticator[] = [];
  const { oidc, tokenWebhook } = ctx.config;
  if (oidc) tokens.push(new OidcAuthenticator(oidc, ctx.logger.child({ method: 'oidc' })).start());
  if (tokenWebhook) tokens.push(new WebhookTokenAuthenticator(tokenWebhook, ctx.config.apiAudiences));
  if (tokens.length > 0) methods.push(new BearerTokenAuthenticator(tokens));
  return new AuthenticationChain({
    methods,
    anonymous: ctx.config.anonymous,
    onFailure: (failures) => ctx.logger.debug({ failures }, 'request not authenticated'),
  });
}
