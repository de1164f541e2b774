/**
 * The pod spec, shared by pods and every pod template (deployments, jobs, ...): schema,
 * defaults and validation, in one place so templates and pods cannot drift apart.
 */
import type { FieldError } from '../../status.js';
import type { SchemaNode } from '../../types.js';
import {
  duplicate, fieldForbidden, inRange, invalidEach, invalidValue, nonNegative, notFoundValue, oneOf, required,
} from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isEnvVarName, isQualifiedName, isValidPortName } from '../../validation/names.js';
import { validateLabels } from '../../validation/object-meta.js';
import { parseQuantity, validateResourceList } from '../../validation/quantity.js';
import { canonicalJson } from '../../json-walk.js';
import { validateSchedulingConstraints } from './scheduling-constraints.js';
import { defaultProjectedVolume, validateProjectedVolume } from './projected-volumes.js';
import { asArray, asRecord, setDefault } from '../define.js';
import {
  atomicList, bool, freeform, int32, int64, intOrString, labelSelector, localObjectReference, mapList, nodeSelector, nodeSelectorTerm, obj, objectMeta,
  openObj, quantity, resourceList, str, stringMap,
} from '../schema-dsl.js';

// ---- schema --------------------------------------------------------------------------------

/** A liveness, readiness or startup probe. */
export const probe = (): SchemaNode =>
  openObj({
    exec: openObj({ command: atomicList(str()) }),
    httpGet: openObj({ path: str(), port: intOrString(), host: str(), scheme: str(), httpHeaders: atomicList(obj({ name: str(), value: str() })) }),
    tcpSocket: openObj({ port: intOrString(), host: str() }),
    initialDelaySeconds: int32(),
    timeoutSeconds: int32(),
    periodSeconds: int32(),
    successThreshold: int32(),
    failureThreshold: int32(),
  });

/** A container's `env` entry, `volumeMounts` entry (also PodPreset's: src/api/kinds/settings/pod-preset.ts). */
export const envVarSchema = (): SchemaNode => obj({ name: str(), value: str(), valueFrom: freeform() });
export const volumeMountSchema = (): SchemaNode =>
  obj({ name: str(), readOnly: bool(), mountPath: str(), subPath: str(), mountPropagation: str(), subPathExpr: str() });

export const containerSchema = (): SchemaNode =>
  obj({
    name: str(),
    image: str(),
    command: atomicList(str()),
    args: atomicList(str()),
    workingDir: str(),
    ports: mapList(['containerPort', 'protocol'], obj({ name: str(), hostPort: int32(), containerPort: int32(), protocol: str({ default: 'TCP' }), hostIP: str() })),
    envFrom: atomicList(freeform()),
    env: mapList(['name'], envVarSchema()),
    resources: obj({ limits: resourceList(), requests: resourceList() }),
    volumeMounts: mapList(['mountPath'], volumeMountSchema()),
    volumeDevices: mapList(['devicePath'], obj({ name: str(), devicePath: str() })),
    livenessProbe: probe(),
    readinessProbe: probe(),
    startupProbe: probe(),
    lifecycle: freeform(),
    terminationMessagePath: str(),
    terminationMessagePolicy: str(),
    imagePullPolicy: str(),
    securityContext: freeform(),
    stdin: bool(),
    stdinOnce: bool(),
    tty: bool(),
  });

const podAffinityTerm = (): SchemaNode =>
  obj({ labelSelector: labelSelector(), namespaces: atomicList(str()), topologyKey: str(), namespaceSelector: labelSelector() });
const weightedPodAffinityTerm = (): SchemaNode => obj({ weight: int32(), podAffinityTerm: podAffinityTerm() });
/** Inter-pod affinity or anti-affinity (the same shape). */
export const podAffinity = (): SchemaNode =>
  obj({ requiredDuringSchedulingIgnoredDuringExecution: atomicList(podAffinityTerm()), preferredDuringSchedulingIgnoredDuringExecution: atomicList(weightedPodAffinityTerm()) });

