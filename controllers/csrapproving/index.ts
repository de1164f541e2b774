/**
 * The csrapproving controller: approves node client certificate requests the requester is allowed
 * to make, as the established SubjectAccessReview approver does.
 *
 * - Watches: CertificateSigningRequests. No timers, no Events.
 * - A pending request (no Approved or Denied condition, no certificate) for the node client signer
 *   (`svc.io/svc-apiserver-client-svclet`) that meets its rules (subject `system:node:<name>` in
 *   `system:nodes`, no subject alternative names, the node client usages) is recognised as:
 *   - `selfnodeclient` when the requester is the subject (a node renewing its own certificate),
 *   - `nodeclient` in any case (a bootstrap token's user asking for a node's first certificate);
 *   in that order, each asked of the API server with a SubjectAccessReview for the requester
 *   (`spec.username`, `uid`, `groups`, `extra`): `create` on `certificatesigningrequests/<that>`
 *   of certificates.svc.io. The first allowed approves it: condition Approved, reason AutoApproved,
 *   message `Auto approving self svclet client certificate after SubjectAccessReview.` or
 *   `Auto approving svclet client certificate after SubjectAccessReview.`, written through the
 *   `approval` subresource (so CertificateApproval checks `approve` on the signer).
 * - Recognised but not allowed: left pending (retried with back-off, then on the next change), as
 *   established; someone may still approve it by hand.
 */
import type { CertificateSigningRequest } from '../../src/api/generated/kinds.js';
import { CERTIFICATES_GROUP, approvalState, nodeClientCsrError, SIGNER_APISERVER_CLIENT_NODE, type ParsedCsr } from '../../src/api/certificate-signers.js';
import type { SvcObject } from '../../src/api/types.js';
import { rfc3339 } from '../../src/api/time.js';
import { builtinResourceRefs, resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeue } from '../../src/runtime/outcome.js';
import { parsedRequestOf } from '../internal/csr-request.js';

interface Recognizer {
  subresource: 'selfnodeclient' | 'nodeclient';
  recognize(csr: CertificateSigningRequest, parsed: ParsedCsr): boolean;
  message: string;
}

const isNodeClient = (csr: CertificateSigningRequest, parsed: ParsedCsr) =>
  csr.spec?.signerName === SIGNER_APISERVER_CLIENT_NODE && nodeClientCsrError(parsed, csr.spec?.usages ?? []) === undefined;

/** The established recognisers, in their order. */
export const RECOGNIZERS: readonly Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    recognize: (csr, parsed) => csr.spec?.username === parsed.commonName && isNodeClient(csr, parsed),
    message: 'Auto approving self svclet client certificate after SubjectAccessReview.',
  },
  { subresource: 'nodeclient', recognize: isNodeClient, message: 'Auto approving svclet client certificate after SubjectAccessReview.' },
];

const SAR = builtinResourceRefs()['subjectaccessreviews']!;

/** Whether the requester may `create` `certificatesigningrequests/<subresource>` (a SubjectAccessReview). */
async function allowed(client: ApiClient, csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
  const spec = csr.spec ?? {};
  const review = await client.create<SvcObject>(SAR, '', {
    apiVersion: 'authorization.svc.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      user: spec.username ?? '',
      ...(spec.uid ? { uid: spec.uid } : {}),
      ...(spec.groups ? { groups: spec.groups } : {}),
      ...(spec.extra ? { extra: spec.extra } : {}),
      resourceAttributes: { group: CERTIFICATES_GROUP, resource: 'certificatesigningrequests', verb: 'create', subresource, version: '*' },
    },
  });
  return (review['status'] as { allowed?: boolean } | undefined)?.allowed === true;
}

export function csrApprovingController(concurrency: number): ControllerDefinition<CertificateSigningRequest> {
  return defineController<CertificateSigningRequest>({
    name: 'csrapproving',
    watches: resources.certificatesigningrequests,
    concurrency,
    permissions: [
      { apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      { apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], verbs: ['approve'], resourceNames: [SIGNER_APISERVER_CLIENT_NODE] },
      { apiGroups: ['authorization.svc.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ],
    async reconcile(_key, ctx) {
      const csr = ctx.object;
      if (!csr || csr.status?.certificate) return done();
      const { approved, denied } = approvalState(csr);
      if (approved || denied) return done();
      if (csr.spec?.signerName !== SIGNER_APISERVER_CLIENT_NODE) return done();
      const parsed = await parsedRequestOf(csr);
      const tried: string[] = [];
      for (const r of RECOGNIZERS) {
        if (!r.recognize(csr, parsed)) continue;
        tried.push(r.subresource);
        if (!(await allowed(ctx.client, csr, r.subresource))) continue;
        const next = structuredClone(csr) as CertificateSigningRequest;
        next.status = { ...next.status, conditions: [...(next.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.message, lastUpdateTime: rfc3339(ctx.clock.now()) }] };
        try {
          await ctx.client.subresource(resources.certificatesigningrequests, '', csr.metadata.name ?? '', 'approval', 'PUT', next);
        } catch (e) {
          if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return done();
          throw e;
        }
        ctx.logger.info({ csr: csr.metadata.name, as: r.subresource, user: csr.spec?.username }, 'approved');
        return done();
      }
      if (tried.length) {
        ctx.logger.debug({ csr: csr.metadata.name, tried }, `recognized csr "${csr.metadata.name}" as [${tried.join(' ')}] but subject access review was not approved`);
        return requeue();
      }
      return done();
    },
  });
}
