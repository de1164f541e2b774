/**
 * APIServices (apiregistration.svc.io/v1 and v1beta1, cluster-scoped; the established spelling
 * apiregistration.k8s.io is an alias). +status.
 *
 * One APIService claims one group/version for the aggregation layer (src/apiserver/aggregator/):
 * without `spec.service` it is served by this server itself ("Local"; the server creates one per
 * built-in and custom group/version), with a service the server proxies `/apis/<group>/<version>`
 * to that Service's extension API server. Validation as established: the name is
 * `<version>.<group>`, only `v1` may have the empty group, priorities within (0, 20000] and
 * (0, 1000], a local APIService has no caBundle nor insecureSkipTLSVerify, and a service-backed one
 * names its Service, a valid port (default 443) and not both a caBundle and insecureSkipTLSVerify.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject, TableColumns } from '../../types.js';
import { invalidEach, invalidValue, required } from '../../validation/field-errors.js';
import { isDNS1123Subdomain, isValidPortNum } from '../../validation/names.js';
import { servedVersion } from '../../versions.js';
import { asRecord, defineKind } from '../define.js';
import { AGE_COLUMN, age, at, column, NAME_COLUMN, name, text } from '../columns/cells.js';
import { bool, bytes, conditions, int32, obj, objectSchema, str } from '../schema-dsl.js';

/** What `kubectl get apiservices` prints: NAME SERVICE AVAILABLE AGE. */
export const apiServiceColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const svc = at(o, 'spec', 'service') as Record<string, unknown> | undefined;
    const service = svc ? `${text(svc['namespace'])}/${text(svc['name'])}` : 'Local';
    const cond = apiServiceCondition(o, 'Available');
    let available = 'Unknown';
    if (cond) available = cond['status'] === 'True' ? 'True' : `${text(cond['status'])} (${text(cond['reason'])})`;
    return [name(o), service, available, age(o, now)];
  },
};

/** The condition of `type` in an APIService's status, if any. */
export function apiServiceCondition(o: SvcObject, type: string): Record<string, unknown> | undefined {
  const list = at(o, 'status', 'conditions');
  if (!Array.isArray(list)) return undefined;
  return list.map(asRecord).find((c) => c['type'] === type);
}

/** The established JSON of a DNS-1035 label check (versions: `v1`, `v1beta1`). */
function dns1035LabelErrors(value: string): string[] {
  if (value.length > 63) return ['must be no more than 63 characters'];
  if (/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(value)) return [];
  return [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ];
}

export const apiServiceDefinition = defineKind({
  group: 'apiregistration.svc.io',
  version: 'v1',
  kind: 'APIService',
  plural: 'apiservices',
  namespaced: false,
  categories: ['api-extensions'],
  subresources: ['status'],
  nameRule: 'path-segment',
  tableColumns: apiServiceColumns,
  // Established heuristic default (few objects, rarely written).
  watchCacheSize: 100,
  schema: objectSchema({
    spec: obj({
      service: obj({ namespace: str(), name: str(), port: int32() }),
      group: str(),
      version: str(),
      insecureSkipTLSVerify: bool(),
      caBundle: bytes(),
      groupPriorityMinimum: int32(),
      versionPriority: int32(),
    }),
    status: obj({ conditions: conditions() }),
  }),
  defaults(o: SvcObject): void {
    const svc = asRecord(o.spec)['service'];
    if (svc && typeof svc === 'object' && (svc as Record<string, unknown>)['port'] === undefined) (svc as Record<string, unknown>)['port'] = 443;
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    const group = typeof spec['group'] === 'string' ? spec['group'] : '';
    const version = typeof spec['version'] === 'string' ? spec['version'] : '';
    const requiredName = `${version}.${group}`;
    const nm = o.metadata.name ?? '';
    if (nm !== '' && nm !== requiredName) errs.push(invalidValue('metadata.name', nm, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
    if (group === '' && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
    if (group !== '') errs.push(...invalidEach('spec.group', group, isDNS1123Subdomain(group)));
    errs.push(...invalidEach('spec.version', version, dns1035LabelErrors(version)));
    const gpm = spec['groupPriorityMinimum'];
    if (typeof gpm !== 'number' || gpm <= 0 || gpm > 20000) errs.push(invalidValue('spec.groupPriorityMinimum', gpm ?? 0, 'must be positive and less than 20000'));
    const vp = spec['versionPriority'];
    if (typeof vp !== 'number' || vp <= 0 || vp > 1000) errs.push(invalidValue('spec.versionPriority', vp ?? 0, 'must be positive and less than 1000'));
    const ca = typeof spec['caBundle'] === 'string' ? spec['caBundle'] : '';
    const insecure = spec['insecureSkipTLSVerify'] === true;
    const svc = spec['service'];
    if (svc === undefined || svc === null) {
      if (ca !== '') errs.push(invalidValue('spec.caBundle', `${Buffer.from(ca, 'base64').length} bytes`, 'local APIServices may not have a caBundle'));
      if (insecure) errs.push(invalidValue('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
      return errs;
    }
    const s = asRecord(svc);
    if (!s['namespace']) errs.push(required('spec.service.namespace', ''));
    if (!s['name']) errs.push(required('spec.service.name', ''));
    const port = typeof s['port'] === 'number' ? s['port'] : 0;
    const portErrs = isValidPortNum(port);
    if (portErrs.length) errs.push(invalidValue('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
    if (insecure && ca !== '') errs.push(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
    return errs;
  },
});

/** apiregistration v1beta1: the same fields as v1. */
export const apiServiceV1beta1Definition = servedVersion(apiServiceDefinition, { version: 'v1beta1' });
