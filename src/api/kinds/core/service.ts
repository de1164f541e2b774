/** Services (core/v1): a stable address for a set of pods. DNS-1123 label names. +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, fieldForbidden, goStringSlice as goStrings, inRange, invalidEach, invalidValue, oneOf, required } from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidIP, isValidPortName } from '../../validation/names.js';
import { validateLabels } from '../../validation/object-meta.js';
import { asArray, asRecord, defineKind, peek, section, setDefault } from '../define.js';
import { atomicList, bool, freeform, int32, intOrString, mapList, obj, objectSchema, openObj, stringMap, str, setList } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { serviceColumns } from '../columns/core.js';

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** status.loadBalancer is always there, {} when empty (a struct, not a pointer, on the established wire). */
export function ensureServiceStatus(o: SvcObject): void {
  const status = o.status && typeof o.status === 'object' && !Array.isArray(o.status) ? (o.status as Record<string, unknown>) : {};
  if (!status['loadBalancer'] || typeof status['loadBalancer'] !== 'object') status['loadBalancer'] = {};
  o.status = status;
}

const servicePort = () => obj({ name: str(), protocol: str({ default: 'TCP' }), appProtocol: str(), port: int32(), targetPort: intOrString(), nodePort: int32() });

function validatePorts(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const ports = asArray(spec['ports']);
  if (ports.length === 0 && spec['type'] !== 'ExternalName' && spec['clusterIP'] !== 'None') errs.push(required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePortKeys = new Set<string>();
  ports.forEach((raw, i) => {
    const p = asRecord(raw);
    const pp = `spec.ports[${i}]`;
    const name = p['name'];
    if (typeof name !== 'string' || name === '') {
      if (ports.length > 1) errs.push(required(`${pp}.name`));
    } else {
      // A Service port name is a DNS label (`80-80` is fine); the container-port rule (a letter) is not applied.
      errs.push(...invalidEach(`${pp}.name`, name, isDNS1123Label(name)));
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
    const np = p['nodePort'];
    if (typeof np === 'number' && np !== 0) {
      const npKey = `${np}/${String(p['protocol'] ?? 'TCP')}`;
      if (nodePortKeys.has(npKey)) errs.push(duplicate(`${pp}.nodePort`, np));
      nodePortKeys.add(npKey);
    }
  });
  return errs;
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The cluster-IP rules of an update (established validateUpgradeDowngradeClusterIPs): set addresses never change. */
function validateClusterIPsUpdate(spec: Record<string, unknown>, oldSpec: Record<string, unknown>): FieldError[] {
  if (oldSpec['type'] === 'ExternalName' || spec['type'] === 'ExternalName') return [];
  const before = stringList(oldSpec['clusterIPs']);
  const after = stringList(spec['clusterIPs']);
  const errs: FieldError[] = [];
  // The established messages quote the whole list as Go prints it: []string{"10.0.0.9"}.
  const err = (i: number, detail: string): FieldError => ({ field: `spec.clusterIPs[${i}]`, type: 'FieldValueInvalid', message: `Invalid value: ${goStrings(after)}: ${detail}` });
  if (before.length === after.length) {
    before.forEach((ip, i) => {
      if (ip !== after[i]) errs.push(err(i, 'may not change once set'));
    });
  } else if (before.length > after.length) {
    if (after.length === 0) errs.push(err(0, 'primary clusterIP can not be unset'));
    else if (before[0] !== after[0]) errs.push(err(0, 'may not change once set'));
    else if (spec['ipFamilyPolicy'] !== 'SingleStack') errs.push(err(0, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"));
  } else if (before.length > 0 && before[0] !== after[0]) errs.push(err(0, 'may not change once set'));
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
      ipFamilyPolicy: str(),
      ipFamilies: atomicList(str()),
      allocateLoadBalancerNodePorts: bool(),
      internalTrafficPolicy: str(),
    }),
    status: openObj({ loadBalancer: openObj({ ingress: atomicList(openObj({ ip: str(), hostname: str() })) }) }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') setDefault(spec, 'externalTrafficPolicy', 'Cluster');
    if (spec['type'] === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
    if (spec['type'] !== 'ExternalName') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    ensureServiceStatus(o);
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
    const ips = stringList(spec['clusterIPs']);
    ips.forEach((x, i) => {
      if (i === 0 && typeof ip === 'string' && ip !== '' && x !== ip) errs.push({ field: 'spec.clusterIPs[0]', type: 'FieldValueInvalid', message: `Invalid value: ${goStrings(ips)}: must match \`clusterIP\` if specified` });
      else if (x === 'None' && i > 0) errs.push(invalidValue(`spec.clusterIPs[${i}]`, x, 'must be empty or a valid IP when `clusterIPs[0]` is \'None\''));
      else if (x !== 'None' && !isValidIP(x)) errs.push(invalidValue(`spec.clusterIPs[${i}]`, x, 'must be a valid IP address'));
    });
    if (ips.length > 2) errs.push({ field: 'spec.clusterIPs', type: 'FieldValueInvalid', message: `Invalid value: ${goStrings(ips)}: may specify no more than one IP for each IP family` });
    if (spec['ipFamilyPolicy'] !== undefined) errs.push(...oneOf('spec.ipFamilyPolicy', spec['ipFamilyPolicy'], ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
    if (spec['internalTrafficPolicy'] !== undefined) errs.push(...oneOf('spec.internalTrafficPolicy', spec['internalTrafficPolicy'], ['Cluster', 'Local']));
    const hc = spec['healthCheckNodePort'];
    if (typeof hc === 'number' && hc !== 0) {
      if (spec['type'] !== 'LoadBalancer' || spec['externalTrafficPolicy'] !== 'Local') {
        errs.push(invalidValue('spec.healthCheckNodePort', hc, 'may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\''));
      } else errs.push(...inRange('spec.healthCheckNodePort', hc, 1, 65535));
    }
    if (spec['type'] === 'ExternalName') {
      if (ips.length > 0 || (typeof ip === 'string' && ip !== '')) errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (stringList(spec['ipFamilies']).length > 0) errs.push(fieldForbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (spec['ipFamilyPolicy'] !== undefined && spec['ipFamilyPolicy'] !== null) errs.push(fieldForbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      const en = spec['externalName'];
      if (typeof en !== 'string' || en === '') errs.push(required('spec.externalName'));
      else errs.push(...invalidEach('spec.externalName', en, isDNS1123Subdomain(en.replace(/\.$/, ''))));
    }
    if (spec['type'] === 'ClusterIP' || spec['clusterIP'] === 'None') {
      asArray(spec['ports']).forEach((p, i) => {
        const np = asRecord(p)['nodePort'];
        if (np !== undefined && np !== null && np !== 0) errs.push(fieldForbidden(`spec.ports[${i}].nodePort`, 'may not be used when `type` is \'ClusterIP\''));
      });
    }
    asArray(spec['externalIPs']).forEach((x, i) => {
      if (typeof x !== 'string' || !isValidIP(x)) errs.push(invalidValue(`spec.externalIPs[${i}]`, x, 'must be a valid IP address'));
    });
    // Once allocated, a cluster IP stays (switching to or from ExternalName releases it).
    const oldSpec = peek(old, 'spec');
    if (oldSpec) errs.push(...validateClusterIPsUpdate(spec, oldSpec));
    return errs;
  },
});
