/**
 * POST of a TokenReview or SelfSubjectReview (authentication.svc.io/v1), answered and returned with
 * its status, never stored, as established:
 *
 * - TokenReview: `spec.token` is checked by the server's bearer-token methods in their order (the
 *   same ones requests are authenticated with), for `spec.audiences` when given, else for
 *   --api-audiences. `status.authenticated`, the user (with `system:authenticated`), the audiences
 *   the token is valid for, and `status.error` when it is not. A server with no token method answers
 *   the review unchanged (not authenticated). An empty token is a 400.
 * - SelfSubjectReview: the user making the request (after impersonation), in `status.userInfo`.
 */
import { validateAgainstSchema } from '../../api/index.js';
import { selfSubjectReviewDefinition, tokenReviewDefinition } from '../../api/kinds/index.js';
import { badRequest, internalError, invalid } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { AuthenticationFailure, requestUser } from '../auth/authentication.js';
import { type UserInfo, withAuthenticatedGroup } from '../auth/user.js';
import { readRequestValue } from '../http.js';
import { asObject, checkTypeMeta, timestamp } from '../object-rules.js';
import { objectMediaTypes, writeValue } from '../representation.js';
import type { RequestScope } from '../scope.js';

/** Kinds answered here instead of being stored. */
export function isAuthenticationReview(def: ResourceDefinition): boolean {
  return def === tokenReviewDefinition || def === selfSubjectReviewDefinition;
}

/** The established UserInfo of a review (extra always present, possibly empty, in TokenReview). */
function userInfo(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

export async function handleAuthenticationReview(s: RequestScope): Promise<void> {
  const review = asObject(await readRequestValue(s.req, objectMediaTypes(s.def), s.services.config.inputLimits), s.def.kind);
  checkTypeMeta(s.def, review);
  const errors = [...validateAgainstSchema(s.def, review), ...(s.def.validate?.(review) ?? [])];
  if (errors.length) throw invalid(s.def.kind, '', s.def.group, errors);
  if (s.def === selfSubjectReviewDefinition) {
    const answer: SvcObject = { ...review, metadata: { ...review.metadata, creationTimestamp: timestamp(s.services.now()) }, status: { userInfo: userInfo(requestUser(s.req)) } };
    return writeValue(s, 201, answer as unknown as Record<string, unknown>);
  }
  const spec = (review.spec ?? {}) as { token?: unknown; audiences?: unknown };
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  // Established JSON: `authenticated` only when true, `user` always (empty when none).
  const status: Record<string, unknown> = { user: {} };
  const answer: SvcObject = { ...review, metadata: { ...review.metadata, creationTimestamp: null as unknown as string }, status };
  const tokens = s.services.authentication.tokens;
  if (tokens) {
    const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    const audiences = asked.length > 0 ? asked : tokens.apiAudiences.length > 0 ? [...tokens.apiAudiences] : undefined;
    try {
      const found = await tokens.authenticateToken(token, audiences);
      // A method must say which of the asked audiences the token is for (established: a 500 otherwise).
      if (audiences && !(found.audiences ?? []).some((a) => audiences.includes(a))) throw internalError('Internal error occurred: error validating audiences');
      status['authenticated'] = true;
      status['user'] = userInfo(withAuthenticatedGroup(found.user));
      if (found.audiences) status['audiences'] = [...found.audiences];
    } catch (err) {
      if (!(err instanceof AuthenticationFailure)) throw err;
      status['error'] = err.message;
    }
  }
  writeValue(s, 201, answer as unknown as Record<string, unknown>);
}
