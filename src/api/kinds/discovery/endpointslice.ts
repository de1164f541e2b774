/**
 * EndpointSlices: scalable slices of a service's endpoints. Stored as discovery.svc.io/v1 (the
 * established storage and preferred version: `zone`, `nodeName`, `hints`, `deprecatedTopology`);
 * v1beta1, the spec's version, serves them with its `topology` map, converted as established.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { inRange, invalidEach, invalidValue, oneOf, required, tooMany } from '../../validation/field-errors.js';
import { isDNS1123Subdomain, isValidIP, isValidPortName } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { servedVersion } from '../../versions.js';
import { endpointSliceColumns } from '../columns/scaling.js';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../well-known-labels.js';
import { atomicList, bool, int32, obj, objectReference, objectSchema, setList, str, stringMap } from '../schema-dsl.js';

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;

const endpointConditions = () => obj({ ready: bool(), serving: bool(), terminating: bool() });
const endpointHints = () => obj({ forZones: atomicList(obj({ name: str() })) });

export const endpointSliceDefinition = defineKind({
  group: 'discovery.svc.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  tableColumns: endpointSliceColumns,
  namespaced: true,
  schema: objectSchema({
    addressType: str(),
    endpoints: atomicList(
      obj({
        addresses: setList(),
        conditions: endpointConditions(),
        hostname: str(),
        targetRef: objectReference(),
        deprecatedTopology: stringMap(),
        nodeName: str(),
        zone: str(),
        hints: endpointHints(),
      }),
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


/** v1beta1's `topology` -> v1's `zone`, `nodeName` and `deprecatedTopology` (the established conversion). */
function endpointToV1(e: Record<string, unknown>): void {
  const topology = e['topology'];
  delete e['topology'];
  if (topology === undefined || topology === null) return;
  const rest: Record<string, string> = { ...(topology as Record<string, string>) };
  if (rest[LABEL_ZONE] !== undefined) {
    e['zone'] = rest[LABEL_ZONE];
    delete rest[LABEL_ZONE];
  }
  // The hostname entry goes only when nodeName says the same (v1beta1 allowed them to differ).
  if (rest[LABEL_HOSTNAME] !== undefined && rest[LABEL_HOSTNAME] === e['nodeName']) delete rest[LABEL_HOSTNAME];
  if (Object.keys(rest).length > 0) e['deprecatedTopology'] = rest;
}

/** v1 -> v1beta1: `deprecatedTopology` plus the zone, plus the node name when no hostname entry is there. */
function endpointToV1beta1(e: Record<string, unknown>): void {
  const deprecated = e['deprecatedTopology'];
  delete e['deprecatedTopology'];
  const zone = e['zone'];
  delete e['zone'];
  const node = e['nodeName'];
  const hasDeprecated = deprecated !== undefined && deprecated !== null && Object.keys(deprecated as object).length > 0;
  if (!hasDeprecated && typeof zone !== 'string' && typeof node !== 'string') return;
  const topology: Record<string, string> = { ...((deprecated ?? {}) as Record<string, string>) };
  if (typeof zone === 'string') topology[LABEL_ZONE] = zone;
  if (typeof node === 'string' && topology[LABEL_HOSTNAME] === undefined) topology[LABEL_HOSTNAME] = node;
  e['topology'] = topology;
}

const v1beta1Schema = structuredClone(endpointSliceDefinition.schema);
{
  const endpoint = v1beta1Schema.properties!['endpoints']!.items!.properties!;
  delete endpoint['deprecatedTopology'];
  delete endpoint['zone'];
  endpoint['topology'] = stringMap();
}

/** discovery.svc.io/v1beta1 EndpointSlices: the spec's version (`topology` instead of `zone`/`deprecatedTopology`). */
export const endpointSliceV1beta1Definition = servedVersion(endpointSliceDefinition, {
  version: 'v1beta1',
  schema: v1beta1Schema,
  defaults: endpointSliceDefinition.defaults!,
  validate: endpointSliceDefinition.validate!,
  toStorage: (o) => asArray(o['endpoints']).forEach((e) => endpointToV1(asRecord(e))),
  fromStorage: (o) => asArray(o['endpoints']).forEach((e) => endpointToV1beta1(asRecord(e))),
});
