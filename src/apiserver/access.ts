/**
 * Who is asking and whether they may: the pipeline's authentication and authorization stages, as
 * one object the access reviews ask too, so `kubectl auth can-i` hears what a real request would.
 *
 * Authentication is anonymous and authorization AlwaysAllow (the default --authorization-mode)
 * until the security work lands; it replaces ALWAYS_ALLOW without touching the stages' callers.
 */
import type { PipelineRequest } from './http.js';
import { InProcessRequest } from './in-process-exchange.js';

export interface UserInfo {
  username: string;
  groups: string[];
}

/** An in-process call is the user its transport names; every HTTP request is anonymous for now (--anonymous-auth defaults to true). */
export function authenticate(req: PipelineRequest): UserInfo {
  if (req instanceof InProcessRequest) return req.user;
  return { username: 'system:anonymous', groups: ['system:unauthenticated'] };
}

/** What is being asked for: a resource request or a non-resource path (the access review attributes). */
export type AccessAttributes =
  | { kind: 'resource'; verb: string; group: string; version: string; resource: string; subresource: string; namespace: string; name: string }
  | { kind: 'nonResource'; verb: string; path: string };

export interface AccessDecision {
  allowed: boolean;
  /** Only when a rule forbids outright (a later authorizer could otherwise still allow). */
  denied?: boolean;
  reason: string;
}

/** The rules a user has in a namespace, as SelfSubjectRulesReview lists them. */
export interface AccessRules {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
}

export interface Authorizer {
  /** The --authorization-mode this authorizer implements. */
  readonly mode: string;
  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision;
  rulesFor(user: UserInfo, namespace: string): AccessRules;
}

/** AlwaysAllow: every request of every user. */
export const ALWAYS_ALLOW: Authorizer = {
  mode: 'AlwaysAllow',
  authorize: () => ({ allowed: true, reason: 'the server authorizes every request (--authorization-mode=AlwaysAllow)' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};
