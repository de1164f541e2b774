/**
 * Authorization: the contract an authorization mode implements and the chain --authorization-mode
 * builds from them, with the established decision rule:
 *
 * - the modes are asked in the order given; the first that allows or denies decides;
 * - a mode with no opinion passes the request on; when none has one, the request is refused (403);
 * - members of `system:masters` are allowed everything before any mode is asked (the established
 *   superuser group, so an administrator cannot lock themselves out with a bad policy).
 *
 * The same chain answers the access reviews (SelfSubjectAccessReview, SubjectAccessReview, ...),
 * so `kubectl auth can-i` hears exactly what a real request would.
 */
import type { FieldRequirement } from '../../api/fields.js';
import { MASTERS_GROUP, type UserInfo } from './user.js';

/** What is being asked for: a resource request or a non-resource path (the access review attributes). */
export type AccessAttributes =
  | {
      kind: 'resource';
      verb: string;
      group: string;
      version: string;
      resource: string;
      subresource: string;
      namespace: string;
      /** The object's name; for list and watch, the name a `metadata.name=<x>` field selector requires (as established). */
      name: string;
      /** A list's or watch's field selector (empty when none or malformed), e.g. a node's `spec.nodeName=<node>`. */
      fieldSelector?: readonly FieldRequirement[];
    }
  | { kind: 'nonResource'; verb: string; path: string };

export interface AccessDecision {
  allowed: boolean;
  /** Only when a rule forbids outright (a later mode could otherwise still allow). */
  denied?: boolean;
  /** Why (an allow's rule, a refusal's explanation); empty when a mode has nothing to say. */
  reason: string;
  /**
   * A mode that could not decide (a webhook that failed or answered nonsense). As established, a
   * request no later mode allows or denies is then answered 500, not 403 (the refusal is not a
   * policy), and an access review reports it in `status.evaluationError`.
   */
  evaluationError?: string;
}

/** The rules a user has in a namespace, as SelfSubjectRulesReview lists them. */
export interface AccessRules {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
  /** Why the list may be incomplete (a mode that cannot list its rules, e.g. Webhook). */
  evaluationError?: string;
}

export interface Authorizer {
  /** The --authorization-mode this authorizer implements (or "Chain", "Privileged"). */
  readonly mode: string;
  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision | Promise<AccessDecision>;
  rulesFor(user: UserInfo, namespace: string): AccessRules | Promise<AccessRules>;
  /** Stops what the mode follows (watches of the server's stores), at server shutdown. */
  close?(): void;
}

export const NO_OPINION: AccessDecision = Object.freeze({ allowed: false, reason: '' });

const ALL_RULES = (): AccessRules => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});

/** AlwaysAllow: every request of every user. */
export const ALWAYS_ALLOW: Authorizer = {
  mode: 'AlwaysAllow',
  authorize: () => ({ allowed: true, reason: 'the server authorizes every request (--authorization-mode=AlwaysAllow)' }),
  rulesFor: ALL_RULES,
};

/** AlwaysDeny: no request of anyone (for tests; system:masters is still allowed by the chain). */
export const ALWAYS_DENY: Authorizer = {
  mode: 'AlwaysDeny',
  authorize: () => ({ allowed: false, denied: true, reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** The superuser group: allowed before any mode is asked. */
export const PRIVILEGED_GROUPS: Authorizer = {
  mode: 'Privileged',
  authorize: (user) => (user.groups.includes(MASTERS_GROUP) ? { allowed: true, reason: '' } : NO_OPINION),
  rulesFor: (user) => (user.groups.includes(MASTERS_GROUP) ? ALL_RULES() : { resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** The modes in order, behind the superuser group. */
export class AuthorizerChain implements Authorizer {
  readonly mode = 'Chain';
  readonly authorizers: readonly Authorizer[];
  constructor(modes: readonly Authorizer[]) {
    this.authorizers = [PRIVILEGED_GROUPS, ...modes];
  }

  async authorize(user: UserInfo, attributes: AccessAttributes): Promise<AccessDecision> {
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const a of this.authorizers) {
      // Most modes answer synchronously: no await (a microtask each) on every request for them.
      const answer = a.authorize(user, attributes);
      const d = answer instanceof Promise ? await answer : answer;
      if (d.allowed || d.denied) return d;
      if (d.reason) reasons.push(d.reason);
      if (d.evaluationError) errors.push(d.evaluationError);
    }
    return { allowed: false, reason: reasons.join('; '), ...(errors.length ? { evaluationError: errors.join('; ') } : {}) };
  }

  close(): void {
    for (const a of this.authorizers) a.close?.();
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<AccessRules> {
    const out: AccessRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const r = await a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) out.incomplete = true;
      if (r.evaluationError) errors.push(r.evaluationError);
    }
    if (errors.length) out.evaluationError = errors.join('; ');
    return out;
  }
}
