/**
 * Ingresses and IngressClasses (networking.svc.io/v1, alias networking.k8s.io/v1): HTTP routes to
 * Services, and the classes of controllers that implement them. Nothing here routes traffic (the
 * nodes are simulated); the objects are stored, validated and shown as established, so manifests
 * and `kubectl get ingress` work. Validation messages are the established ones.
 */
import type { FieldError } from '../../status.js';
import type { SchemaNode, SvcObject } from '../../types.js';
import { invalidEach, invalidValue, notSupported, required, tooLong } from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidIP, isValidPortName, isValidPortNum } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, int32, obj, objectSchema, str } from '../schema-dsl.js';
import { ingressClassColumns, ingressColumns } from '../columns/networking.js';

const backendSchema = (): SchemaNode =>
  obj({
    service: obj({ name: str(), port: obj({ name: str(), number: int32() }) }),
    resource: obj({ apiGroup: str(), kind: str(), name: str() }),
  });

export const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateBackend(raw: unknown, path: string): FieldError[] {
  const b = asRecord(raw);
  const service = b['service'];
  const resource = b['resource'];
  const hasService = service !== undefined && service !== null;
  const hasResource = resource !== undefined && resource !== null;
  if (hasService && hasResource) return [invalidValue(path, '', 'cannot set both resource and service backends')];
  if (hasResource) {
    const r = asRecord(resource);
    const errs: FieldError[] = [];
    if (!r['kind']) errs.push(required(`${path}.resource.kind`));
    if (!r['name']) errs.push(required(`${path}.resource.name`));
    return errs;
  }
  if (!hasService) return [invalidValue(path, '', 'resource or service backend is required')];
  const s = asRecord(service);
  const errs: FieldError[] = [];
  const name = s['name'];
  if (typeof name !== 'string' || name === '') errs.push(required(`${path}.service.name`));
  else errs.push(...invalidEach(`${path}.service.name`, name, isDNS1123Label(name)));
  const port = asRecord(s['port']);
  const portName = typeof port['name'] === 'string' ? port['name'] : '';
  const portNumber = typeof port['number'] === 'number' ? port['number'] : 0;
  if (portName !== '' && portNumber !== 0) errs.push(invalidValue(`${path}.service.port`, port, 'cannot set both port name & port number'));
  else if (portName !== '') errs.push(...invalidEach(`${path}.service.port.name`, portName, isValidPortName(portName)));
  else if (portNumber !== 0) errs.push(...invalidEach(`${path}.service.port.number`, portNumber, isValidPortNum(portNumber)));
  else errs.push(required(`${path}.service.port`, 'port name or number is required'));
  return errs;
}

function validateHost(host: string, path: string): FieldError[] {
  if (isValidIP(host)) return [invalidValue(path, host, 'must be a DNS name, not an IP address')];
  // A leading `*.` is a wildcard over one label.
  const bare = host.startsWith('*.') ? host.slice(2) : host;
  return invalidEach(path, host, isDNS1123Subdomain(bare));
}

