/**
 * SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.svc.io/v1): questions a client
 * asks about itself ("may I create pods here?", "what may I do here?"). Create-only and never
 * stored: the API server answers each from the authorizer in force and returns the review with its
 * status filled (src/apiserver/handlers/access-review.ts).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { required } from '../../validation/field-errors.js';
import { asRecord, defineKind } from '../define.js';
import { atomicList, bool, obj, objectSchema, str } from '../schema-dsl.js';

export const AUTHORIZATION_GROUP = 'authorization.svc.io';

const resourceAttributes = () =>
  obj({ namespace: str(), verb: str(), group: str(), version: str(), resource: str(), subresource: str(), name: str() });
const nonResourceAttributes = () => obj({ path: str(), verb: str() });

export const selfSubjectAccessReviewDefinition = defineKind({
  group: AUTHORIZATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({
    spec: obj({ resourceAttributes: resourceAttributes(), nonResourceAttributes: nonResourceAttributes() }),
    status: obj({ allowed: bool(), denied: bool(), reason: str(), evaluationError: str() }),
  }),
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const hasResource = spec['resourceAttributes'] !== undefined;
    const hasNonResource = spec['nonResourceAttributes'] !== undefined;
    if (hasResource === hasNonResource) {
      return [required('spec.resourceAttributes', 'exactly one of spec.resourceAttributes and spec.nonResourceAttributes must be set')];
    }
    return [];
  },
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
