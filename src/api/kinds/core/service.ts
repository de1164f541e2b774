/** Services (core/v1): a stable address for a set of pods. DNS-1123 label names. +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, immutable, inRange, invalidEach, invalidValue, oneOf, required } from '../../validation/field-errors.js';
import { isDNS1123Subdomain, isValidIP, isValidPortName } from '../../validation/names.js';
import { validateLabels } from '../../validation/object-meta.js';
import { asArray, asRecord, defineKind, peek, section, setDefault } from '../define.js';
import { atomicList, bool, freeform, int32, intOrString, mapList, obj, objectSchema, openObj, stringMap, str, setList } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { serviceColumns } from '../columns/core.js';

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

const servicePort = () => obj({ name: str(), protocol: str({ default: 'TCP' }), appProtocol: str(), port: int32(), targetPort: intOrString(), nodePort: int32() });

function validatePorts(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const ports = asArray(spec['ports']);
  if (ports.length === 0 && spec['type'] !== 'ExternalName' && spec['clusterIP'] !== 'None') errs.push(required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((raw, i) => {
    const p = asRecord(raw);
    const pp = `spec.ports[${i}]`;
    const name = p['name'];
    if (typeof name !== 'string' || name === '') {
      if (ports.length > 1) errs.push(required(`${pp}.name`));
    } else {
      errs.push(...invalidEach(`${pp}.name`, name, isValidPortName(name)));
      if (names.has(name)) errs.push(duplicate(`${pp}.name`, name));
      names.add(name);
    }
    if (p['port'] === undefined || p['port'] === null) errs.push(required(`${pp}.port`));
    else errs.push(...inRange(`${pp}.port`, p['port'], 1, 65535));
    errs.push(...oneOf(`${pp}.protocol`, p['protocol'], ['SCTP', 'TCP', 'UDP']));
    const tp = p['targetPort'];
    if (typeof tp === 'number') errs.push(...inRange(`${pp}.targetPort`, tp, 1, 65535));
    else if (typeof tp === 'string') errs.push(...invalidEach(`${pp}.targetPort`, tp, isValidPortName(tp)));
    if (p['nodePort'] !== undefined && p['nodePort'] !== null && p['nodePort'] !== 0) errs.push(...inRange(`${pp}.nodePort`, p['nodePort'], 1, 65535));
    const key = `${String(p['port'])}/${String(p['protocol'] ?? 'TCP')}`;
    if (keys.has(key)) errs.push(duplicate(`${pp}`, { port: p['port'], protocol: p['protocol'] ?? 'TCP' }));
    keys.add(key);
  });
  return errs;
}

export const serviceDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  tableColumns: serviceColumns,
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  nameRule: 'label',
  subresources: ['status'],
  watchCacheSize: HEURISTIC_WATCH_CACHE_SIZES.services,
  schema: objectSchema({
    spec: obj({
      ports: mapList(['port', 'protocol'], servicePort()),
      selector: stringMap('atomic'),
      clusterIP: str(),
      clusterIPs: atomicList(str()),
      type: str(),
      externalIPs: atomicList(str()),
      sessionAffinity: str(),
      loadBalancerIP: str(),
      loadBalancerSourceRanges: atomicList(str()),
      externalName: str(),
      externalTrafficPolicy: str(),
      healthCheckNodePort: int32(),
      publishNotReadyAddresses: bool(),
      sessionAffinityConfig: freeform(),
      ipFamily: str(),
      topologyKeys: atomicList(str()),
    }),
    status: openObj({ loadBalancer: openObj({ ingress: atomicList(openObj({ ip: str(), hostname: str() })) }) }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
    for (const raw of asArray(spec['ports'])) {
      if (!raw || typeof raw !== 'object') continue;
      const p = raw as Record<string, unknown>;
      setDefault(p, 'protocol', 'TCP');
      if (p['targetPort'] === undefined || p['targetPort'] === null || p['targetPort'] === 0 || p['targetPort'] === '') p['targetPort'] = p['port'];
    }
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validatePorts(spec);
    errs.push(...oneOf('spec.type', spec['type'], SERVICE_TYPES));
    errs.push(...oneOf('spec.sessionAffinity', spec['sessionAffinity'], ['ClientIP', 'None']));
    if (spec['externalTrafficPolicy'] !== undefined) errs.push(...oneOf('spec.externalTrafficPolicy', spec['externalTrafficPolicy'], ['Cluster', 'Local']));
    errs.push(...validateLabels(spec['selector'], 'spec.selector'));
    const ip = spec['clusterIP'];
    if (typeof ip === 'string' && ip !== '' && ip !== 'None' && !isValidIP(ip)) errs.push(invalidValue('spec.clusterIP', ip, 'must be empty, \'None\', or a valid IP address'));
    if (spec['type'] === 'ExternalName') {
      const en = spec['externalName'];
      if (typeof en !== 'string' || en === '') errs.push(required('spec.externalName'));
      else errs.push(...invalidEach('spec.externalName', en, isDNS1123Subdomain(en.replace(/\.$/, ''))));
    }
    if (spec['type'] === 'ClusterIP' || spec['clusterIP'] === 'None') {
      asArray(spec['ports']).forEach((p, i) => {
        const np = asRecord(p)['nodePort'];
        if (np !== undefined && np !== null && np !== 0) errs.push(invalidValue(`spec.ports[${i}].nodePort`, np, 'may not be used when `type` is \'ClusterIP\''));
      });
    }
    asArray(spec['externalIPs']).forEach((x, i) => {
      if (typeof x !== 'string' || !isValidIP(x)) errs.push(invalidValue(`spec.externalIPs[${i}]`, x, 'must be a valid IP address'));
    });
    // Once allocated, a cluster IP stays (switching to or from ExternalName releases it).
    const oldSpec = peek(old, 'spec');
    if (oldSpec && oldSpec['clusterIP'] && oldSpec['type'] !== 'ExternalName' && spec['type'] !== 'ExternalName') {
      errs.push(...immutable('spec.clusterIP', spec['clusterIP'] ?? '', oldSpec['clusterIP']));
    }
    return errs;
  },
});
