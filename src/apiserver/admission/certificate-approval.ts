/**
 * CertificateApproval (default on, as established): an update of a CertificateSigningRequest's
 * `approval` subresource (approving or denying it) needs the `approve` verb on the request's signer
 * (`signers` in certificates.svc.io, by name or `<domain>/*`), besides `update` on
 * `certificatesigningrequests/approval` that authorization already checked. Refused with 403
 * `user not permitted to approve requests with signerName "<name>"`.
 */
import type { Authorizer } from '../auth/authorization.js';
import type { AdmissionPlugin } from './chain.js';
import { authorizedForSigner, csrForbidden, isCsrWrite } from './certificate-signer-access.js';

export function certificateApproval(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    sideEffects: 'None',
    handles: (a) => isCsrWrite(a, 'UPDATE', 'approval'),
    async validate(a) {
      const signerName = String((a.object?.spec as { signerName?: unknown } | undefined)?.signerName ?? '');
      if (!(await authorizedForSigner(authorizer(), a.user, 'approve', signerName))) {
        throw csrForbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}
