/**
 * One PodSecurityPolicy applied to one pod (the established simple provider): `mutate` gives the
 * pod the policy's defaults where it asks for nothing (pod-level groups and SELinux options, the
 * runtime class, per container the user, group, SELinux options, non-root marker, capabilities,
 * read-only root filesystem and privilege escalation), `validate` lists every way the pod breaks
 * the policy, as field errors in the established wording and paths.
 *
 * Container values are the effective ones: a container's own security context, else the pod's
 * (user, group, non-root, SELinux). A default is written on the container only when it differs from
 * what the container already gets from the pod, as the established mutators do, so a pod that
 * already complies is left exactly as it was (the plugin prefers policies that change nothing).
 */
import type { FieldError } from '../../api/status.js';
import { invalidValue } from '../../api/validation/field-errors.js';
import { asArray, asRecord } from '../../api/kinds/define.js';
import { ALLOW_ALL } from '../../api/kinds/policy/podsecuritypolicy.js';
import { canonicalJson } from '../../api/json-walk.js';
import type { SvcObject } from '../../api/types.js';
import {
  allowsHostPath, capabilitiesStrategy, groupStrategy, seLinuxStrategy, userStrategy, validateSysctls, volumeType,
  type CapabilitiesStrategy, type GroupStrategy, type Loose, type SELinuxStrategy, type UserStrategy,
} from './pod-security-policy-strategies.js';
import { profileStrategies } from './pod-security-policy-profiles.js';

export interface PodSecurityPolicyProvider {
  /** The policy's name. */
  readonly name: string;
  /** Gives `pod` (a private copy) the policy's defaults; errors when a default cannot be made. */
  mutate(pod: SvcObject): FieldError[];
  validate(pod: SvcObject): FieldError[];
}

/** A record field as a record, created (and stored) when absent. */
function child(parent: Loose, key: string): Loose {
  const v = parent[key];
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Loose;
  const fresh: Loose = {};
  parent[key] = fresh;
  return fresh;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;
const numberOr = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const boolOr = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const recordOr = (v: unknown): Loose | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);
const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** The pod's init containers then containers, each with its field path. */
function containersOf(spec: Loose): { container: Loose; path: string }[] {
  return [
    ...asArray(spec['initContainers']).map((c, i) => ({ container: asRecord(c), path: `spec.initContainers[${i}]` })),
    ...asArray(spec['containers']).map((c, i) => ({ container: asRecord(c), path: `spec.containers[${i}]` })),
  ];
}

/** Fields a container inherits from the pod's security context when it sets none itself. */
const INHERITED = new Set(['runAsUser', 'runAsGroup', 'runAsNonRoot', 'seLinuxOptions']);

function effective(podSC: Loose, container: Loose, field: string): unknown {
  const own = asRecord(container['securityContext'])[field];
  if (present(own) || !INHERITED.has(field)) return own;
  return podSC[field];
}

/** Sets a container's field when the effective value differs (never writes what the pod already gives). */
function setEffective(podSC: Loose, container: Loose, field: string, value: unknown): void {
  if (same(effective(podSC, container, field), value)) return;
  if (!present(value) && !present(container['securityContext'])) return;
  child(container, 'securityContext')[field] = value;
}

interface Strategies {
  runAsUser: UserStrategy;
  runAsGroup: GroupStrategy;
  fsGroup: GroupStrategy;
  supplementalGroups: GroupStrategy;
  seLinux: SELinuxStrategy;
  capabilities: CapabilitiesStrategy;
}

