/**
 * NetworkPolicies (networking.svc.io/v1, alias networking.k8s.io/v1): which pods may talk to which.
 * Stored, defaulted, validated and shown as established; the simulated nodes do not enforce them
 * (docs/compatibility.md says so).
 */
import type { FieldError } from '../../status.js';
import type { SchemaNode, SvcObject } from '../../types.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { fieldForbidden, inRange, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { isValidIP } from '../../validation/names.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, int32, intOrString, labelSelector, obj, objectSchema, str } from '../schema-dsl.js';
import { networkPolicyColumns } from '../columns/networking.js';

const peer = (): SchemaNode => obj({ podSelector: labelSelector(), namespaceSelector: labelSelector(), ipBlock: obj({ cidr: str(), except: atomicList(str()) }) });
const port = (): SchemaNode => obj({ protocol: str(), port: intOrString(), endPort: int32() });

const POLICY_TYPES = ['Ingress', 'Egress'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** Is `s` an IPv4 or IPv6 CIDR (`10.0.0.0/16`, `fd00::/8`)? */
function isCidr(s: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) return false;
  return isValidIP(m[1]!) && Number(m[2]) <= (m[1]!.includes(':') ? 128 : 32);
}

function validateRules(rules: unknown, side: 'ingress' | 'egress', errs: FieldError[]): void {
  const peers = side === 'ingress' ? 'from' : 'to';
  asArray(rules).forEach((raw, i) => {
    const rule = asRecord(raw);
    const rp = `spec.${side}[${i}]`;
    asArray(rule['ports']).forEach((rawPort, j) => {
      const p = asRecord(rawPort);
      const pp = `${rp}.ports[${j}]`;
      if (p['protocol'] !== undefined && !PROTOCOLS.includes(String(p['protocol']))) errs.push(notSupported(`${pp}.protocol`, p['protocol'], PROTOCOLS));
      if (typeof p['port'] === 'number') errs.push(...inRange(`${pp}.port`, p['port'], 1, 65535));
      const end = p['endPort'];
      if (typeof end === 'number') {
        if (typeof p['port'] !== 'number') errs.push(required(`${pp}.port`, 'must be specified when endPort is specified'));
        else if (end < p['port']) errs.push(invalidValue(`${pp}.endPort`, end, 'must be greater than or equal to `port`'));
      }
    });
    asArray(rule[peers]).forEach((rawPeer, j) => {
      const pe = asRecord(rawPeer);
      const pp = `${rp}.${peers}[${j}]`;
      const set = ['podSelector', 'namespaceSelector', 'ipBlock'].filter((k) => pe[k] !== undefined && pe[k] !== null);
      if (set.length === 0) errs.push(required(pp, 'must specify a peer'));
      else if (pe['ipBlock'] !== undefined && pe['ipBlock'] !== null && set.length > 1) errs.push(fieldForbidden(pp, 'may not specify both ipBlock and another peer'));
      for (const k of ['podSelector', 'namespaceSelector']) if (pe[k] !== undefined && pe[k] !== null) errs.push(...validateLabelSelectorSpec(pe[k], `${pp}.${k}`));
      if (pe['ipBlock'] !== undefined && pe['ipBlock'] !== null) {
        const ip = asRecord(pe['ipBlock']);
        const cidr = ip['cidr'];
        if (typeof cidr !== 'string' || cidr === '') errs.push(required(`${pp}.ipBlock.cidr`));
        else if (!isCidr(cidr)) errs.push(invalidValue(`${pp}.ipBlock.cidr`, cidr, 'must be a valid CIDR (e.g. 10.0.0.0/16)'));
        asArray(ip['except']).forEach((e, k) => {
          if (typeof e !== 'string' || !isCidr(e)) errs.push(invalidValue(`${pp}.ipBlock.except[${k}]`, e, 'must be a valid CIDR (e.g. 10.0.0.0/16)'));
        });
      }
    });
  });
}

export const networkPolicyDefinition = defineKind({
  group: 'networking.svc.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
  shortNames: ['netpol'],
  tracksGeneration: true,
  tableColumns: networkPolicyColumns,
  schema: objectSchema({
    spec: obj({
      podSelector: labelSelector(),
      ingress: atomicList(obj({ ports: atomicList(port()), from: atomicList(peer()) })),
      egress: atomicList(obj({ ports: atomicList(port()), to: atomicList(peer()) })),
      policyTypes: atomicList(str()),
    }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'podSelector', {});
    for (const side of ['ingress', 'egress']) {
      for (const rule of asArray(spec[side])) for (const p of asArray(asRecord(rule)['ports'])) setDefault(asRecord(p), 'protocol', 'TCP');
    }
    if (asArray(spec['policyTypes']).length === 0) spec['policyTypes'] = asArray(spec['egress']).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    if (spec['podSelector'] !== undefined && spec['podSelector'] !== null) errs.push(...validateLabelSelectorSpec(spec['podSelector'], 'spec.podSelector'));
    validateRules(spec['ingress'], 'ingress', errs);
    validateRules(spec['egress'], 'egress', errs);
    const types = asArray(spec['policyTypes']);
    if (types.length > POLICY_TYPES.length) errs.push(invalidValue('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    types.forEach((t, i) => {
      if (!POLICY_TYPES.includes(String(t))) errs.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
    });
    return errs;
  },
});
