/**
 * POST of an access review, answered by the authorizer in force (services.authorizer, the same
 * chain that authorizes requests) and returned with its status filled, never stored:
 *
 * - SelfSubjectAccessReview / SelfSubjectRulesReview: about the user making the request;
 * - SubjectAccessReview (cluster-scoped): about `spec.user` / `spec.groups` / `spec.extra` /
 *   `spec.uid`, anywhere;
 * - LocalSubjectAccessReview (namespaced): the same, in the path's namespace only: the review's
 *   namespace is the path's (400 otherwise, as for any namespaced create) and its
 *   `spec.resourceAttributes.namespace` must equal it (422 otherwise, as established).
 *
 * Who may ask is decided before this handler runs (the `create` verb on the review's resource).
 */
import { canonicalGroup } from '../../api/established-spelling.js';
import { validateAgainstSchema } from '../../api/index.js';
import {
  localSubjectAccessReviewDefinition,
  selfSubjectAccessReviewDefinition,
  selfSubjectRulesReviewDefinition,
  subjectAccessReviewDefinition,
} from '../../api/kinds/index.js';
import { invalid } from '../../api/status.js';
import type { FieldError } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { requestUser } from '../auth/authentication.js';
import type { AccessAttributes } from '../auth/authorization.js';
import type { UserInfo } from '../auth/user.js';
import { invalidValue } from '../../api/validation/field-errors.js';
import { readRequestValue } from '../http.js';
import { asObject, checkTypeMeta, reconcileNamespace } from '../object-rules.js';
import { objectMediaTypes, writeValue } from '../representation.js';
import type { RequestScope } from '../scope.js';

const REVIEWS = new Set<ResourceDefinition>([selfSubjectAccessReviewDefinition, selfSubjectRulesReviewDefinition, subjectAccessReviewDefinition, localSubjectAccessReviewDefinition]);

/** Kinds answered here instead of being stored. */
export function isAccessReview(def: ResourceDefinition): boolean {
  return REVIEWS.has(def);
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** The subject a (Local)SubjectAccessReview asks about. */
function reviewedUser(spec: Record<string, unknown>): UserInfo {
  const user: UserInfo = { username: text(spec['user']), groups: strings(spec['groups']) };
  const uid = text(spec['uid']);
  if (uid) user.uid = uid;
  const extra = spec['extra'];
  if (extra && typeof extra === 'object') {
    user.extra = Object.fromEntries(Object.entries(extra as Record<string, unknown>).map(([k, v]) => [k, strings(v)]));
  }
  return user;
}

export async function handleAccessReview(s: RequestScope): Promise<void> {
  const review = asObject(await readRequestValue(s.req, objectMediaTypes(s.def), s.services.config.inputLimits), s.def.kind);
  checkTypeMeta(s.def, review);
  reconcileNamespace(s.def, review, s.info.namespace);
  const errors = [...validateAgainstSchema(s.def, review), ...(s.def.validate?.(review) ?? []), ...localNamespaceErrors(s.def, review)];
  if (errors.length) throw invalid(s.def.kind, '', s.def.group, errors);
  const spec = (review.spec ?? {}) as Record<string, unknown>;
  const self = s.def === selfSubjectAccessReviewDefinition || s.def === selfSubjectRulesReviewDefinition;
  const user = self ? requestUser(s.req) : reviewedUser(spec);
  let status: Record<string, unknown>;
  if (s.def === selfSubjectRulesReviewDefinition) {
    const rules = await s.services.authorizer.rulesFor(user, text(spec['namespace']));
    status = { ...rules };
  } else {
    const decision = await s.services.authorizer.authorize(user, attributesOf(spec));
    status = {
      allowed: decision.allowed,
      ...(decision.denied ? { denied: true } : {}),
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(decision.evaluationError ? { evaluationError: decision.evaluationError } : {}),
    };
  }
  const answer: SvcObject = { ...review, metadata: { ...review.metadata, creationTimestamp: null as unknown as string }, status };
  writeValue(s, 201, answer as unknown as Record<string, unknown>);
}

/** A LocalSubjectAccessReview asks about its own namespace only (the established validation). */
function localNamespaceErrors(def: ResourceDefinition, review: SvcObject): FieldError[] {
  if (def !== localSubjectAccessReviewDefinition) return [];
  const attrs = ((review.spec ?? {}) as Record<string, unknown>)['resourceAttributes'] as Record<string, unknown> | undefined;
  if (!attrs) return [];
  const ns = text(attrs['namespace']);
  if (ns === (review.metadata.namespace ?? '')) return [];
  return [invalidValue('spec.resourceAttributes.namespace', ns, 'must match metadata.namespace')];
}

function attributesOf(spec: Record<string, unknown>): AccessAttributes {
  const r = spec['resourceAttributes'] as Record<string, unknown> | undefined;
  if (r) {
    return {
      kind: 'resource',
      verb: text(r['verb']),
      group: canonicalGroup(text(r['group'])),
      version: text(r['version']),
      resource: text(r['resource']),
      subresource: text(r['subresource']),
      namespace: text(r['namespace']),
      name: text(r['name']),
    };
  }
  const n = (spec['nonResourceAttributes'] ?? {}) as Record<string, unknown>;
  return { kind: 'nonResource', verb: text(n['verb']), path: text(n['path']) };
}
