/** Endpoints (core/v1): the addresses behind a service, written by the endpoints controller. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { inRange, invalidEach, invalidValue, oneOf, required } from '../../validation/field-errors.js';
import { isDNS1123Label, isValidIP } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, int32, obj, objectReference, objectSchema, str } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { endpointsColumns } from '../columns/core.js';

const address = () => obj({ ip: str(), hostname: str(), nodeName: str(), targetRef: objectReference() });

export const endpointsDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  tableColumns: endpointsColumns,
  namespaced: true,
  shortNames: ['ep'],
  watchCacheSize: HEURISTIC_WATCH_CACHE_SIZES.endpoints,
  schema: objectSchema({
    subsets: atomicList(
      obj({
        addresses: atomicList(address()),
        notReadyAddresses: atomicList(address()),
        ports: atomicList(obj({ name: str(), port: int32(), protocol: str(), appProtocol: str() })),
      }),
    ),
  }),
  defaults(o: SvcObject): void {
    for (const s of asArray(o['subsets'])) for (const p of asArray(asRecord(s)['ports'])) if (p && typeof p === 'object' && !(p as Record<string, unknown>)['protocol']) (p as Record<string, unknown>)['protocol'] = 'TCP';
  },
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    asArray(o['subsets']).forEach((raw, i) => {
      const s = asRecord(raw);
      const sp = `subsets[${i}]`;
      for (const key of ['addresses', 'notReadyAddresses'] as const) {
        asArray(s[key]).forEach((a, j) => {
          const addr = asRecord(a);
          const ap = `${sp}.${key}[${j}]`;
          const ip = addr['ip'];
          if (typeof ip !== 'string' || ip === '') errs.push(required(`${ap}.ip`));
          else if (!isValidIP(ip)) errs.push(invalidValue(`${ap}.ip`, ip, 'must be a valid IP address'));
          if (typeof addr['hostname'] === 'string' && addr['hostname'] !== '') errs.push(...invalidEach(`${ap}.hostname`, addr['hostname'], isDNS1123Label(addr['hostname'])));
        });
      }
      const ports = asArray(s['ports']);
      ports.forEach((p, j) => {
        const port = asRecord(p);
        const pp = `${sp}.ports[${j}]`;
        if (ports.length > 1 && !port['name']) errs.push(required(`${pp}.name`));
        if (typeof port['name'] === 'string' && port['name'] !== '') errs.push(...invalidEach(`${pp}.name`, port['name'], isDNS1123Label(port['name'])));
        errs.push(...inRange(`${pp}.port`, port['port'], 1, 65535));
        errs.push(...oneOf(`${pp}.protocol`, port['protocol'], ['SCTP', 'TCP', 'UDP']));
      });
    });
    return errs;
  },
});
