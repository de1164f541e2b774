/**
 * CertificateSigning (default on, as established): an update of a CertificateSigningRequest's
 * `status` that sets or changes `status.certificate` needs the `sign` verb on the request's signer
 * (`signers` in certificates.svc.io, by name or `<domain>/*`). Status writes that leave the
 * certificate as it was (a Failed condition, say) are not its business. Refused with 403
 * `user not permitted to sign requests with signerName "<name>"`.
 */
import type { Authorizer } from '../auth/authorization.js';
import type { AdmissionPlugin } from './chain.js';
import { authorizedForSigner, csrForbidden, isCsrWrite } from './certificate-signer-access.js';

const certificateOf = (o: unknown): string => String((o as { status?: { certificate?: unknown } } | undefined)?.status?.certificate ?? '');

export function certificateSigning(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    sideEffects: 'None',
    handles: (a) => isCsrWrite(a, 'UPDATE', 'status'),
    async validate(a) {
      if (certificateOf(a.object) === certificateOf(a.oldObject)) return;
      const signerName = String((a.object?.spec as { signerName?: unknown } | undefined)?.signerName ?? '');
      if (!(await authorizedForSigner(authorizer(), a.user, 'sign', signerName))) {
        throw csrForbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
      }
    },
  };
}
