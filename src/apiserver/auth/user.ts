/**
 * Who is asking: the identity authentication gives a request, and the names the established server
 * reserves for its groups and users. Every authenticator (./authentication.ts), the authorizers
 * (./authorization.ts) and the handlers that answer "who am I" read this one shape.
 */

export interface UserInfo {
  username: string;
  /** A unique id (service accounts: the account's uid; certificates: none). */
  uid?: string;
  groups: string[];
  /** Further attributes an authenticator knows (scopes, the bound pod of a token, ...). */
  extra?: Record<string, string[]>;
}

/** The user of a request no method recognised, when --anonymous-auth is on. */
export const ANONYMOUS_USER = 'system:anonymous';
/** The group of that user. */
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
/** Added to every user a method recognised. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** Members may do anything, whatever the authorization modes say (the established superuser group). */
export const MASTERS_GROUP = 'system:masters';

/** Service accounts' user names and groups have one home, beside their tokens' format. */
export { SERVICE_ACCOUNTS_GROUP, serviceAccountGroups, serviceAccountOfUsername, serviceAccountUsername } from '../../api/service-account-token-format.js';

export const ANONYMOUS: Readonly<UserInfo> = Object.freeze({ username: ANONYMOUS_USER, groups: Object.freeze([UNAUTHENTICATED_GROUP]) as unknown as string[] });

/**
 * `user` with `system:authenticated` added, as the established server does for every user an
 * authenticator recognised (not the anonymous user, nor one already in either group).
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