/** The provider of a policy; throws StrategyError when the policy cannot be applied (the plugin skips it). */
export function podSecurityPolicyProvider(policy: SvcObject): PodSecurityPolicyProvider {
  const spec = asRecord(policy.spec);
  const name = policy.metadata.name ?? '';
  const s: Strategies = {
    runAsUser: userStrategy(spec['runAsUser']),
    runAsGroup: groupStrategy(spec['runAsGroup'], 'RunAsGroup'),
    fsGroup: groupStrategy(spec['fsGroup'], 'FSGroup'),
    supplementalGroups: groupStrategy(spec['supplementalGroups'], 'SupplementalGroups'),
    seLinux: seLinuxStrategy(spec['seLinux']),
    capabilities: capabilitiesStrategy(spec),
  };
  // Absent means true (the kind's default; an object stored before defaulting reads the same).
  const allowEscalation = spec['allowPrivilegeEscalation'] !== false;
  const runtimeClass = recordOr(spec['runtimeClass']);
  // seccomp and AppArmor: annotations on the policy, as in 1.18.
  const profiles = profileStrategies(policy.metadata.annotations);

  function mutateContainer(podSC: Loose, container: Loose): void {
    if (!present(effective(podSC, container, 'runAsUser'))) setEffective(podSC, container, 'runAsUser', s.runAsUser.generate());
    if (!present(effective(podSC, container, 'runAsGroup'))) setEffective(podSC, container, 'runAsGroup', s.runAsGroup.generate()?.[0]);
    if (!present(effective(podSC, container, 'seLinuxOptions'))) setEffective(podSC, container, 'seLinuxOptions', s.seLinux.generate());
    // The marker that tells the node agent to check the image's user when none is set.
    if (!present(effective(podSC, container, 'runAsNonRoot')) && !present(effective(podSC, container, 'runAsUser')) && asRecord(spec['runAsUser'])['rule'] === 'MustRunAsNonRoot') {
      setEffective(podSC, container, 'runAsNonRoot', true);
    }
    setEffective(podSC, container, 'capabilities', s.capabilities.generate(container));
    if (spec['readOnlyRootFilesystem'] === true && !present(effective(podSC, container, 'readOnlyRootFilesystem'))) setEffective(podSC, container, 'readOnlyRootFilesystem', true);
    if (typeof spec['defaultAllowPrivilegeEscalation'] === 'boolean' && !present(effective(podSC, container, 'allowPrivilegeEscalation'))) {
      setEffective(podSC, container, 'allowPrivilegeEscalation', spec['defaultAllowPrivilegeEscalation']);
    }
    if (!allowEscalation && !present(effective(podSC, container, 'allowPrivilegeEscalation'))) setEffective(podSC, container, 'allowPrivilegeEscalation', false);
  }

  function validateVolumes(podSpec: Loose, containers: { container: Loose; path: string }[]): FieldError[] {
    const errs: FieldError[] = [];
    const allowed = asArray(spec['volumes']).map(String);
    const all = allowed.includes('*');
    asArray(podSpec['volumes']).forEach((raw, i) => {
      const v = asRecord(raw);
      const path = `spec.volumes[${i}]`;
      const type = volumeType(v);
      if (type === undefined) {
        errs.push(invalidValue(path, '', `unknown volume type for volume: ${JSON.stringify(v)}`));
        return;
      }
      if (!all && !allowed.includes(type)) {
        errs.push(invalidValue(path, type, `${type} volumes are not allowed to be used`));
        return;
      }
      if (type === 'hostPath') {
        const hostPath = String(asRecord(v['hostPath'])['path'] ?? '');
        const { allowed: ok, readOnly } = allowsHostPath(spec, hostPath);
        if (!ok) errs.push(invalidValue(`${path}.hostPath.pathPrefix`, hostPath, 'is not allowed to be used'));
        else if (readOnly) {
          for (const { container, path: cp } of containers) {
            asArray(container['volumeMounts']).forEach((m, j) => {
              const mount = asRecord(m);
              if (mount['name'] === v['name'] && mount['readOnly'] !== true) errs.push(invalidValue(`${cp}.volumeMounts[${j}].readOnly`, mount['readOnly'] === true, 'must be read-only'));
            });
          }
        }
      } else if (type === 'flexVolume') {
        const drivers = asArray(spec['allowedFlexVolumes']).map((d) => String(asRecord(d)['driver'] ?? ''));
        const driver = String(asRecord(v['flexVolume'])['driver'] ?? '');
        if (drivers.length > 0 && !drivers.includes(driver)) errs.push(invalidValue(`${path}.driver`, driver, 'Flexvolume driver is not allowed to be used'));
      } else if (type === 'csi') {
        const drivers = asArray(spec['allowedCSIDrivers']).map((d) => String(asRecord(d)['name'] ?? ''));
        const driver = String(asRecord(v['csi'])['driver'] ?? '');
        if (drivers.length > 0 && !drivers.includes(driver)) errs.push(invalidValue(`${path}.csi.driver`, driver, 'Inline CSI driver is not allowed to be used'));
      }
    });
    return errs;
  }

  function hostPortRanges(): string {
    return asArray(spec['hostPorts'])
      .map((r) => {
        const { min, max } = asRecord(r);
        return min === max ? String(min ?? 0) : `${String(min ?? 0)}-${String(max ?? 0)}`;
      })
      .join(',');
  }

  function validateContainer(podSC: Loose, annotations: Record<string, string> | undefined, container: Loose, path: string): FieldError[] {
    const errs: FieldError[] = [];
    const scPath = `${path}.securityContext`;
    const eff = (f: string) => effective(podSC, container, f);
    errs.push(...s.runAsUser.validate(scPath, boolOr(eff('runAsNonRoot')), numberOr(eff('runAsUser'))));
    const gid = numberOr(eff('runAsGroup'));
    errs.push(...s.runAsGroup.validate(scPath, gid === undefined ? undefined : [gid]));
    errs.push(...s.seLinux.validate(`${scPath}.seLinuxOptions`, recordOr(eff('seLinuxOptions'))));
    errs.push(...profiles.validateContainer(annotations, String(container['name'] ?? '')));
    const privileged = eff('privileged');
    if (spec['privileged'] !== true && privileged === true) errs.push(invalidValue(`${scPath}.privileged`, true, 'Privileged containers are not allowed'));
    const procMount = typeof eff('procMount') === 'string' && eff('procMount') !== '' ? String(eff('procMount')) : 'Default';
    const allowedProcMounts = asArray(spec['allowedProcMountTypes']).map(String);
    if (!(allowedProcMounts.length === 0 ? ['Default'] : allowedProcMounts).includes(procMount)) errs.push(invalidValue(`${scPath}.procMount`, procMount, 'ProcMountType is not allowed'));
    errs.push(...s.capabilities.validate(`${scPath}.capabilities`, recordOr(eff('capabilities'))));
    for (const p of asArray(container['ports'])) {
      const hostPort = Number(asRecord(p)['hostPort'] ?? 0);
      if (hostPort <= 0) continue;
      const ok = asArray(spec['hostPorts']).some((r) => hostPort >= Number(asRecord(r)['min'] ?? 0) && hostPort <= Number(asRecord(r)['max'] ?? 0));
      if (!ok) errs.push(invalidValue(`${path}.hostPort`, hostPort, `Host port ${hostPort} is not allowed to be used. Allowed ports: [${hostPortRanges()}]`));
    }
    if (spec['readOnlyRootFilesystem'] === true) {
      const ro = eff('readOnlyRootFilesystem');
      if (!present(ro)) errs.push(invalidValue(`${scPath}.readOnlyRootFilesystem`, null, 'ReadOnlyRootFilesystem may not be nil and must be set to true'));
      else if (ro !== true) errs.push(invalidValue(`${scPath}.readOnlyRootFilesystem`, ro, 'ReadOnlyRootFilesystem must be set to true'));
    }
    const escalation = eff('allowPrivilegeEscalation');
    if (!allowEscalation && escalation !== false) errs.push(invalidValue(`${scPath}.allowPrivilegeEscalation`, present(escalation) ? escalation : null, 'Allowing privilege escalation for containers is not allowed'));
    return errs;
  }

  return {
    name,
    mutate(pod) {
      const podSpec = child(pod as Loose, 'spec');
      const hadSC = present(podSpec['securityContext']);
      const podSC = child(podSpec, 'securityContext');
      if (!present(podSC['supplementalGroups'])) {
        const groups = s.supplementalGroups.generate();
        if (groups) podSC['supplementalGroups'] = groups;
      }
      if (!present(podSC['fsGroup'])) {
        const g = s.fsGroup.generate();
        if (g) podSC['fsGroup'] = g[0];
      }
      if (!present(podSC['seLinuxOptions'])) {
        const o = s.seLinux.generate();
        if (o) podSC['seLinuxOptions'] = o;
      }
      if (!hadSC && Object.keys(podSC).length === 0) delete podSpec['securityContext'];
      if (runtimeClass && !present(podSpec['runtimeClassName']) && typeof runtimeClass['defaultRuntimeClassName'] === 'string' && runtimeClass['defaultRuntimeClassName'] !== '') {
        podSpec['runtimeClassName'] = runtimeClass['defaultRuntimeClassName'];
      }
      const containers = containersOf(podSpec);
      const annotations = profiles.generate(pod.metadata.annotations, containers.map(({ container }) => String(container['name'] ?? '')));
      if (annotations !== pod.metadata.annotations) pod.metadata.annotations = annotations;
      for (const { container } of containers) mutateContainer(asRecord(podSpec['securityContext']), container);
      return [];
    },
    validate(pod) {
      const podSpec = asRecord(pod.spec);
      const podSC = asRecord(podSpec['securityContext']);
      const scPath = 'spec.securityContext';
      const errs: FieldError[] = [];
      const fsGroup = numberOr(podSC['fsGroup']);
      errs.push(...s.fsGroup.validate(`${scPath}.fsGroup`, fsGroup === undefined ? undefined : [fsGroup]));
      const sup = present(podSC['supplementalGroups']) ? asArray(podSC['supplementalGroups']).map(Number) : undefined;
      errs.push(...s.supplementalGroups.validate(`${scPath}.supplementalGroups`, sup));
      errs.push(...profiles.validatePod(pod.metadata.annotations));
      errs.push(...s.seLinux.validate(`${scPath}.seLinuxOptions`, recordOr(podSC['seLinuxOptions'])));
      if (spec['hostNetwork'] !== true && podSpec['hostNetwork'] === true) errs.push(invalidValue(`${scPath}.hostNetwork`, true, 'Host network is not allowed to be used'));
      if (spec['hostPID'] !== true && podSpec['hostPID'] === true) errs.push(invalidValue(`${scPath}.hostPID`, true, 'Host PID is not allowed to be used'));
      if (spec['hostIPC'] !== true && podSpec['hostIPC'] === true) errs.push(invalidValue(`${scPath}.hostIPC`, true, 'Host IPC is not allowed to be used'));
      errs.push(...validateSysctls(spec, pod as Loose));
      const containers = containersOf(podSpec);
      errs.push(...validateVolumes(podSpec, containers));
      if (runtimeClass) {
        const actual = podSpec['runtimeClassName'];
        const names = asArray(runtimeClass['allowedRuntimeClassNames']).map(String);
        if (typeof actual === 'string' && !names.includes(ALLOW_ALL) && !names.includes(actual)) errs.push(invalidValue('spec.runtimeClassName', actual));
      }
      for (const { container, path } of containers) errs.push(...validateContainer(podSC, pod.metadata.annotations, container, path));
      return errs;
    },
  };
}
