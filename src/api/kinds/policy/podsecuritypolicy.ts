/**
 * PodSecurityPolicies (policy/v1beta1, cluster-scoped, short name `psp`): the security settings a
 * pod must meet, and the defaults it gets, to be admitted by the PodSecurityPolicy admission plugin
 * (src/apiserver/admission/pod-security-policy.ts) for a user or service account that may `use`
 * the policy. The spec's 1.18 kind, every field; v1beta1 is its only version (as established: the
 * kind never reached v1). Defaulting is the established one: `allowPrivilegeEscalation` true when
 * absent (a policy written before the field existed stays as permissive as it was).
 *
 * Validation is the established ValidatePodSecurityPolicy, with its messages: the four strategy
 * rules (seLinux, runAsUser, supplementalGroups, fsGroup are required; runAsGroup is optional), ID
 * and host port ranges, volume types, capabilities not both added and required-dropped, the
 * privilege-escalation pair, proc mount types, host paths, flex and CSI drivers, sysctl patterns and
 * runtime class names.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { fieldForbidden, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { isDNS1123Subdomain } from '../../validation/names.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, bool, int32, int64, obj, objectSchema, str } from '../schema-dsl.js';
import { podSecurityPolicyColumns } from '../columns/policy.js';

/** The volume types a policy may name (`*` for all), the established FSType spellings. */
export const PSP_VOLUME_TYPES = [
  '*', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephFS', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir', 'fc',
  'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'iscsi', 'nfs', 'persistentVolumeClaim',
  'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO', 'secret', 'storageos', 'vsphereVolume',
] as const;

export const RUN_AS_USER_RULES = ['MustRunAs', 'MustRunAsNonRoot', 'RunAsAny'] as const;
export const GROUP_RULES = ['MustRunAs', 'MayRunAs', 'RunAsAny'] as const;
export const SELINUX_RULES = ['MustRunAs', 'RunAsAny'] as const;
export const PROC_MOUNT_TYPES = ['Default', 'Unmasked'] as const;
/** The wildcard of allowedCapabilities and of allowedRuntimeClassNames. */
export const ALLOW_ALL = '*';

const idRange = () => obj({ min: int64(), max: int64() });
const strategy = () => obj({ rule: str(), ranges: atomicList(idRange()) });

export const podSecurityPolicyDefinition = defineKind({
  group: 'policy',
  version: 'v1beta1',
  kind: 'PodSecurityPolicy',
  plural: 'podsecuritypolicies',
  namespaced: false,
  shortNames: ['psp'],
  tableColumns: podSecurityPolicyColumns,
  schema: objectSchema({
    spec: obj({
      privileged: bool(),
      defaultAddCapabilities: atomicList(str()),
      requiredDropCapabilities: atomicList(str()),
      allowedCapabilities: atomicList(str()),
      volumes: atomicList(str()),
      hostNetwork: bool(),
      hostPorts: atomicList(obj({ min: int32(), max: int32() })),
      hostPID: bool(),
      hostIPC: bool(),
      seLinux: obj({ rule: str(), seLinuxOptions: obj({ user: str(), role: str(), type: str(), level: str() }) }),
      runAsUser: strategy(),
      runAsGroup: strategy(),
      supplementalGroups: strategy(),
      fsGroup: strategy(),
      readOnlyRootFilesystem: bool(),
      defaultAllowPrivilegeEscalation: bool(),
      allowPrivilegeEscalation: bool(),
      allowedHostPaths: atomicList(obj({ pathPrefix: str(), readOnly: bool() })),
      allowedFlexVolumes: atomicList(obj({ driver: str() })),
      allowedCSIDrivers: atomicList(obj({ name: str() })),
      allowedUnsafeSysctls: atomicList(str()),
      forbiddenSysctls: atomicList(str()),
      allowedProcMountTypes: atomicList(str()),
      runtimeClass: obj({ allowedRuntimeClassNames: atomicList(str()), defaultRuntimeClassName: str() }),
    }),
  }),
  defaults(o: SvcObject): void {
    setDefault(section(o), 'allowPrivilegeEscalation', true);
  },
  validate(o: SvcObject): FieldError[] {
    return validatePodSecurityPolicySpec(asRecord(o.spec), 'spec');
  },
});

type Loose = Record<string, unknown>;

function validateIDRanges(path: string, ranges: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  ranges.forEach((raw, i) => {
    const r = asRecord(raw);
    const min = Number(r['min'] ?? 0);
    const max = Number(r['max'] ?? 0);
    const p = `${path}[${i}]`;
    if (min < 0) errs.push(invalidValue(`${p}.min`, min, 'min cannot be negative'));
    if (max < 0) errs.push(invalidValue(`${p}.max`, max, 'max cannot be negative'));
    if (min > max) errs.push(invalidValue(`${p}.min`, min, 'min cannot be greater than max'));
  });
  return errs;
}

