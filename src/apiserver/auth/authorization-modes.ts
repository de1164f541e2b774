/**
 * The one list of authorization modes this server builds, and the chain --authorization-mode makes
 * of them. A mode named in the spec but absent here is refused at start (`modesNotBuilt`), never
 * accepted and ignored: a security option must not fail open.
 */
import type { Logger } from 'pino';
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import { ALWAYS_ALLOW, ALWAYS_DENY, type Authorizer, AuthorizerChain } from './authorization.js';
import { AbacAuthorizer, parseAbacPolicies } from './abac.js';
import { createNodeAuthorizer } from './node-authorizer.js';
import { WebhookAuthorizer } from './webhook-authorizer.js';
import { AUTHORIZATION_MODES, type AuthorizationConfig, type AuthorizationMode } from './config.js';
import { RbacAuthorizer } from './rbac/authorizer.js';
import type { RbacPolicyIndex } from './rbac/policy-index.js';

/** What a mode may use to decide: the server's own stores (read through their watch caches). */
export interface AuthorizationContext {
  config: AuthorizationConfig;
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  /** The in-memory RBAC policy (one per server, shared with escalation prevention; made on first use). */
  rbacPolicy(): Promise<RbacPolicyIndex>;
  logger: Logger;
}

type AuthorizerFactory = (ctx: AuthorizationContext) => Authorizer | Promise<Authorizer>;

const FACTORIES: { readonly [M in AuthorizationMode]?: AuthorizerFactory } = {
  AlwaysAllow: () => ALWAYS_ALLOW,
  AlwaysDeny: () => ALWAYS_DENY,
  ABAC: ({ config }) => {
    if (!config.abac) throw new Error('--authorization-mode=ABAC needs --authorization-policy-file');
    return new AbacAuthorizer(parseAbacPolicies(config.abac.policy, config.abac.file));
  },
  Webhook: ({ config, logger }) => {
    if (!config.webhook) throw new Error('--authorization-mode=Webhook needs --authorization-webhook-config-file');
    return new WebhookAuthorizer(config.webhook, logger.child({ mode: 'Webhook' }));
  },
  Node: (ctx) => createNodeAuthorizer({ registry: ctx.registry, storeFor: ctx.storeFor, logger: ctx.logger.child({ authorizer: 'Node' }) }),
  RBAC: async (ctx) => new RbacAuthorizer(await ctx.rbacPolicy()),
};

/** The modes this server builds, in the spec's order. */
export function builtModes(): AuthorizationMode[] {
  return AUTHORIZATION_MODES.filter((m) => FACTORIES[m]);
}

/** The modes of `modes` this server cannot build yet (refused at start). */
export function modesNotBuilt(modes: readonly AuthorizationMode[]): AuthorizationMode[] {
  return modes.filter((m) => !FACTORIES[m]);
}

/** The chain of `ctx.config.modes`, in order, behind the superuser group. */
export async function buildAuthorizer(ctx: AuthorizationContext): Promise<AuthorizerChain> {
  const missing = modesNotBuilt(ctx.config.modes);
  if (missing.length) throw new Error(`--authorization-mode=${missing.join(',')} is not built yet; built so far: ${builtModes().join(', ')}`);
  const modes: Authorizer[] = [];
  for (const m of ctx.config.modes) modes.push(await FACTORIES[m]!(ctx));
  return new AuthorizerChain(modes);
}
