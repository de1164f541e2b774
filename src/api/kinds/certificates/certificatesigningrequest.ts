/** CertificateSigningRequests (certificates.svc.io/v1, cluster-scoped). +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { immutable, invalidEach, invalidValue, notSupported, oneOf, required } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../validation/names.js';
import { asArray, asRecord, defineKind, fieldString } from '../define.js';
import { atomicList, bytes, conditions, mapOf, obj, objectSchema, openObj, str } from '../schema-dsl.js';

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
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({
      request: bytes(),
      signerName: str(),
      usages: atomicList(str()),
      username: str(),
      uid: str(),
      groups: atomicList(str()),
      extra: mapOf(atomicList(str())),
    }),
    status: openObj({ conditions: conditions(), certificate: bytes() }),
  }),
  fields: (o) => ({ 'spec.signerName': fieldString(o, 'spec', 'signerName') }),
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
    asArray(asRecord(o['status'])['conditions']).forEach((c, i) => {
      const cond = asRecord(c);
      errs.push(...oneOf(`status.conditions[${i}].type`, cond['type'], ['Approved', 'Denied', 'Failed']));
    });
    if (old) {
      const oldSpec = asRecord(old.spec);
      for (const k of ['request', 'signerName', 'usages', 'username', 'uid', 'groups', 'extra']) errs.push(...immutable(`spec.${k}`, spec[k], oldSpec[k]));
    }
    return errs;
  },
});