/** Node and inter-pod affinity, as the scheduler reads them. */
export const affinitySchema = (): SchemaNode =>
  obj({
    nodeAffinity: obj({
      requiredDuringSchedulingIgnoredDuringExecution: nodeSelector(),
      preferredDuringSchedulingIgnoredDuringExecution: atomicList(obj({ weight: int32(), preference: nodeSelectorTerm() })),
    }),
    podAffinity: podAffinity(),
    podAntiAffinity: podAffinity(),
  });

/** A pod volume: the sources the scheduler and node agents read are typed, the others kept as given. */
export const volumeSchema = (): SchemaNode =>
  openObj({
    name: str(),
    persistentVolumeClaim: obj({ claimName: str(), readOnly: bool() }),
    hostPath: openObj({ path: str(), type: str() }),
    emptyDir: openObj({ medium: str(), sizeLimit: quantity() }),
    configMap: openObj({ name: str(), optional: bool(), defaultMode: int32() }),
    secret: openObj({ secretName: str(), optional: bool(), defaultMode: int32() }),
    // Disks that attach read-write to one node at a time (the scheduler's VolumeRestrictions reads them).
    gcePersistentDisk: obj({ pdName: str(), fsType: str(), partition: int32(), readOnly: bool() }),
    awsElasticBlockStore: obj({ volumeID: str(), fsType: str(), partition: int32(), readOnly: bool() }),
    iscsi: obj({
      targetPortal: str(), iqn: str(), lun: int32(), iscsiInterface: str(), fsType: str(), readOnly: bool(), portals: atomicList(str()),
      chapAuthDiscovery: bool(), chapAuthSession: bool(), secretRef: localObjectReference(), initiatorName: str(),
    }),
    rbd: obj({ monitors: atomicList(str()), image: str(), fsType: str(), pool: str(), user: str(), keyring: str(), secretRef: localObjectReference(), readOnly: bool() }),
  });

export const podSpecSchema = (): SchemaNode =>
  obj({
    volumes: mapList(['name'], volumeSchema()),
    initContainers: mapList(['name'], containerSchema()),
    containers: mapList(['name'], containerSchema()),
    ephemeralContainers: mapList(['name'], freeform()),
    restartPolicy: str(),
    terminationGracePeriodSeconds: int64(),
    activeDeadlineSeconds: int64(),
    dnsPolicy: str(),
    nodeSelector: stringMap('atomic'),
    serviceAccountName: str(),
    serviceAccount: str(),
    automountServiceAccountToken: bool(),
    nodeName: str(),
    hostNetwork: bool(),
    hostPID: bool(),
    hostIPC: bool(),
    shareProcessNamespace: bool(),
    securityContext: freeform(),
    imagePullSecrets: mapList(['name'], localObjectReference()),
    hostname: str(),
    subdomain: str(),
    affinity: affinitySchema(),
    schedulerName: str(),
    tolerations: atomicList(obj({ key: str(), operator: str(), value: str(), effect: str(), tolerationSeconds: int64() })),
    hostAliases: mapList(['ip'], obj({ ip: str(), hostnames: atomicList(str()) })),
    priorityClassName: str(),
    priority: int32(),
    dnsConfig: freeform(),
    readinessGates: atomicList(obj({ conditionType: str() })),
    runtimeClassName: str(),
    enableServiceLinks: bool(),
    preemptionPolicy: str(),
    overhead: resourceList(),
    topologySpreadConstraints: mapList(['topologyKey', 'whenUnsatisfiable'], openObj({ maxSkew: int32(), topologyKey: str(), whenUnsatisfiable: str(), labelSelector: labelSelector() })),
  });

export const podTemplateSchema = (): SchemaNode => obj({ metadata: objectMeta(), spec: podSpecSchema() });

// ---- defaults ------------------------------------------------------------------------------

function defaultProbe(p: unknown): void {
  if (!p || typeof p !== 'object') return;
  const r = p as Record<string, unknown>;
  setDefault(r, 'timeoutSeconds', 1);
  setDefault(r, 'periodSeconds', 10);
  setDefault(r, 'successThreshold', 1);
  setDefault(r, 'failureThreshold', 3);
  const http = r['httpGet'];
  if (http && typeof http === 'object') {
    setDefault(http as Record<string, unknown>, 'path', '/');
    setDefault(http as Record<string, unknown>, 'scheme', 'HTTP');
  }
}

