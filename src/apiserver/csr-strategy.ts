/**
 * The CertificateSigningRequest write rules that need the request (the established registry
 * strategy of certificates/v1), as write hooks (./write-hooks.ts):
 *
 * - create: `spec.username`, `spec.uid`, `spec.groups` and `spec.extra` are the requester's, whatever
 *   the client sent (the signer and the approver decide by them);
 * - `status` update: the spec stays; the Approved and Denied conditions stay as they were (approval
 *   has its own subresource); the certificate and the Failed condition may be set;
 * - `approval` update: the spec and the certificate stay; only the conditions change;
 * - every condition gets `lastUpdateTime` (now) and `lastTransitionTime` (kept from the same
 *   condition with the same status, else now) when the writer left them out.
 *
 * The kind's validation (src/api/kinds/certificates) then refuses what may never change.
 */
import { cloneJson } from '../api/json-walk.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';
import type { UserInfo } from './auth/user.js';
import { timestamp } from './object-rules.js';
import type { WriteHooks } from './write-hooks.js';

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const conditionsOf = (o: SvcObject): Loose[] => (Array.isArray(rec(o.status)['conditions']) ? (rec(o.status)['conditions'] as unknown[]).map(rec) : []);
const APPROVAL = new Set(['Approved', 'Denied']);

function populateTimestamps(next: SvcObject, old: SvcObject, now: string): void {
  const before = conditionsOf(old);
  for (const c of conditionsOf(next)) {
    if (!c['lastUpdateTime']) c['lastUpdateTime'] = now;
    if (!c['lastTransitionTime']) {
      const same = before.find((b) => b['type'] === c['type'] && b['status'] === c['status'] && b['lastTransitionTime']);
      c['lastTransitionTime'] = same ? same['lastTransitionTime'] : now;
    }
  }
}

/** The `status` write: the approval conditions come from the stored object. */
export function prepareCsrStatusUpdate(next: SvcObject, old: SvcObject, now: string): void {
  next.spec = cloneJson(old.spec);
  const status = rec((next.status ??= {}));
  const kept = conditionsOf(old).filter((c) => APPROVAL.has(String(c['type'])));
  const rest = conditionsOf(next).filter((c) => !APPROVAL.has(String(c['type'])));
  const conditions = [...cloneJson(kept), ...rest];
  if (conditions.length) status['conditions'] = conditions;
  else delete status['conditions'];
  populateTimestamps(next, old, now);
}

/** The `approval` write: everything but the conditions comes from the stored object. */
export function prepareCsrApprovalUpdate(next: SvcObject, old: SvcObject, now: string): void {
  next.spec = cloneJson(old.spec);
  const conditions = rec(next.status)['conditions'];
  const status = cloneJson(rec(old.status));
  if (conditions === undefined) delete status['conditions'];
  else status['conditions'] = conditions;
  next.status = status;
  populateTimestamps(next, old, now);
}

/** Fills the requester's identity into a new request's spec. */
export function setRequester(obj: SvcObject, user: UserInfo): void {
  const spec = rec((obj.spec ??= {}));
  spec['username'] = user.username;
  if (user.uid) spec['uid'] = user.uid;
  else delete spec['uid'];
  if (user.groups.length) spec['groups'] = [...user.groups];
  else delete spec['groups'];
  const extra = user.extra && Object.keys(user.extra).length ? cloneJson(user.extra) : undefined;
  if (extra) spec['extra'] = extra;
  else delete spec['extra'];
}

export function csrWriteHooks(now: () => number): WriteHooks {
  return {
    prepareUpdate(next, old, subresource) {
      if (subresource === 'status') prepareCsrStatusUpdate(next, old, timestamp(now()));
      else if (subresource === 'approval') prepareCsrApprovalUpdate(next, old, timestamp(now()));
    },
    async beginCreate(obj, _dryRun, user) {
      setRequester(obj, user);
      return () => {};
    },
  };
}

/** Is this the CertificateSigningRequest kind? */
export function isCsrDefinition(def: ResourceDefinition): boolean {
  return def.plural === 'certificatesigningrequests' && def.group === 'certificates.svc.io';
}