/**
 * A strategy's rule is one of its own; its ranges are valid ranges. A MustRunAs/MayRunAs without
 * ranges is accepted here, as established, and skipped by the admission plugin (no provider can be
 * made of it).
 */
function validateStrategy(path: string, value: unknown, rules: readonly string[]): FieldError[] {
  const s = asRecord(value);
  const rule = typeof s['rule'] === 'string' ? s['rule'] : '';
  const errs: FieldError[] = [];
  if (!rules.includes(rule)) errs.push(notSupported(`${path}.rule`, rule, rules));
  errs.push(...validateIDRanges(`${path}.ranges`, asArray(s['ranges'])));
  return errs;
}

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
/** The established sysctl pattern format (a name, `net.*` or `*`), quoted in its message. */
const SYSCTL_PATTERN_FMT = `(${SYSCTL_SEGMENT}\\.)*(${SYSCTL_SEGMENT}|\\*)`;
const SYSCTL_PATTERN = new RegExp(`^${SYSCTL_PATTERN_FMT}$`);

function validateSysctls(path: string, list: string[]): FieldError[] {
  const errs: FieldError[] = [];
  list.forEach((v, i) => {
    if (v.length > 253 || !SYSCTL_PATTERN.test(v)) errs.push(invalidValue(`${path}[${i}]`, v, `must have at most 253 characters and match regex ${SYSCTL_PATTERN_FMT}`));
  });
  return errs;
}

/** The established overlap rule of allowed unsafe and forbidden sysctls (names and `prefix*` patterns). */
function validateSysctlOverlap(allowedPath: string, forbiddenPath: string, allowed: string[], forbidden: string[]): FieldError[] {
  const errs: FieldError[] = [];
  allowed.forEach((a, i) => {
    const aPattern = a.endsWith('*');
    const aPrefix = aPattern ? a.slice(0, -1) : '';
    forbidden.forEach((f, j) => {
      const fPattern = f.endsWith('*');
      const fPrefix = fPattern ? f.slice(0, -1) : '';
      if (aPattern && fPattern) {
        if (aPrefix.startsWith(fPrefix)) errs.push(invalidValue(`${allowedPath}[${i}]`, a, `sysctl overlaps with ${f}`));
        else if (fPrefix.startsWith(aPrefix)) errs.push(invalidValue(`${forbiddenPath}[${j}]`, f, `sysctl overlaps with ${a}`));
      } else if (aPattern) {
        if (f.startsWith(aPrefix)) errs.push(invalidValue(`${forbiddenPath}[${j}]`, f, `sysctl overlaps with ${a}`));
      } else if (fPattern) {
        if (a.startsWith(fPrefix)) errs.push(invalidValue(`${allowedPath}[${i}]`, a, `sysctl overlaps with ${f}`));
      } else if (a === f) {
        errs.push(invalidValue(`${allowedPath}[${i}]`, a, `sysctl overlaps with ${f}`));
      }
    });
  });
  return errs;
}

