/**
 * TokenReview and SelfSubjectReview (authentication.svc.io/v1): "who is this token?" and "who am
 * I?". Create-only, cluster-scoped and never stored: the API server answers each from the
 * authentication methods in force and returns the review with its status filled
 * (src/apiserver/handlers/authentication-review.ts).
 */
import { atomicList, bool, mapOf, obj, objectSchema, str } from '../schema-dsl.js';
import { defineKind } from '../define.js';

export const AUTHENTICATION_GROUP = 'authentication.svc.io';

/** The established UserInfo of both reviews (extra: key -> values). */
const userInfo = () => obj({ username: str(), uid: str(), groups: atomicList(str()), extra: mapOf(atomicList(str())) });

export const tokenReviewDefinition = defineKind({
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({
    spec: obj({ token: str(), audiences: atomicList(str()) }),
    status: obj({ authenticated: bool(), user: userInfo(), audiences: atomicList(str()), error: str() }),
  }),
});

export const selfSubjectReviewDefinition = defineKind({
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
  verbs: ['create'],
  schema: objectSchema({
    status: obj({ userInfo: userInfo() }),
  }),
});
