/**
 * CertificateSubjectRestriction (default on, as established): a CertificateSigningRequest for the
 * API server client signer (`svc.io/svc-apiserver-client`) may not ask for the `system:masters`
 * group (an Organization of its subject): whoever could get it approved would be a superuser no
 * policy can restrain. Refused with 403 `use of <signer> signer with system:masters group is not
 * allowed`; a request that does not parse is refused the same way (400 would come from validation
 * first, which checks the PEM block, so this is the request's own content).
 */
import { CsrParseError, MASTERS_GROUP, parseCsr, SIGNER_APISERVER_CLIENT } from '../../api/certificate-signers.js';
import type { AdmissionPlugin } from './chain.js';
import { csrForbidden, isCsrWrite } from './certificate-signer-access.js';

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    sideEffects: 'None',
    handles: (a) => isCsrWrite(a, 'CREATE', ''),
    async validate(a) {
      const spec = (a.object?.spec ?? {}) as { signerName?: unknown; request?: unknown };
      if (spec.signerName !== SIGNER_APISERVER_CLIENT) return;
      let orgs: readonly string[];
      try {
        orgs = (await parseCsr(String(spec.request ?? ''))).organizations;
      } catch (e) {
        if (e instanceof CsrParseError) throw csrForbidden(a, `failed to parse CSR: ${e.message}`);
        throw e;
      }
      if (orgs.includes(MASTERS_GROUP)) throw csrForbidden(a, `use of ${SIGNER_APISERVER_CLIENT} signer with ${MASTERS_GROUP} group is not allowed`);
    },
  };
}
