/**
 * The csrsigning controller: signs approved CertificateSigningRequests of the built-in signers
 * with the cluster signing CA (--cluster-signing-cert-file, --cluster-signing-key-file), as the
 * established signing controller does.
 *
 * - Watches: CertificateSigningRequests. No timers, no Events.
 * - A request is signed when it is approved (Approved, not Denied), not Failed, has no certificate
 *   yet, and names a built-in signer (../../src/api/certificate-signers.ts; any other signer is
 *   left to whoever implements it). When the signer's rules refuse it (a node client request whose
 *   subject is not `system:node:*` in `system:nodes`, client usages for the client signer, ...),
 *   the controller adds the condition Failed (reason SignerValidationFailure, the rule's message).
 * - The certificate: the request's subject, its subject alternative names and public key; the key
 *   usages and extended key usages of `spec.usages`; not a CA; valid from five minutes ago (clock
 *   skew) until now + the signing duration (--experimental-cluster-signing-duration, or
 *   `spec.expirationSeconds` when that is shorter, never below ten minutes), and never past the
 *   CA's own expiry.
 * - Writes: `status` (the certificate, or the Failed condition), with the request's
 *   resourceVersion; a conflict is left to the watch, which brings the request back.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { CertificateSigningRequest } from '../../src/api/generated/kinds.js';
import {
  BUILTIN_SIGNERS, builtinSignerDecision, CERTIFICATES_GROUP, hasTrueCondition, isApproved, x509Usages, type ParsedCsr,
} from '../../src/api/certificate-signers.js';
import { rfc3339 } from '../../src/api/time.js';
import { loadSigningCA, signLeaf, type SigningCA } from '../../src/api/x509-signing.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';
import { parsedRequestOf } from '../internal/csr-request.js';

export interface CsrSigningOptions {
  /** PEM of the signing CA's certificate and key. */
  certPem: string;
  keyPem: string;
  /** Longest validity of a signed certificate (--experimental-cluster-signing-duration). */
  durationMs: number;
  concurrency: number;
}

/** Established: certificates start this long before they are signed, for clocks that lag. */
export const BACKDATE_MS = 5 * 60_000;
/** Established: `spec.expirationSeconds` below this is raised to it. */
export const MIN_DURATION_MS = 10 * 60_000;

/** The validity of a certificate signed at `now`: the signer's duration, or the request's shorter one, capped by the CA. */
export function validity(now: number, durationMs: number, expirationSeconds: number | undefined, caNotAfter: Date): { notBefore: Date; notAfter: Date } {
  let ttl = durationMs;
  if (expirationSeconds !== undefined) ttl = Math.max(MIN_DURATION_MS, Math.min(durationMs, expirationSeconds * 1000));
  const notAfter = Math.min(now + ttl, caNotAfter.getTime());
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(notAfter) };
}

/** The certificate (PEM) for a parsed request, as the signer issues it. */
export async function signRequest(ca: SigningCA, csr: ParsedCsr, usages: readonly string[], v: { notBefore: Date; notAfter: Date }): Promise<string> {
  const { keyUsages, extendedKeyUsages } = x509Usages(usages);
  const san = csr.request.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
  const cert = await signLeaf(ca, {
    subject: csr.request.subjectName,
    publicKey: csr.request.publicKey,
    notBefore: v.notBefore,
    notAfter: v.notAfter,
    keyUsages,
    extendedKeyUsages,
    extensions: san ? [san] : [],
  });
  return `${cert.toString('pem')}\n`;
}

export function csrSigningController(o: CsrSigningOptions): ControllerDefinition<CertificateSigningRequest> {
  let ca: Promise<SigningCA> | undefined;
  return defineController<CertificateSigningRequest>({
    name: 'csrsigning',
    watches: resources.certificatesigningrequests,
    concurrency: o.concurrency,
    permissions: [
      { apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
      { apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], verbs: ['sign'], resourceNames: [...BUILTIN_SIGNERS] },
    ],
    async reconcile(_key, ctx) {
      const csr = ctx.object;
      if (!csr || !isApproved(csr) || hasTrueCondition(csr, 'Failed') || csr.status?.certificate) return done();
      const signerName = csr.spec?.signerName ?? '';
      if (!(BUILTIN_SIGNERS as readonly string[]).includes(signerName)) return done();
      const parsed = await parsedRequestOf(csr);
      const usages = csr.spec?.usages ?? [];
      const decision = builtinSignerDecision(signerName, parsed, usages);
      if (!decision.recognized) return done();
      const next = structuredClone(csr) as CertificateSigningRequest;
      next.status ??= {};
      const now = ctx.clock.now();
      if (decision.error !== undefined) {
        next.status.conditions = [
          ...(next.status.conditions ?? []),
          { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: decision.error, lastUpdateTime: rfc3339(now) },
        ];
        ctx.logger.info({ csr: csr.metadata.name, signerName, reason: decision.error }, 'refused to sign');
      } else {
        ca ??= loadSigningCA(o.certPem, o.keyPem, 'the cluster signing CA');
        const signer = await ca;
        const pem = await signRequest(signer, parsed, usages, validity(now, o.durationMs, csr.spec?.expirationSeconds, signer.cert.notAfter));
        next.status.certificate = Buffer.from(pem).toString('base64');
      }
      try {
        await ctx.client.updateStatus(resources.certificatesigningrequests, '', next);
      } catch (e) {
        // Changed or deleted meanwhile: the watch brings the new version (or its deletion) back here.
        if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return done();
        throw e;
      }
      if (decision.error === undefined) ctx.logger.info({ csr: csr.metadata.name, signerName, subject: parsed.request.subject }, 'signed');
      return done();
    },
  });
}
