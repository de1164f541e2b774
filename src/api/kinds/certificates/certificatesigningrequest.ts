/**
 * CertificateSigningRequests (certificates.svc.io/v1, cluster-scoped). +status, +approval.
 *
 * As established: the requester's identity (`spec.username`, `uid`, `groups`, `extra`) is set by the
 * server on create (src/apiserver/csr-strategy.ts), the spec never changes, `approval` changes only
 * the conditions and `status` never the Approved/Denied ones; Approved and Denied exclude each
 * other; a condition of those types once set stays; an issued certificate never changes. The
 * built-in signers' established names are stored in ours (../../certificate-signers.ts).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, fieldForbidden, immutable, invalidEach, invalidValue, notSupported, oneOf, required } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { asArray, asRecord, defineKind, fieldString } from '../define.js';
import { atomicList, bytes, conditions, int32, mapOf, obj, objectSchema, openObj, str } from '../schema-dsl.js';
import { canonicalSignerName } from '../../certificate-signers.js';
import { certificateSigningRequestColumns } from '../columns/core.js';

export const KEY_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
];

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const certificateSigningRequestDefinition = defineKind({
  group: 'certificates.svc.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
  shortNames: ['csr'],
  subresources: ['status', 'approval'],
  tableColumns: certificateSigningRequestColumns,
  schema: objectSchema({
    spec: obj({
      request: bytes(),
      signerName: str(),
      expirationSeconds: int32(),
      usages: atomicList(str()),
      username: str(),
      uid: str(),
      groups: atomicList(str()),
      extra: mapOf(atomicList(str())),
    }),
    status: openObj({ conditions: conditions(), certificate: bytes() }),
  }),
  fields: (o) => ({ 'spec.signerName': fieldString(o, 'spec', 'signerName') }),
  defaults(o: SvcObject): void {
    const spec = o.spec as Record<string, unknown> | undefined;
    if (spec && typeof spec['signerName'] === 'string') spec['signerName'] = canonicalSignerName(spec['signerName']);
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    const req = spec['request'];
    if (typeof req !== 'string' || req === '') errs.push(required('spec.request'));
    else if (!BASE64_RE.test(req) || !Buffer.from(req, 'base64').toString('latin1').includes('-----BEGIN CERTIFICATE REQUEST-----')) {
      errs.push(invalidValue('spec.request', '<request>', 'PEM block type must be CERTIFICATE REQUEST'));
    }
    const signer = spec['signerName'];
    if (typeof signer !== 'string' || signer === '') errs.push(required('spec.signerName'));
    else if (!signer.includes('/')) errs.push(invalidValue('spec.signerName', signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    else errs.push(...invalidEach('spec.signerName', signer, isQualifiedName(signer.split('/')[0] + '/x')));
    const usages = asArray(spec['usages']);
    if (usages.length === 0) errs.push(required('spec.usages'));
    usages.forEach((u, i) => {
      if (typeof u !== 'string' || !KEY_USAGES.includes(u)) errs.push(notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
    const exp = spec['expirationSeconds'];
    if (exp !== undefined && (typeof exp !== 'number' || exp < 600)) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
    errs.push(...conditionErrors(o, old));
    if (old) {
      const oldSpec = asRecord(old.spec);
      for (const k of ['request', 'signerName', 'expirationSeconds', 'usages', 'username', 'uid', 'groups', 'extra']) errs.push(...immutable(`spec.${k}`, spec[k], oldSpec[k]));
      const was = asRecord(old['status'])['certificate'];
      const now = asRecord(o['status'])['certificate'];
      if (typeof was === 'string' && was !== '' && now !== was) errs.push(fieldForbidden('status.certificate', 'updates may not modify existing certificate content'));
    }
    return errs;
  },
});

const APPROVAL_TYPES = ['Approved', 'Denied'];

/** The established condition rules: known types with a status, Approved/Denied True, exclusive, never removed, each type once. */
function conditionErrors(o: SvcObject, old: SvcObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const conds = asArray(asRecord(o['status'])['conditions']).map(asRecord);
  const seen = new Set<string>();
  conds.forEach((cond, i) => {
    const type = cond['type'];
    errs.push(...oneOf(`status.conditions[${i}].type`, type, ['Approved', 'Denied', 'Failed']));
    if (cond['status'] === undefined || cond['status'] === '') errs.push(required(`status.conditions[${i}].status`));
    else if (typeof type === 'string' && APPROVAL_TYPES.includes(type)) errs.push(...oneOf(`status.conditions[${i}].status`, cond['status'], ['True']));
    else errs.push(...oneOf(`status.conditions[${i}].status`, cond['status'], ['True', 'False', 'Unknown']));
    if (typeof type === 'string') {
      if (seen.has(type)) errs.push(duplicate(`status.conditions[${i}].type`, type));
      seen.add(type);
    }
  });
  if (seen.has('Approved') && seen.has('Denied')) errs.push(invalidValue('status.conditions', 'Approved,Denied', 'Approved and Denied conditions are mutually exclusive'));
  if (old) {
    for (const t of APPROVAL_TYPES) {
      const had = asArray(asRecord(old['status'])['conditions']).some((c) => asRecord(c)['type'] === t);
      if (had && !seen.has(t)) errs.push(fieldForbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
    }
  }
  return errs;
}
