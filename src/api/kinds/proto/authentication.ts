/** Field numbers of authentication.svc.io/v1 (TokenReview, SelfSubjectReview), as established. */
import type { ProtoPackageTable } from './table.js';

export const AUTHENTICATION_V1_PROTO: ProtoPackageTable = {
  package: 'svc.api.authentication.v1',
  file: 'api/authentication/v1/generated.proto',
  groupVersion: 'authentication.svc.io/v1',
  kinds: { TokenReview: 'TokenReview', SelfSubjectReview: 'SelfSubjectReview' },
  messages: {
    TokenReview: { fields: { metadata: '1 ObjectMeta', spec: '2 TokenReviewSpec', status: '3 TokenReviewStatus' } },
    TokenReviewSpec: { fields: { token: '1 string', audiences: '2 repeated string' } },
    TokenReviewStatus: { fields: { authenticated: '1 bool', user: '2 UserInfo', error: '3 string', audiences: '4 repeated string' } },
    // `extra` values reuse certificates.svc.io's ExtraValue (message names are unique across packages).
    UserInfo: { fields: { username: '1 string', uid: '2 string', groups: '3 repeated string', extra: '4 map<string,ExtraValue>' } },
    SelfSubjectReview: { fields: { metadata: '1 ObjectMeta', status: '2 SelfSubjectReviewStatus' } },
    SelfSubjectReviewStatus: { fields: { userInfo: '1 UserInfo' } },
  },
};
