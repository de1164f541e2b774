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
import { BOOTSTRAP_TOKEN_NAMESPACE, BootstrapTokenAuthenticator } from './bootstrap-tokens.js';
import type { AuthenticationConfig } from './config.js';
import { objectLookup, serviceAccountAuthenticator } from './service-account-setup.js';
import { secretDefinition } from '../../api/kinds/index.js';
import { OidcAuthenticator } from './oidc.js';
import { RequestHeaderAuthenticator } from './request-header.js';
import { DEFAULT_TOKEN_CACHE, TokenCache } from './token-cache.js';
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
  // Bearer tokens, in the established order: token file, service accounts, bootstrap, OIDC, webhook.
  // Methods that know nothing of audiences are wrapped audience agnostic, as established.
  if (config.tokenFile) tokens.push(audienceAgnostic(config.apiAudiences, new TokenFileAuthenticator(config.tokenFile.text, config.tokenFile.source)));
  const serviceAccounts = serviceAccountAuthenticator(config, objectLookup(ctx.storeFor));
  if (serviceAccounts) tokens.push(serviceAccounts);
  if (config.bootstrapTokens) {
    const secrets = ctx.storeFor(secretDefinition);
    // From the watch cache alone when there is one (the established method reads its informer):
    // a token-shaped guess must not cost a storage read.
    const secret = async (name: string) =>
      secrets.cache ? secrets.cache.get(secrets.keys.key(BOOTSTRAP_TOKEN_NAMESPACE, name))?.object : secrets.peek(BOOTSTRAP_TOKEN_NAMESPACE, name);
    tokens.push(
      audienceAgnostic(
        config.apiAudiences,
        new BootstrapTokenAuthenticator(
          secret,
          Date.now,
          (secret, why) => ctx.logger.debug({ secret, why }, 'bootstrap token refused'),
        ),
      ),
    );
  }
  const { oidc, tokenWebhook } = config;
  // OIDC id tokens are meant for the client id, not for the server's audiences.
  if (oidc) tokens.push(audienceAgnostic(config.apiAudiences, new OidcAuthenticator(oidc, ctx.logger.child({ method: 'oidc' })).start()));
  if (tokenWebhook) tokens.push(new WebhookTokenAuthenticator(tokenWebhook, config.apiAudiences));
  // The methods as one union behind the token cache (established: success 10 s, failures not
  // cached), so a token is verified and looked up once per TTL, not once per request.
  const bearer =
    tokens.length > 0
      ? new BearerTokenAuthenticator([new TokenCache(new BearerTokenAuthenticator(tokens, config.apiAudiences), config.tokenCache ?? DEFAULT_TOKEN_CACHE)], config.apiAudiences)
      : undefined;
  if (bearer) methods.push(bearer);
  return new AuthenticationChain({
    methods,
    ...(bearer ? { tokens: bearer } : {}),
    anonymous: ctx.config.anonymous,
    onFailure: (failures) => ctx.logger.debug({ failures }, 'request not authenticated'),
  });
}