/** `latest` (or no tag) pulls always; a pinned tag or digest pulls if not present. */
export function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const tagAt = image.indexOf(':', lastSlash + 1);
  const tag = tagAt >= 0 ? image.slice(tagAt + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Record<string, unknown>): void {
  setDefault(c, 'imagePullPolicy', defaultPullPolicy(c['image']));
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const p of asArray(c['ports'])) if (p && typeof p === 'object') setDefault(p as Record<string, unknown>, 'protocol', 'TCP');
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[key]);
  // Requests default to limits, so a limit alone still reserves capacity for the scheduler.
  const res = c['resources'];
  if (res && typeof res === 'object') {
    const r = res as Record<string, unknown>;
    const limits = asRecord(r['limits']);
    if (Object.keys(limits).length) {
      const requests = asRecord(r['requests']);
      for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
      r['requests'] = requests;
    }
  }
}

/** Fills the established pod spec defaults in place. */
export function defaultPodSpec(spec: Record<string, unknown>): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'enableServiceLinks', true);
  if (typeof spec['serviceAccount'] === 'string' && spec['serviceAccount'] && !spec['serviceAccountName']) spec['serviceAccountName'] = spec['serviceAccount'];
  for (const c of [...asArray(spec['containers']), ...asArray(spec['initContainers'])]) {
    if (c && typeof c === 'object') defaultContainer(c as Record<string, unknown>);
  }
  for (const v of asArray(spec['volumes'])) {
    const projected = asRecord(v)['projected'];
    if (projected && typeof projected === 'object') defaultProjectedVolume(projected as Record<string, unknown>);
  }
}

/** Defaults of a pod template (`spec.template`) in a workload. */
export function defaultPodTemplate(template: unknown): void {
  if (!template || typeof template !== 'object') return;
  const t = template as Record<string, unknown>;
  if (!t['spec'] || typeof t['spec'] !== 'object') t['spec'] = {};
  defaultPodSpec(t['spec'] as Record<string, unknown>);
}