function validateIngressSpec(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const rules = asArray(spec['rules']);
  const defaultBackend = spec['defaultBackend'];
  if (rules.length === 0 && (defaultBackend === undefined || defaultBackend === null)) {
    errs.push(invalidValue('spec.rules', rules, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend !== undefined && defaultBackend !== null) errs.push(...validateBackend(defaultBackend, 'spec.defaultBackend'));
  const className = spec['ingressClassName'];
  if (typeof className === 'string') errs.push(...invalidEach('spec.ingressClassName', className, isDNS1123Subdomain(className)));
  rules.forEach((raw, i) => {
    const rule = asRecord(raw);
    const rp = `spec.rules[${i}]`;
    if (typeof rule['host'] === 'string' && rule['host'] !== '') errs.push(...validateHost(rule['host'], `${rp}.host`));
    const http = rule['http'];
    if (http === undefined || http === null) return;
    const paths = asArray(asRecord(http)['paths']);
    if (paths.length === 0) errs.push(required(`${rp}.http.paths`));
    paths.forEach((rawPath, j) => {
      const p = asRecord(rawPath);
      const pp = `${rp}.http.paths[${j}]`;
      const type = p['pathType'];
      const path = typeof p['path'] === 'string' ? p['path'] : '';
      if (type === undefined || type === null || type === '') errs.push(required(`${pp}.pathType`, 'pathType must be specified'));
      else if (!PATH_TYPES.includes(String(type))) errs.push(notSupported(`${pp}.pathType`, type, PATH_TYPES));
      else if (type !== 'ImplementationSpecific') {
        if (!path.startsWith('/')) errs.push(invalidValue(`${pp}.path`, path, 'must be an absolute path'));
        else if (path.includes('//')) errs.push(invalidValue(`${pp}.path`, path, "must not contain '//'"));
      } else if (path !== '' && !path.startsWith('/')) errs.push(invalidValue(`${pp}.path`, path, 'must be an absolute path'));
      errs.push(...validateBackend(p['backend'], `${pp}.backend`));
    });
  });
  asArray(spec['tls']).forEach((raw, i) => {
    asArray(asRecord(raw)['hosts']).forEach((h, j) => {
      if (typeof h === 'string') errs.push(...validateHost(h, `spec.tls[${i}].hosts[${j}]`));
    });
  });
  return errs;
}

export const ingressDefinition = defineKind({
  group: 'networking.svc.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
  shortNames: ['ing'],
  subresources: ['status'],
  tracksGeneration: true,
  tableColumns: ingressColumns,
  schema: objectSchema({
    spec: obj({
      ingressClassName: str(),
      defaultBackend: backendSchema(),
      tls: atomicList(obj({ hosts: atomicList(str()), secretName: str() })),
      rules: atomicList(
        obj({
          host: str(),
          http: obj({ paths: atomicList(obj({ path: str(), pathType: str(), backend: backendSchema() })) }),
        }),
      ),
    }),
    status: obj({
      loadBalancer: obj({
        ingress: atomicList(obj({ ip: str(), hostname: str(), ports: atomicList(obj({ port: int32(), protocol: str(), error: str() })) })),
      }),
    }),
  }),
  validate: (o: SvcObject) => validateIngressSpec(asRecord(o.spec)),
});

/** The annotation that makes an IngressClass the default (established name, `svc` spelling). */
export const ANNOTATION_DEFAULT_INGRESS_CLASS = 'ingressclass.svc.io/is-default-class';
/** The same annotation as the established tools write it (accepted as an alias). */
export const ANNOTATION_DEFAULT_INGRESS_CLASS_ALIAS = 'ingressclass.kubernetes.io/is-default-class';
/** The deprecated annotation that names an Ingress's class (an Ingress with it gets no default). */
export const ANNOTATION_INGRESS_CLASS = 'svc.io/ingress.class';
export const ANNOTATION_INGRESS_CLASS_ALIAS = 'kubernetes.io/ingress.class';
const MAX_CONTROLLER_LENGTH = 250;

export const ingressClassDefinition = defineKind({
  group: 'networking.svc.io',
  version: 'v1',
  kind: 'IngressClass',
  plural: 'ingressclasses',
  namespaced: false,
  tableColumns: ingressClassColumns,
  schema: objectSchema({
    spec: obj({ controller: str(), parameters: obj({ apiGroup: str(), kind: str(), name: str(), scope: str(), namespace: str() }) }),
  }),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const spec = asRecord(o.spec);
    const controller = spec['controller'];
    if (typeof controller !== 'string' || controller === '') errs.push(required('spec.controller'));
    else {
      if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
      errs.push(...invalidEach('spec.controller', controller, isQualifiedName(controller.split('/').slice(0, 2).join('/'))));
    }
    if (old && asRecord(old.spec)['controller'] !== controller) errs.push(invalidValue('spec.controller', controller, 'field is immutable'));
    const params = spec['parameters'];
    if (params !== undefined && params !== null) {
      const p = asRecord(params);
      if (!p['kind']) errs.push(required('spec.parameters.kind'));
      if (!p['name']) errs.push(required('spec.parameters.name'));
      const scope = p['scope'];
      if (scope !== undefined && scope !== null) {
        if (scope !== 'Cluster' && scope !== 'Namespace') errs.push(notSupported('spec.parameters.scope', scope, ['Cluster', 'Namespace']));
        if (scope === 'Namespace' && !p['namespace']) errs.push(required('spec.parameters.namespace', '`parameters.scope` is set to "Namespace"'));
        if (scope === 'Cluster' && p['namespace']) errs.push(invalidValue('spec.parameters.namespace', p['namespace'], '`parameters.scope` is set to "Cluster"'));
      }
    }
    return errs;
  },
});
