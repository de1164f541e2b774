/**
 * Whether a user may act for a signer (`IsAuthorizedForSignerName`, as established): the verb
 * (`approve`, `sign`) on the resource `signers` of `certificates.svc.io` named by the signer, or,
 * failing that, on the wildcard name `<domain>/*` of the signer's domain. CertificateApproval and
 * CertificateSigning ask it.
 */
import { CERTIFICATES_GROUP } from '../../api/certificate-signers.js';
import { forbidden, type StatusError } from '../../api/status.js';
import type { Authorizer } from '../auth/authorization.js';
import type { UserInfo } from '../auth/user.js';
import type { AdmissionAttributes } from './chain.js';

export async function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const ask = async (name: string) =>
    (await authorizer.authorize(user, { kind: 'resource', verb, group: CERTIFICATES_GROUP, version: '*', resource: 'signers', subresource: '', namespace: '', name })).allowed;
  if (await ask(signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && (await ask(`${signerName.slice(0, slash)}/*`));
}

/** The established admission refusal: `certificatesigningrequests.certificates.svc.io "x" is forbidden: <why>`. */
export function csrForbidden(a: AdmissionAttributes, why: string): StatusError {
  return forbidden(`${a.def.plural}.${a.def.group} "${a.name}" is forbidden: ${why}`, { group: a.def.group, resource: a.def.plural, name: a.name });
}

/** Is this a write of a CertificateSigningRequest (`subresource` '' for the object itself)? */
export function isCsrWrite(a: AdmissionAttributes, operation: 'CREATE' | 'UPDATE', subresource: string): boolean {
  return a.operation === operation && a.def.plural === 'certificatesigningrequests' && a.def.group === CERTIFICATES_GROUP && a.subresource === subresource;
}
