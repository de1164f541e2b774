/** EndpointSlices (discovery.svc.io/v1beta1): scalable slices of a service's endpoints. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { inRange, invalidEach, invalidValue, oneOf, required, tooMany } from '../../validation/field-errors.js';
import { isDNS1123Subdomain, isValidIP, isValidPortName } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, bool, int32, obj, objectReference, objectSchema, setList, str, stringMap } from '../schema-dsl.js';

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;

export const endpointSliceDefinition = defineKind({
  group: 'discovery.svc.io',
  version: 'v1beta1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  namespaced: true,
  schema: objectSchema({
    addressType: str(),
    endpoints: atomicList(
      obj({ addresses: setList(), conditions: obj({ ready: bool() }), hostname: str(), targetRef: objectReference(), topology: stringMap() }),
    ),
    ports: atomicList(obj({ name: str(), protocol: str(), port: int32(), appProtocol: str() })),
  }),
  defaults(o: SvcObject): void {
    for (const p of asArray(o['ports'])) if (p && typeof p === 'object' && !(p as Record<string, unknown>)['protocol']) (p as Record<string, unknown>)['protocol'] = 'TCP';
  },
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const at = o['addressType'];
    if (at === undefined || at === '') errs.push(required('addressType'));
    else errs.push(...oneOf('addressType', at, ADDRESS_TYPES));
    const endpoints = asArray(o['endpoints']);
    if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
    endpoints.forEach((raw, i) => {
      const addrs = asArray(asRecord(raw)['addresses']);
      const p = `endpoints[${i}].addresses`;
      if (addrs.length === 0) errs.push(required(p, 'must contain at least 1 address'));
      if (addrs.length > MAX_ADDRESSES) errs.push(tooMany(p, addrs.length, MAX_ADDRESSES));
      addrs.forEach((a, j) => {
        if (typeof a !== 'string') return;
        if (at === 'FQDN') errs.push(...invalidEach(`${p}[${j}]`, a, isDNS1123Subdomain(a)));
        else if (!isValidIP(a) || (at === 'IPv4') !== !a.includes(':')) errs.push(invalidValue(`${p}[${j}]`, a, `must be a valid ${String(at)} address`));
      });
    });
    asArray(o['ports']).forEach((raw, i) => {
      const port = asRecord(raw);
      if (typeof port['name'] === 'string' && port['name'] !== '') errs.push(...invalidEach(`ports[${i}].name`, port['name'], isValidPortName(port['name'])));
      errs.push(...inRange(`ports[${i}].port`, port['port'], 1, 65535));
      errs.push(...oneOf(`ports[${i}].protocol`, port['protocol'], ['SCTP', 'TCP', 'UDP']));
    });
    return errs;
  },
});
