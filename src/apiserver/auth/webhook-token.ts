/**
 * Webhook token authentication (--authentication-token-webhook-config-file): a bearer token no
 * earlier method recognised is sent to a remote service as a TokenReview, and its answer decides.
 *
 * The wire is the established one, because the remote service is written for it: a POST of
 * `{"apiVersion":"authentication.k8s.io/v1beta1" (or /v1),"kind":"TokenReview","spec":{"token":...,
 * "audiences":[...]}}`; the answer's `status.authenticated`, `status.user` {username, uid, groups,
 * extra}, `status.audiences` and `status.error` are read. An answer spelled with our group
 * (`authentication.svc.io`) is accepted too.
 *
 * Decisions, as established:
 * - authenticated: the user (the server adds system:authenticated);
 * - not authenticated: not this method's token (the chain then refuses it, 401); with
 *   `status.error` set it is a failure;
 * - the webhook unreachable, a non-2xx answer, or a malformed body: a failure (401), never
 *   anonymous;
 * - with --api-audiences set, the review asks for them, and the answer's audiences (none: the
 *   server's own) must share one with them, else the token is not recognised.
 * Answers, positive and negative, are cached for --authentication-token-webhook-cache-ttl per
 * token and audiences (keyed by a hash, not the token); failures are not cached.
 */
import { createHash } from 'node:crypto';
import { AuthenticationFailure, type Authenticated, type TokenAuthenticator } from './authentication.js';
import type { TokenWebhookConfig } from './config.js';
import type { UserInfo } from './user.js';
import { AnswerCache, RemoteCallError, WebhookClient } from './webhook-client.js';

/** The groups a TokenReview answer may be spelled with (the established one is sent). */
const GROUPS = new Set(['authentication.k8s.io', 'authentication.svc.io']);

type Review = { authenticated: true; user: UserInfo; audiences: string[] } | { authenticated: false };

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'webhook';
  private readonly client: WebhookClient;
  private readonly cache = new AnswerCache<Review>();

  constructor(
    private readonly config: TokenWebhookConfig,
    /** --api-audiences (empty: the review names none and any answer is accepted). */
    private readonly apiAudiences: readonly string[],
  ) {
    this.client = new WebhookClient(config.client);
  }

  /** `audiences`: what the token is checked for (a TokenReview's spec.audiences); absent: --api-audiences. */
  async authenticateToken(token: string, audiences?: readonly string[]): Promise<Authenticated | null> {
    const wanted = audiences ?? this.apiAudiences;
    const key = createHash('sha256').update(token).update('\0').update(wanted.join(',')).digest('base64');
    const review = await this.cache.getOrLoad(key, async () => {
      const r = await this.review(token, wanted);
      this.cache.set(key, r, this.config.cacheTtlMs);
      return r;
    });
    if (!review.authenticated) return null;
    if (wanted.length === 0) return { user: review.user };
    // No audiences in the answer: valid for the ones asked for (the established reading).
    const granted = review.audiences.length ? review.audiences.filter((a) => wanted.includes(a)) : [...wanted];
    if (granted.length === 0) return null;
    return { user: review.user, audiences: granted };
  }

  private async review(token: string, audiences: readonly string[]): Promise<Review> {
    const request = {
      apiVersion: `authentication.k8s.io/${this.config.version}`,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token, ...(audiences.length ? { audiences: [...audiences] } : {}) },
      status: { user: {} },
    };
    let answer: unknown;
    try {
      answer = await this.client.post(request);
    } catch (err) {
      if (err instanceof RemoteCallError) throw new AuthenticationFailure(this.name, `the token review webhook failed: ${err.message}`);
      throw err;
    }
    return this.parse(answer);
  }

  private parse(answer: unknown): Review {
    const fail = (why: string): never => {
      throw new AuthenticationFailure(this.name, `the token review webhook ${this.client.url} answered ${why}`);
    };
    if (!isRecord(answer)) return fail('something other than a TokenReview');
    const apiVersion = answer['apiVersion'];
    if (apiVersion !== undefined && (typeof apiVersion !== 'string' || !GROUPS.has(apiVersion.split('/')[0] ?? ''))) return fail(`apiVersion ${JSON.stringify(apiVersion)}, not authentication.k8s.io`);
    if (answer['kind'] !== undefined && answer['kind'] !== 'TokenReview') return fail(`kind ${JSON.stringify(answer['kind'])}, not TokenReview`);
    const status = isRecord(answer['status']) ? answer['status'] : {};
    if (status['authenticated'] !== true) {
      if (typeof status['error'] === 'string' && status['error'] !== '') return fail(`an error: ${status['error']}`);
      return { authenticated: false };
    }
    const u = isRecord(status['user']) ? status['user'] : {};
    const username = u['username'];
    if (typeof username !== 'string' || username === '') return fail('authenticated without a username');
    const user: UserInfo = { username, groups: strings(u['groups']) };
    if (typeof u['uid'] === 'string' && u['uid'] !== '') user.uid = u['uid'];
    if (isRecord(u['extra'])) {
      const extra: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(u['extra'])) extra[k] = strings(v);
      if (Object.keys(extra).length) user.extra = extra;
    }
    return { authenticated: true, user, audiences: strings(status['audiences']) };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