/** The QoS class the established system derives from requests and limits. */
export function qosClass(spec: Record<string, unknown>): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...asArray(spec['containers']), ...asArray(spec['initContainers'])].map(asRecord);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = asRecord(c['resources']);
    const limits = asRecord(res['limits']);
    const requests = asRecord(res['requests']);
    if (Object.keys(limits).length || Object.keys(requests).length) any = true;
    for (const k of ['cpu', 'memory']) {
      if (limits[k] === undefined || parseQuantity(limits[k]) !== parseQuantity(requests[k] ?? limits[k])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// ---- validation ----------------------------------------------------------------------------

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validatePorts(ports: unknown, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  asArray(ports).forEach((raw, i) => {
    const port = asRecord(raw);
    const pp = `${p}[${i}]`;
    const name = port['name'];
    if (typeof name === 'string' && name !== '') {
      errs.push(...invalidEach(`${pp}.name`, name, isValidPortName(name)));
      if (names.has(name)) errs.push(duplicate(`${pp}.name`, name));
      names.add(name);
    }
    const cp = port['containerPort'];
    if (cp === undefined || cp === null || cp === 0) errs.push(required(`${pp}.containerPort`));
    else errs.push(...inRange(`${pp}.containerPort`, cp, 1, 65535));
    if (port['hostPort'] !== 0) errs.push(...inRange(`${pp}.hostPort`, port['hostPort'], 1, 65535));
    if (port['protocol'] === undefined || port['protocol'] === '') errs.push(required(`${pp}.protocol`));
    else errs.push(...oneOf(`${pp}.protocol`, port['protocol'], PROTOCOLS));
  });
  return errs;
}

function validateResources(res: unknown, p: string): FieldError[] {
  const r = asRecord(res);
  const errs = [...validateResourceList(`${p}.limits`, r['limits']), ...validateResourceList(`${p}.requests`, r['requests'])];
  const limits = asRecord(r['limits']);
  const requests = asRecord(r['requests']);
  for (const [k, v] of Object.entries(requests)) {
    const lim = limits[k];
    if (lim === undefined) continue;
    const a = parseQuantity(v);
    const b = parseQuantity(lim);
    if (a !== undefined && b !== undefined && a > b) errs.push(invalidValue(`${p}.requests`, v, `must be less than or equal to ${k} limit`));
  }
  return errs;
}

function validateContainer(c: Record<string, unknown>, p: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const image = c['image'];
  if (typeof image !== 'string' || image.trim() === '') errs.push(required(`${p}.image`));
  errs.push(...oneOf(`${p}.imagePullPolicy`, c['imagePullPolicy'], PULL_POLICIES));
  errs.push(...oneOf(`${p}.terminationMessagePolicy`, c['terminationMessagePolicy'], ['File', 'FallbackToLogsOnError']));
  errs.push(...validatePorts(c['ports'], `${p}.ports`));
  asArray(c['env']).forEach((raw, i) => {
    const name = asRecord(raw)['name'];
    if (typeof name !== 'string' || name === '') errs.push(required(`${p}.env[${i}].name`));
    else errs.push(...invalidEach(`${p}.env[${i}].name`, name, isEnvVarName(name)));
  });
  const mountPaths = new Set<string>();
  asArray(c['volumeMounts']).forEach((raw, i) => {
    const m = asRecord(raw);
    const mp = `${p}.volumeMounts[${i}]`;
    const name = m['name'];
    if (typeof name !== 'string' || name === '') errs.push(required(`${mp}.name`));
    else if (!volumes.has(name)) errs.push(notFoundValue(`${mp}.name`, name));
    const path = m['mountPath'];
    if (typeof path !== 'string' || path === '') errs.push(required(`${mp}.mountPath`));
    else if (mountPaths.has(path)) errs.push(invalidValue(`${mp}.mountPath`, path, 'must be unique'));
    else mountPaths.add(path);
  });
  errs.push(...validateResources(c['resources'], `${p}.resources`));
  return errs;
}

/** The established ValidateTolerations (also for PodTolerationRestriction's configuration). */
export function validateTolerations(tols: unknown, p: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(tols).forEach((raw, i) => {
    const t = asRecord(raw);
    const tp = `${p}[${i}]`;
    const key = t['key'];
    if (typeof key === 'string' && key !== '') errs.push(...invalidEach(`${tp}.key`, key, isQualifiedName(key)));
    const op = t['operator'] ?? 'Equal';
    if (op === 'Exists') {
      if (t['value']) errs.push(invalidValue(`${tp}.operator`, t['value'], 'value must be empty when `operator` is \'Exists\''));
    } else if (op === 'Equal' || op === '') {
      if (!key) errs.push(invalidValue(`${tp}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    } else errs.push(...oneOf(`${tp}.operator`, op, ['Equal', 'Exists']));
    if (t['effect'] !== undefined && t['effect'] !== '') errs.push(...oneOf(`${tp}.effect`, t['effect'], ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    if (t['tolerationSeconds'] !== undefined && t['tolerationSeconds'] !== null && t['effect'] !== 'NoExecute') {
      errs.push(invalidValue(`${tp}.effect`, t['effect'] ?? '', 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
    }
  });
  return errs;
}

export interface PodSpecRules {
  /** Restart policies allowed here (workloads narrow it: deployments only Always, jobs OnFailure/Never). */
  restartPolicies?: readonly string[];
}

/** Validates a pod spec under path `p` (`spec` for pods, `spec.template.spec` for templates). */
export function validatePodSpec(specRaw: unknown, p: string, rules: PodSpecRules = {}): FieldError[] {
  const spec = asRecord(specRaw);
  const errs: FieldError[] = [];
  const volumes = new Set<string>();
  asArray(spec['volumes']).forEach((raw, i) => {
    const name = asRecord(raw)['name'];
    const vp = `${p}.volumes[${i}].name`;
    if (typeof name !== 'string' || name === '') errs.push(required(vp));
    else {
      errs.push(...invalidEach(vp, name, isDNS1123Label(name)));
      if (volumes.has(name)) errs.push(duplicate(vp, name));
      volumes.add(name);
    }
    const projected = asRecord(raw)['projected'];
    if (projected !== undefined && projected !== null) errs.push(...validateProjectedVolume(projected, `${p}.volumes[${i}].projected`));
  });
  const containers = asArray(spec['containers']);
  if (containers.length === 0) errs.push(required(`${p}.containers`));
  const names = new Set<string>();
  for (const [field, list] of [['initContainers', asArray(spec['initContainers'])], ['containers', containers]] as const) {
    list.forEach((raw, i) => {
      const c = asRecord(raw);
      const cp = `${p}.${field}[${i}]`;
      const name = c['name'];
      if (typeof name !== 'string' || name === '') errs.push(required(`${cp}.name`));
      else {
        errs.push(...invalidEach(`${cp}.name`, name, isDNS1123Label(name)));
        if (names.has(name)) errs.push(duplicate(`${cp}.name`, name));
        names.add(name);
      }
      errs.push(...validateContainer(c, cp, volumes));
    });
  }
  const rp = spec['restartPolicy'];
  if (rp !== undefined) {
    const allowed = rules.restartPolicies ?? RESTART_POLICIES;
    errs.push(...oneOf(`${p}.restartPolicy`, rp, allowed));
  }
  errs.push(...oneOf(`${p}.dnsPolicy`, spec['dnsPolicy'], DNS_POLICIES));
  errs.push(...nonNegative(`${p}.terminationGracePeriodSeconds`, spec['terminationGracePeriodSeconds']));
  const ads = spec['activeDeadlineSeconds'];
  if (ads !== undefined && ads !== null) errs.push(...inRange(`${p}.activeDeadlineSeconds`, ads, 1, 2147483647));
  errs.push(...validateLabels(spec['nodeSelector'], `${p}.nodeSelector`));
  for (const key of ['serviceAccountName', 'nodeName'] as const) {
    const v = spec[key];
    if (typeof v === 'string' && v !== '') errs.push(...invalidEach(`${p}.${key}`, v, isDNS1123Subdomain(v)));
  }
  for (const key of ['hostname', 'subdomain'] as const) {
    const v = spec[key];
    if (typeof v === 'string' && v !== '') errs.push(...invalidEach(`${p}.${key}`, v, isDNS1123Label(v)));
  }
  errs.push(...validateTolerations(spec['tolerations'], `${p}.tolerations`));
  errs.push(...validateSchedulingConstraints(spec, p));
  return errs;
}

/** Validates `template` (metadata labels + spec) at path `p`, e.g. `spec.template`. */
export function validatePodTemplate(templateRaw: unknown, p: string, rules: PodSpecRules = {}): FieldError[] {
  if (templateRaw === undefined || templateRaw === null) return [required(p)];
  const t = asRecord(templateRaw);
  const meta = asRecord(t['metadata']);
  return [...validateLabels(meta['labels'], `${p}.metadata.labels`), ...validatePodSpec(t['spec'], `${p}.spec`, rules)];
}

const POD_UPDATE_MESSAGE =
  'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)';

/** A pod's spec is fixed after creation except images, the deadline, added tolerations and a first nodeName (binding). */
export function validatePodSpecUpdate(nextRaw: unknown, oldRaw: unknown): FieldError[] {
  const next = structuredClone(asRecord(nextRaw));
  const old = structuredClone(asRecord(oldRaw));
  const errs: FieldError[] = [];
  const oldTols = asArray(old['tolerations']).map((t) => canonicalJson(t));
  const newTols = asArray(next['tolerations']).map((t) => canonicalJson(t));
  if (oldTols.some((t) => !newTols.includes(t))) errs.push(fieldForbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
  for (const s of [next, old]) {
    delete s['activeDeadlineSeconds'];
    delete s['tolerations'];
    for (const key of ['containers', 'initContainers']) for (const c of asArray(s[key])) if (c && typeof c === 'object') delete (c as Record<string, unknown>)['image'];
  }
  if (!old['nodeName']) {
    delete next['nodeName'];
    delete old['nodeName'];
  }
  if (canonicalJson(next) !== canonicalJson(old)) errs.push(fieldForbidden('spec', POD_UPDATE_MESSAGE));
  return errs;
}
