/**
 * The Webhook authorization mode (--authorization-mode=...,Webhook,...): each request's
 * attributes are sent to a remote service as a SubjectAccessReview, and its answer decides.
 *
 * The wire is the established one, because the remote service is written for it: a POST of
 * `{"apiVersion":"authorization.k8s.io/v1beta1" (or /v1),"kind":"SubjectAccessReview","spec":{
 * "resourceAttributes"|"nonResourceAttributes", "user", "group" (v1beta1) | "groups" (v1), "uid",
 * "extra"}}`, API groups in their established spelling (`rbac.authorization.k8s.io`, not ours).
 * The answer's `status.allowed`, `status.denied`, `status.reason` are read (either group spelling).
 *
 * Decisions, as established:
 * - allowed: allow; denied: deny (no later mode is asked); both: deny; neither: no opinion, with
 *   the webhook's reason;
 * - the webhook unreachable, a non-2xx answer or a malformed body: no opinion (the next mode may
 *   still decide), the failure as the reason; never an allow;
 * - answers are cached per review: allows for --authorization-webhook-cache-authorized-ttl, the
 *   rest for --authorization-webhook-cache-unauthorized-ttl; failures are not cached;
 * - rulesFor cannot be answered by a webhook: an incomplete, empty list with the established
 *   evaluationError.
 */
import { establishedGroup } from '../../api/established-spelling.js';
import type { Logger } from 'pino';
import { type AccessAttributes, type AccessDecision, type AccessRules, type Authorizer } from './authorization.js';
import type { AuthorizationWebhookConfig } from './config.js';
import type { UserInfo } from './user.js';
import { AnswerCache, RemoteCallError, WebhookClient } from './webhook-client.js';

const GROUPS = new Set(['authorization.k8s.io', 'authorization.svc.io']);

export const WEBHOOK_RULES_ERROR = 'webhook authorizer does not support user rule resolution';

export class WebhookAuthorizer implements Authorizer {
  readonly mode = 'Webhook';
  private readonly client: WebhookClient;
  private readonly cache = new AnswerCache<AccessDecision>();

  constructor(
    private readonly config: AuthorizationWebhookConfig,
    private readonly logger?: Logger,
  ) {
    this.client = new WebhookClient(config.client);
  }

  async authorize(user: UserInfo, attributes: AccessAttributes): Promise<AccessDecision> {
    const spec = this.specOf(user, attributes);
    const key = JSON.stringify(spec);
    try {
      return await this.cache.getOrLoad(key, async () => {
        const d = await this.review(spec);
        this.cache.set(key, d, d.allowed ? this.config.authorizedTtlMs : this.config.unauthorizedTtlMs);
        return d;
      });
    } catch (err) {
      if (!(err instanceof RemoteCallError) && !(err instanceof MalformedReview)) throw err;
      this.logger?.error({ err: err.message }, 'Failed to make webhook authorizer request');
      return { allowed: false, reason: '', evaluationError: `webhook authorizer: ${err.message}` };
    }
  }

  rulesFor(): AccessRules {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: WEBHOOK_RULES_ERROR };
  }

  private specOf(user: UserInfo, a: AccessAttributes): Record<string, unknown> {
    const attributes =
      a.kind === 'resource'
        ? {
            resourceAttributes: {
              ...(a.namespace ? { namespace: a.namespace } : {}),
              verb: a.verb,
              ...(a.group ? { group: establishedGroup(a.group) } : {}),
              ...(a.version ? { version: a.version } : {}),
              resource: a.resource,
              ...(a.subresource ? { subresource: a.subresource } : {}),
              ...(a.name ? { name: a.name } : {}),
            },
          }
        : { nonResourceAttributes: { path: a.path, verb: a.verb } };
    return {
      ...attributes,
      user: user.username,
      // The one field whose name differs between the versions.
      [this.config.version === 'v1' ? 'groups' : 'group']: [...user.groups],
      ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
      ...(user.uid ? { uid: user.uid } : {}),
    };
  }

  private async review(spec: Record<string, unknown>): Promise<AccessDecision> {
    const answer = await this.client.post({
      apiVersion: `authorization.k8s.io/${this.config.version}`,
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: false },
    });
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new MalformedReview('the webhook answered something other than a SubjectAccessReview');
    const doc = answer as Record<string, unknown>;
    const apiVersion = doc['apiVersion'];
    if (apiVersion !== undefined && (typeof apiVersion !== 'string' || !GROUPS.has(apiVersion.split('/')[0] ?? ''))) {
      throw new MalformedReview(`the webhook answered apiVersion ${JSON.stringify(apiVersion)}, not authorization.k8s.io`);
    }
    const status = (typeof doc['status'] === 'object' && doc['status'] !== null ? doc['status'] : {}) as Record<string, unknown>;
    const reason = typeof status['reason'] === 'string' ? status['reason'] : '';
    if (status['denied'] === true) return { allowed: false, denied: true, reason };
    if (status['allowed'] === true) return { allowed: true, reason };
    return { allowed: false, reason };
  }
}

/** An answer that is JSON but not a SubjectAccessReview: a failure like an unreachable webhook. */
class MalformedReview extends Error {}
