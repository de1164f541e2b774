/**
 * What every admission call takes from its request, in one place: the user it acts as, the
 * response's Warning headers (webhooks' warnings), and the request's audit event, which receives
 * each admission annotation as it is added (as the established server's audit handler copies a
 * step's annotations into the event after each plugin, refused or not).
 */
import { requestUser } from '../auth/authentication.js';
import type { UserInfo } from '../auth/user.js';
import { addAuditAnnotation, requestAuditOf } from '../audit/auditor.js';
import type { RequestScope } from '../scope.js';
import { addWarning } from '../warnings.js';

export interface RequestAdmissionFields {
  user: UserInfo;
  warn: (text: string) => void;
  onAuditAnnotation?: (key: string, value: string) => void;
}

export function admissionFieldsOf(s: Pick<RequestScope, 'req' | 'res'>): RequestAdmissionFields {
  const audited = requestAuditOf(s.req) !== undefined;
  return {
    user: requestUser(s.req),
    warn: (text: string) => addWarning(s.res, text),
    // Unaudited requests (level None, or audit off) skip the copy altogether.
    ...(audited ? { onAuditAnnotation: (key: string, value: string) => addAuditAnnotation(s.req, key, value) } : {}),
  };
}
