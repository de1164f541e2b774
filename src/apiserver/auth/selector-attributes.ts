/**
 * What a list's or watch's field selector adds to its access attributes, as established: the
 * selector's requirements (a node may list pods only with `spec.nodeName=<node>`), and the name a
 * `metadata.name=<x>` requirement asks for (a node may watch the one Secret it may read; RBAC's
 * resourceNames match it). A malformed selector adds nothing: the handler answers it with 400.
 */
import { fieldRequirements } from '../../api/fields.js';
import type { AccessAttributes } from './authorization.js';

/** `attrs` with what `query`'s fieldSelector says, for list and watch (other requests unchanged). */
export function withListSelector(attrs: AccessAttributes, query: URLSearchParams): AccessAttributes {
  if (attrs.kind !== 'resource' || (attrs.verb !== 'list' && attrs.verb !== 'watch')) return attrs;
  const selector = query.get('fieldSelector');
  if (!selector) return attrs;
  let requirements;
  try {
    requirements = fieldRequirements(selector);
  } catch {
    return attrs;
  }
  const exact = requirements.find((r) => r.field === 'metadata.name' && r.operator !== '!=');
  const name = !attrs.name && exact && isPathSegmentName(exact.value) ? exact.value : attrs.name;
  return { ...attrs, name, fieldSelector: requirements };
}

/** Could `name` be an object's name in a path (the established IsValidPathSegmentName)? */
function isPathSegmentName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}
