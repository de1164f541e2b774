/**
 * The access reviews (authorization.svc.io/v1): SelfSubjectAccessReview and SelfSubjectRulesReview,
 * questions a client asks about itself ("may I create pods here?", "what may I do here?"), and
 * SubjectAccessReview (cluster-scoped) and LocalSubjectAccessReview (namespaced), the same question
 * about anyone (`spec.user`, `spec.groups`, `spec.extra`, `spec.uid`), asked by delegating servers
 * and administrators. Create-only and never stored: the API server answers each from the
 * authorizer in force and returns the review with its status filled
 * (src/apiserver/handlers/access-review.ts).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue } from '../../validation/field-errors.js';
import { asRecord, defineKind } from '../define.js';
import { atomicList, bool, mapOf, obj, objectSchema, str } from '../schema-dsl.js';

export const AUTHORIZATION_GROUP = 'authorization.svc.io';

const resourceAttributes = () =>
  obj({ namespace: str(), verb: str(), group: str(), version: str(), resource: str(), subresource: str(), name: str() });
const nonResourceAttributes = () => obj({ path: str(), verb: str() });

/** Exactly one of the two attribute sets (the established validation of every access review). */
function validateAttributes(o: SvcObject): FieldError[] {
  const spec = asRecord(o.spec);
  const hasResource = spec['resourceAttributes'] !== undefined && spec['resourceAttributes'] !== null;
  const hasNonResource = spec['nonResourceAttributes'] !== undefined && spec['nonResourceAttributes'] !== null;
  if (hasResource && hasNonResource) return [invalidValue('spec.nonResourceAttributes', spec['nonResourceAttributes'], 'cannot be specified in combination with resourceAttributes')];
  if (!hasResource && !hasNonResource) return [invalidValue('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

const status = () => obj({ allowed: bool(), denied: bool(), reason: str(), evaluationError: str() });
const subjectAccessReviewSpec = () =>
  obj({
    resourceAttributes: resourceAttributes(),
    nonResourceAttributes: nonResourceAttributes(),
    user: str(),
    groups: atomicList(str()),
    extra: mapOf(atomicList(str())),
    uid: str(),
  });

/** Someone else's subject: a user or at least one group (established). */
function validateSubject(o: SvcObject): FieldError[] {
  const spec = asRecord(o.spec);
  const groups = Array.isArray(spec['groups']) ? spec['groups'] : [];
  if (!spec['user'] && groups.length === 0) return [invalidValue('spec.user', spec['user'] ?? '', 'at least one of user or group must be specified')];
  return [];
}

export const subjectAccessReviewDefinition = defineKind({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({ spec: subjectAccessReviewSpec(), status: status() }),
  validate: (o) => [...validateAttributes(o), ...validateSubject(o)],
});

export const localSubjectAccessReviewDefinition = defineKind({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  namespaced: true,
  verbs: ['create'],
  schema: objectSchema({ spec: subjectAccessReviewSpec(), status: status() }),
  validate(o: SvcObject): FieldError[] {
    const errs = [...validateAttributes(o), ...validateSubject(o)];
    // Established: a local review asks about its own namespace only (the path's; checked by the handler).
    if (asRecord(o.spec)['nonResourceAttributes'] !== undefined) errs.push(invalidValue('spec.nonResourceAttributes', asRecord(o.spec)['nonResourceAttributes'], 'disallowed on this kind of request'));
    return errs;
  },
});

export const selfSubjectAccessReviewDefinition = defineKind({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({
    spec: obj({ resourceAttributes: resourceAttributes(), nonResourceAttributes: nonResourceAttributes() }),
    status: status(),
  }),
  validate: validateAttributes,
});

const resourceRule = () => obj({ verbs: atomicList(str()), apiGroups: atomicList(str()), resources: atomicList(str()), resourceNames: atomicList(str()) });
const nonResourceRule = () => obj({ verbs: atomicList(str()), nonResourceURLs: atomicList(str()) });

export const selfSubjectRulesReviewDefinition = defineKind({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({
    spec: obj({ namespace: str() }),
    status: obj({ resourceRules: atomicList(resourceRule()), nonResourceRules: atomicList(nonResourceRule()), incomplete: bool(), evaluationError: str() }),
  }),
});
