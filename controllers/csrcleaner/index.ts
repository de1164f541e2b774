/**
 * The csrcleaner controller: deletes CertificateSigningRequests nobody needs any more, with the
 * established ages:
 *
 * - approved and issued: one hour after the Approved condition's lastUpdateTime;
 * - denied: one hour after the Denied condition's; failed: one hour after the Failed condition's;
 * - pending (no condition, no certificate): 24 hours after creation;
 * - issued with a certificate that has expired: at once.
 *
 * A condition without a lastUpdateTime never ages (as established). Where the established cleaner
 * lists every request once an hour, this one reconciles each request when it changes and again when
 * its deadline comes (a timer per key), so the ages are kept to the second.
 *
 * - Watches: CertificateSigningRequests. Timers: a request's next deadline.
 * - Writes: deletes with a uid precondition.
 */
import { X509Certificate } from 'node:crypto';
import type { CertificateSigningRequest } from '../../src/api/generated/kinds.js';
import { conditionOf } from '../../src/api/certificate-signers.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

const HOUR = 3_600_000;
export const APPROVED_EXPIRATION_MS = HOUR;
export const DENIED_EXPIRATION_MS = HOUR;
export const FAILED_EXPIRATION_MS = HOUR;
export const PENDING_EXPIRATION_MS = 24 * HOUR;

/** The earliest expiry of the PEM certificates in `pem` (undefined when none parses). */
function certificateExpiry(pem: string): number | undefined {
  let earliest: number | undefined;
  for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []) {
    try {
      const t = Date.parse(new X509Certificate(block).validTo);
      if (earliest === undefined || t < earliest) earliest = t;
    } catch {
      // Not a certificate: nothing to age by (the established cleaner logs and keeps it).
    }
  }
  return earliest;
}

/** When a request is to be deleted and why; undefined: never (as it is now). */
export function cleanupDeadline(csr: CertificateSigningRequest): { at: number; why: string } | undefined {
  const deadlines: { at: number; why: string }[] = [];
  const cert = csr.status?.certificate ? Buffer.from(csr.status.certificate, 'base64').toString('utf8') : '';
  const aged = (type: string, ms: number, why: string) => {
    const t = Date.parse(conditionOf(csr, type)?.lastUpdateTime ?? '');
    if (Number.isFinite(t)) deadlines.push({ at: t + ms, why });
  };
  if (cert) {
    aged('Approved', APPROVED_EXPIRATION_MS, 'it is more than 1h0m0s old and approved');
    const expiry = certificateExpiry(cert);
    if (expiry !== undefined) deadlines.push({ at: expiry, why: 'its certificate has expired' });
  }
  aged('Denied', DENIED_EXPIRATION_MS, 'it is more than 1h0m0s old and denied');
  aged('Failed', FAILED_EXPIRATION_MS, 'it is more than 1h0m0s old and failed');
  if (!cert && (csr.status?.conditions ?? []).length === 0) {
    const created = Date.parse(csr.metadata.creationTimestamp ?? '');
    if (Number.isFinite(created)) deadlines.push({ at: created + PENDING_EXPIRATION_MS, why: 'it is more than 24h0m0s old and unapproved' });
  }
  return deadlines.sort((a, b) => a.at - b.at)[0];
}

export function csrCleanerController(): ControllerDefinition<CertificateSigningRequest> {
  return defineController<CertificateSigningRequest>({
    name: 'csrcleaner',
    watches: resources.certificatesigningrequests,
    permissions: [{ apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests'], verbs: ['delete'] }],
    async reconcile(_key, ctx) {
      const csr = ctx.object;
      if (!csr || csr.metadata.deletionTimestamp) return done();
      const deadline = cleanupDeadline(csr);
      if (!deadline) return done();
      const left = deadline.at - ctx.clock.now();
      // Timers above a day are kept short of that: the watch or a resync brings the key back anyway.
      if (left > 0) return requeueAfter(Math.min(left, 24 * HOUR));
      try {
        await ctx.client.delete(resources.certificatesigningrequests, '', csr.metadata.name ?? '', { preconditions: { uid: csr.metadata.uid ?? '' } });
        ctx.logger.info({ csr: csr.metadata.name }, `Cleaning CSR "${csr.metadata.name}" as ${deadline.why}.`);
      } catch (e) {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
      }
      return done();
    },
  });
}
