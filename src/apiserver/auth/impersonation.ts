/**
 * Impersonation: the pipeline stage between authentication and authorization (../server.ts). A
 * request carrying `Impersonate-User` (and optionally `Impersonate-Group`, `Impersonate-Uid`,
 * `Impersonate-Extra-<key>`) is served as that user, once the authenticated user has been
 * authorized to impersonate each part of it, as established:
 *
 * | header                       | authorized as (verb `impersonate`)                                   |
 * |------------------------------|-----------------------------------------------------------------------|
 * | Impersonate-User: name       | `users` name (core group)                                             |
 * | Impersonate-User: system:serviceaccount:ns:name | `serviceaccounts` name in namespace ns (core group) |
 * | Impersonate-Group: name      | `groups` name (core group), once per header line                      |
 * | Impersonate-Uid: uid         | `uids` uid (authentication.svc.io)                                    |
 * | Impersonate-Extra-key: value | `userextras/<key>` value (authentication.svc.io), once per value       |
 *
 * - Groups, uid or extras without a user is an error (500, as established).
 * - The first refusal is a 403 Status naming what could not be impersonated.
 * - The new user's groups are the ones asked for (a service account without any: its fixed
 *   groups), plus `system:authenticated` unless `system:authenticated`/`system:unauthenticated` was
 *   asked for; impersonating `system:anonymous` adds `system:unauthenticated` instead.
 * - Nothing of the impersonating user is carried over (their groups, uid and extras).
 *
 * The stage replaces the request's user (`setRequestUser`): authorization, admission and "who am
 * I" (SelfSubjectReview) all see the impersonated user.
 */
import { forbidden, internalError, type StatusError } from '../../api/status.js';
import { headerValues, type AuthenticationRequest } from './authentication.js';
import type { AccessAttributes, Authorizer } from './authorization.js';
import { unescapeExtraKey } from './request-header.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, serviceAccountGroups, serviceAccountOfUsername, serviceAccountUsername, UNAUTHENTICATED_GROUP, type UserInfo } from './user.js';

export const IMPERSONATE_USER_HEADER = 'impersonate-user';
export const IMPERSONATE_GROUP_HEADER = 'impersonate-group';
export const IMPERSONATE_UID_HEADER = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/** The group of the uids and userextras resources (the established authentication.k8s.io). */
const AUTHENTICATION_GROUP = 'authentication.svc.io';

/** One thing asked for, and how it is authorized. */
interface Impersonation {
  resource: 'users' | 'serviceaccounts' | 'groups' | 'uids' | 'userextras';
  group: string;
  version: string;
  namespace: string;
  name: string;
  /** userextras: the extra key. */
  subresource: string;
}

/** The header names of a request, lower case, once each. */
function headerNames(req: Pick<AuthenticationRequest, 'headers' | 'rawHeaders'>): string[] {
  if (!req.rawHeaders) return Object.keys(req.headers);
  const names = new Set<string>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) names.add(req.rawHeaders[i]!.toLowerCase());
  return [...names];
}

/** What the request asks to impersonate, in the established order (user, groups, extras, uid); [] when nothing. */
export function impersonationRequests(req: Pick<AuthenticationRequest, 'headers' | 'rawHeaders'>): Impersonation[] {
  const out: Impersonation[] = [];
  const core = { group: '', version: '', namespace: '', subresource: '' };
  const user = headerValues(req, IMPERSONATE_USER_HEADER)[0] ?? '';
  if (user) {
    const sa = serviceAccountOfUsername(user);
    out.push(sa ? { ...core, resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name } : { ...core, resource: 'users', name: user });
  }
  const groups = headerValues(req, IMPERSONATE_GROUP_HEADER);
  for (const g of groups) out.push({ ...core, resource: 'groups', name: g });
  let extras = false;
  for (const name of headerNames(req)) {
    if (!name.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    extras = true;
    const key = unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const value of headerValues(req, name)) {
      out.push({ resource: 'userextras', group: AUTHENTICATION_GROUP, version: 'v1', namespace: '', name: value, subresource: key });
    }
  }
  const uid = headerValues(req, IMPERSONATE_UID_HEADER)[0] ?? '';
  if (uid) out.push({ resource: 'uids', group: AUTHENTICATION_GROUP, version: 'v1', namespace: '', name: uid, subresource: '' });
  if ((groups.length > 0 || extras || uid) && !user) {
    const asked = out.map((r) => `${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${JSON.stringify(r.name)}`).join(', ');
    throw internalError(`Internal error occurred: requested [${asked}] without impersonating a user`);
  }
  return out;
}

/** The established 403 for a refused impersonation (the resource's name, the user, what, where). */
function impersonationForbidden(requestor: UserInfo, r: Impersonation, reason: string): StatusError {
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const where = r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope';
  const what = `User "${requestor.username}" cannot impersonate resource "${resource}" in API group "${r.group}" ${where}`;
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  const subject = r.name ? `${qualified} "${r.name}"` : qualified;
  return forbidden(`${subject} is forbidden: ${what}${reason ? `: ${reason}` : ''}`, { group: r.group, resource: r.resource, name: r.name });
}

/**
 * The user `requestor` acts as for `req`: itself when the request asks to impersonate no one, else
 * the impersonated user once every part is authorized. Throws the 403 (or 500) StatusError.
 */
export async function impersonatedUser(req: Pick<AuthenticationRequest, 'headers' | 'rawHeaders'>, requestor: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  // Most requests impersonate no one: one look at the header names, and they pass.
  if (!Object.keys(req.headers).some((h) => h.toLowerCase().startsWith('impersonate-'))) return requestor;
  const asked = impersonationRequests(req);
  if (asked.length === 0) return requestor;
  const groupsGiven = asked.some((r) => r.resource === 'groups');
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of asked) {
    switch (r.resource) {
      case 'users':
        username = r.name;
        break;
      case 'serviceaccounts':
        username = serviceAccountUsername(r.namespace, r.name);
        if (!groupsGiven) groups = serviceAccountGroups(r.namespace);
        break;
      case 'groups':
        groups.push(r.name);
        break;
      case 'userextras':
        (extra[r.subresource] ??= []).push(r.name);
        break;
      case 'uids':
        uid = r.name;
        break;
    }
    const attributes: AccessAttributes = { kind: 'resource', verb: 'impersonate', group: r.group, version: r.version, resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name };
    const decision = await authorizer.authorize(requestor, attributes);
    if (!decision.allowed) throw impersonationForbidden(requestor, r, decision.reason);
  }
  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  return { username, ...(uid ? { uid } : {}), groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}