export function validatePodSecurityPolicySpec(spec: Loose, path: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateStrategy(`${path}.runAsUser`, spec['runAsUser'], RUN_AS_USER_RULES));
  if (spec['runAsGroup'] !== undefined && spec['runAsGroup'] !== null) errs.push(...validateStrategy(`${path}.runAsGroup`, spec['runAsGroup'], GROUP_RULES));
  errs.push(...validateStrategy(`${path}.fsGroup`, spec['fsGroup'], GROUP_RULES));
  errs.push(...validateStrategy(`${path}.supplementalGroups`, spec['supplementalGroups'], GROUP_RULES));
  const seLinux = asRecord(spec['seLinux']);
  const seRule = typeof seLinux['rule'] === 'string' ? seLinux['rule'] : '';
  if (!(SELINUX_RULES as readonly string[]).includes(seRule)) errs.push(notSupported(`${path}.seLinux.rule`, seRule, SELINUX_RULES));

  const volumes = asArray(spec['volumes']).map(String);
  volumes.forEach((v) => {
    if (!(PSP_VOLUME_TYPES as readonly string[]).includes(v)) errs.push(notSupported(`${path}.volumes`, v, [...PSP_VOLUME_TYPES].sort()));
  });
  asArray(spec['hostPorts']).forEach((raw, i) => {
    const r = asRecord(raw);
    const min = Number(r['min'] ?? 0);
    const max = Number(r['max'] ?? 0);
    const p = `${path}.hostPorts[${i}]`;
    if (min < 0 || min > 65535) errs.push(invalidValue(`${p}.min`, min, 'min should be between 0 and 65535'));
    if (max < 0 || max > 65535) errs.push(invalidValue(`${p}.max`, max, 'max should be between 0 and 65535'));
    if (min > max) errs.push(invalidValue(`${p}.min`, min, 'min cannot be greater than max'));
  });

  if (spec['defaultAllowPrivilegeEscalation'] === true && spec['allowPrivilegeEscalation'] === false) {
    errs.push(invalidValue(`${path}.defaultAllowPrivilegeEscalation`, true, 'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true'));
  }
  const drops = new Set(asArray(spec['requiredDropCapabilities']).map(String));
  for (const [field, label] of [['defaultAddCapabilities', 'defaultAddCapabilities'], ['allowedCapabilities', 'allowedCapabilities']] as const) {
    asArray(spec[field]).forEach((c, i) => {
      if (drops.has(String(c))) errs.push(invalidValue(`${path}.${field}[${i}]`, String(c), `capability is listed in ${label} and requiredDropCapabilities`));
    });
  }
  asArray(spec['allowedProcMountTypes']).forEach((t, i) => {
    if (!(PROC_MOUNT_TYPES as readonly string[]).includes(String(t))) errs.push(notSupported(`${path}.allowedProcMountTypes[${i}]`, t, PROC_MOUNT_TYPES));
  });
  asArray(spec['allowedHostPaths']).forEach((raw, i) => {
    const prefix = asRecord(raw)['pathPrefix'];
    const p = `${path}.allowedHostPaths[${i}].pathPrefix`;
    if (typeof prefix !== 'string' || prefix === '') errs.push(required(p, ''));
    else if (prefix.split('/').includes('..')) errs.push(invalidValue(p, prefix, "must not contain '..'"));
  });
  const flex = asArray(spec['allowedFlexVolumes']);
  if (flex.length > 0 && !volumes.includes('*') && !volumes.includes('flexVolume')) {
    errs.push(invalidValue(`${path}.allowedFlexVolumes`, flex, "volumes does not include 'flexVolume' or '*', so no flex volumes are allowed"));
  }
  flex.forEach((raw, i) => {
    const d = asRecord(raw)['driver'];
    if (typeof d !== 'string' || d === '') errs.push(required(`${path}.allowedFlexVolumes[${i}].driver`, 'must specify a driver'));
  });
  asArray(spec['allowedCSIDrivers']).forEach((raw, i) => {
    const n = asRecord(raw)['name'];
    if (typeof n !== 'string' || n === '') errs.push(required(`${path}.allowedCSIDrivers[${i}].name`, ''));
  });

  const allowedUnsafe = asArray(spec['allowedUnsafeSysctls']).map(String);
  const forbiddenSysctls = asArray(spec['forbiddenSysctls']).map(String);
  errs.push(...validateSysctls(`${path}.allowedUnsafeSysctls`, allowedUnsafe));
  errs.push(...validateSysctls(`${path}.forbiddenSysctls`, forbiddenSysctls));
  errs.push(...validateSysctlOverlap(`${path}.allowedUnsafeSysctls`, `${path}.forbiddenSysctls`, allowedUnsafe, forbiddenSysctls));

  if (spec['runtimeClass'] !== undefined && spec['runtimeClass'] !== null) {
    const rc = asRecord(spec['runtimeClass']);
    const names = asArray(rc['allowedRuntimeClassNames']).map(String);
    const p = `${path}.runtimeClass`;
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (n === ALLOW_ALL) {
        if (names.length > 1) errs.push(invalidValue(`${p}.allowedRuntimeClassNames[${i}]`, n, 'if \'*\' is present, must not specify other RuntimeClass names'));
      } else {
        for (const problem of isDNS1123Subdomain(n)) errs.push(invalidValue(`${p}.allowedRuntimeClassNames[${i}]`, n, problem));
      }
      if (seen.has(n)) errs.push({ field: `${p}.allowedRuntimeClassNames[${i}]`, type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(n)}` });
      seen.add(n);
    });
    const def = rc['defaultRuntimeClassName'];
    if (typeof def === 'string' && def !== '') {
      for (const problem of isDNS1123Subdomain(def)) errs.push(invalidValue(`${p}.defaultRuntimeClassName`, def, problem));
      if (!names.includes(ALLOW_ALL) && !names.includes(def)) errs.push(fieldForbidden(`${p}.defaultRuntimeClassName`, 'default must be allowed'));
    }
  }
  return errs;
}
