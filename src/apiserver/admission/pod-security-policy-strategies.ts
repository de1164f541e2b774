/**
 * The strategies a PodSecurityPolicy is made of (the established pkg/security/podsecuritypolicy):
 * each generates the value a pod or container gets when it asks for none (the policy's default),
 * and validates the value it has, with the established field errors. Pure functions of the policy
 * and the pod's JSON; the provider (./pod-security-policy-provider.ts) runs them in order.
 *
 * - runAsUser: MustRunAs (ranges; default the first range's min), MustRunAsNonRoot, RunAsAny;
 * - runAsGroup, fsGroup, supplementalGroups: MustRunAs (default the first range's min), MayRunAs
 *   (ranges checked, no default), RunAsAny;
 * - seLinux: MustRunAs (the policy's options, levels compared as MCS sets), RunAsAny;
 * - capabilities: default adds, required drops, allowed adds (`*` for any);
 * - sysctls: the safe set, allowed unsafe patterns, forbidden patterns;
 * - volumes: the allowed types, host path prefixes (some read-only), flex and CSI drivers.
 *
 * A strategy that cannot be made (MustRunAs without ranges, ...) makes the whole policy unusable:
 * `StrategyError`, and the plugin skips that policy, as established.
 */
import type { FieldError } from '../../api/status.js';
import { fieldForbidden, invalidValue, required } from '../../api/validation/field-errors.js';
import { asArray, asRecord } from '../../api/kinds/define.js';
import { ALLOW_ALL } from '../../api/kinds/policy/podsecuritypolicy.js';

export type Loose = Record<string, unknown>;

export class StrategyError extends Error {}

export interface IdRange {
  min: number;
  max: number;
}

/** Go's %v of a range list, as the established messages print it: `[{1000 2000}]`. */
export function formatRanges(ranges: readonly IdRange[]): string {
  return `[${ranges.map((r) => `{${r.min} ${r.max}}`).join(' ')}]`;
}

/** Go's %#v of an []int64, as the established group messages quote it. */
export function goInt64Slice(list: readonly number[] | undefined): string {
  return list === undefined ? '[]int64(nil)' : `[]int64{${list.join(', ')}}`;
}

/** An Invalid error whose value is printed as the established Go formatting does, not as JSON. */
export function invalidGo(field: string, printed: string, detail: string): FieldError {
  return { field, type: 'FieldValueInvalid', message: `Invalid value: ${printed}${detail ? `: ${detail}` : ''}` };
}

function rangesOf(options: unknown): IdRange[] {
  return asArray(asRecord(options)['ranges']).map((r) => ({ min: Number(asRecord(r)['min'] ?? 0), max: Number(asRecord(r)['max'] ?? 0) }));
}

const inRanges = (id: number, ranges: readonly IdRange[]): boolean => ranges.some((r) => id >= r.min && id <= r.max);

// ---- runAsUser -------------------------------------------------------------------------------

export interface UserStrategy {
  generate(): number | undefined;
  validate(scPath: string, runAsNonRoot: boolean | undefined, runAsUser: number | undefined): FieldError[];
}

export function userStrategy(options: unknown): UserStrategy {
  const rule = String(asRecord(options)['rule'] ?? '');
  const ranges = rangesOf(options);
  switch (rule) {
    case 'MustRunAs':
      if (ranges.length === 0) throw new StrategyError('MustRunAs requires at least one range');
      return {
        generate: () => ranges[0]!.min,
        validate(scPath, _nonRoot, uid) {
          if (uid === undefined) return [required(`${scPath}.runAsUser`, '')];
          return inRanges(uid, ranges) ? [] : [invalidValue(`${scPath}.runAsUser`, uid, `must be in the ranges: ${formatRanges(ranges)}`)];
        },
      };
    case 'MustRunAsNonRoot':
      return {
        generate: () => undefined,
        validate(scPath, nonRoot, uid) {
          if (nonRoot === undefined && uid === undefined) return [required(`${scPath}.runAsNonRoot`, 'must be true')];
          if (nonRoot === false) return [invalidValue(`${scPath}.runAsNonRoot`, false, 'must be true')];
          if (uid === 0) return [invalidValue(`${scPath}.runAsUser`, 0, 'running with the root UID is forbidden')];
          return [];
        },
      };
    case 'RunAsAny':
      return { generate: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized RunAsUser strategy type ${rule}`);
  }
}

// ---- runAsGroup, fsGroup, supplementalGroups -------------------------------------------------

export interface GroupStrategy {
  /** The groups a pod that asks for none gets (undefined: none). */
  generate(): number[] | undefined;
  validate(path: string, groups: number[] | undefined): FieldError[];
}

function groupsInRanges(path: string, ranges: readonly IdRange[], groups: number[] | undefined): FieldError[] {
  return (groups ?? []).filter((g) => !inRanges(g, ranges)).map((g) => invalidGo(path, goInt64Slice(groups), `group ${g} must be in the ranges: ${formatRanges(ranges)}`));
}

/** A group strategy; an absent `options` (runAsGroup is optional) is RunAsAny. */
export function groupStrategy(options: unknown, what: string): GroupStrategy {
  if (options === undefined || options === null) return { generate: () => undefined, validate: () => [] };
  const rule = String(asRecord(options)['rule'] ?? '');
  const ranges = rangesOf(options);
  switch (rule) {
    case 'MustRunAs':
      if (ranges.length === 0) throw new StrategyError('ranges must be supplied for MustRunAs');
      return {
        generate: () => [ranges[0]!.min],
        validate(path, groups) {
          const errs: FieldError[] = [];
          if (groups === undefined || groups.length === 0) errs.push(invalidGo(path, goInt64Slice(groups), 'unable to validate empty groups against required ranges'));
          return [...errs, ...groupsInRanges(path, ranges, groups)];
        },
      };
    case 'MayRunAs':
      if (ranges.length === 0) throw new StrategyError('ranges must be supplied for MayRunAs');
      return { generate: () => undefined, validate: (path, groups) => groupsInRanges(path, ranges, groups) };
    case 'RunAsAny':
      return { generate: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized ${what} strategy type ${rule}`);
  }
}

// ---- seLinux ---------------------------------------------------------------------------------

export interface SELinuxStrategy {
  generate(): Loose | undefined;
  validate(path: string, options: Loose | undefined): FieldError[];
}

/** `s0:c1,c0` equals `s0:c0,c1`: the sensitivity and the category set, as established. */
function equalLevels(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const e = expected.split(/:(.*)/s);
  const a = actual.split(/:(.*)/s);
  if (e.length < 2 || a.length < 2) return false;
  if (e[0] !== a[0]) return false;
  const cats = (s: string) => [...new Set(s.split(','))].sort().join(',');
  return cats(e[1]!) === cats(a[1]!);
}

export function seLinuxStrategy(options: unknown): SELinuxStrategy {
  const o = asRecord(options);
  const rule = String(o['rule'] ?? '');
  switch (rule) {
    case 'MustRunAs': {
      if (o['seLinuxOptions'] === undefined || o['seLinuxOptions'] === null) throw new StrategyError('MustRunAs requires SELinuxContextStrategyOptions');
      const want = asRecord(o['seLinuxOptions']);
      const field = (k: string) => String(want[k] ?? '');
      return {
        generate: () => structuredClone(want),
        validate(path, got) {
          if (got === undefined) return [required(path, '')];
          const errs: FieldError[] = [];
          const have = (k: string) => String(got[k] ?? '');
          if (!equalLevels(field('level'), have('level'))) errs.push(invalidValue(`${path}.level`, have('level'), `must be ${field('level')}`));
          for (const k of ['role', 'type', 'user']) {
            if (have(k) !== field(k)) errs.push(invalidValue(`${path}.${k}`, have(k), `must be ${field(k)}`));
          }
          return errs;
        },
      };
    }
    case 'RunAsAny':
      return { generate: () => undefined, validate: () => [] };
    default:
      throw new StrategyError(`Unrecognized SELinuxContext strategy type ${rule}`);
  }
}

// ---- capabilities ----------------------------------------------------------------------------

export interface CapabilitiesStrategy {
  /** The container's capabilities with the defaults added and the required drops dropped (undefined: unchanged and none). */
  generate(container: Loose): Loose | undefined;
  validate(path: string, capabilities: Loose | undefined): FieldError[];
}

const goCapabilities = (list: readonly string[] | undefined): string =>
  list === undefined ? '[]core.Capability(nil)' : `[]core.Capability{${list.map((c) => JSON.stringify(c)).join(', ')}}`;

export function capabilitiesStrategy(spec: Loose): CapabilitiesStrategy {
  const defaultAdd = asArray(spec['defaultAddCapabilities']).map(String);
  const requiredDrop = asArray(spec['requiredDropCapabilities']).map(String);
  const allowed = asArray(spec['allowedCapabilities']).map(String);
  return {
    generate(container) {
      const current = asRecord(container['securityContext'])['capabilities'];
      const caps = current === undefined || current === null ? undefined : asRecord(current);
      const containerAdd = new Set(asArray(caps?.['add']).map(String));
      const containerDrop = new Set(asArray(caps?.['drop']).map(String));
      // Default adds the container drops explicitly are not added.
      const add = new Set([...defaultAdd.filter((c) => !containerDrop.has(c)), ...containerAdd]);
      const drop = new Set([...requiredDrop, ...containerDrop]);
      if (add.size === containerAdd.size && drop.size === containerDrop.size) return caps;
      // Empty lists are left out, as the established JSON (omitempty) leaves them.
      return { ...(add.size > 0 ? { add: [...add].sort() } : {}), ...(drop.size > 0 ? { drop: [...drop].sort() } : {}) };
    },
    validate(path, caps) {
      if (caps === undefined) {
        if (defaultAdd.length === 0 && requiredDrop.length === 0) return [];
        return [invalidValue(path, null, 'required capabilities are not set on the securityContext')];
      }
      if (allowed.includes(ALLOW_ALL)) return [];
      const errs: FieldError[] = [];
      for (const c of asArray(caps['add']).map(String)) {
        if (!defaultAdd.includes(c) && !allowed.includes(c)) errs.push(invalidValue(`${path}.add`, c, 'capability may not be added'));
      }
      const dropped = caps['drop'] === undefined || caps['drop'] === null ? undefined : asArray(caps['drop']).map(String);
      for (const d of requiredDrop) {
        if (!(dropped ?? []).includes(d)) errs.push(invalidGo(`${path}.drop`, goCapabilities(dropped), `${d} is required to be dropped but was not found`));
      }
      return errs;
    },
  };
}

// ---- sysctls ---------------------------------------------------------------------------------

/** The sysctls the established node agent allows by default (the "safe" set of 1.18). */
export const SAFE_SYSCTLS = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range'] as const;

/** Does a sysctl pattern (`*`, `net.*`, or a name) cover the name? */
export function sysctlMatches(pattern: string, name: string): boolean {
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

export function validateSysctls(spec: Loose, pod: Loose): FieldError[] {
  const allowedUnsafe = asArray(spec['allowedUnsafeSysctls']).map(String);
  const forbidden = asArray(spec['forbiddenSysctls']).map(String);
  const sysctls = asArray(asRecord(asRecord(pod['spec'])['securityContext'])['sysctls']);
  const errs: FieldError[] = [];
  sysctls.forEach((raw, i) => {
    const name = String(asRecord(raw)['name'] ?? '');
    const path = `pod.spec.securityContext.sysctls[${i}]`;
    if (forbidden.some((p) => sysctlMatches(p, name))) errs.push(fieldForbidden(path, `sysctl ${JSON.stringify(name)} is not allowed`));
    else if ((SAFE_SYSCTLS as readonly string[]).includes(name) || allowedUnsafe.some((p) => sysctlMatches(p, name))) return;
    else errs.push(fieldForbidden(path, `unsafe sysctl ${JSON.stringify(name)} is not allowed`));
  });
  return errs;
}

// ---- volumes ---------------------------------------------------------------------------------

/** A pod volume's source field -> the policy's volume type name (they differ only for cephfs). */
const VOLUME_SOURCE_TYPES: Readonly<Record<string, string>> = {
  hostPath: 'hostPath', emptyDir: 'emptyDir', gcePersistentDisk: 'gcePersistentDisk', awsElasticBlockStore: 'awsElasticBlockStore',
  gitRepo: 'gitRepo', secret: 'secret', nfs: 'nfs', iscsi: 'iscsi', glusterfs: 'glusterfs', persistentVolumeClaim: 'persistentVolumeClaim',
  rbd: 'rbd', flexVolume: 'flexVolume', cinder: 'cinder', cephfs: 'cephFS', flocker: 'flocker', downwardAPI: 'downwardAPI', fc: 'fc',
  azureFile: 'azureFile', configMap: 'configMap', vsphereVolume: 'vsphereVolume', quobyte: 'quobyte', azureDisk: 'azureDisk',
  photonPersistentDisk: 'photonPersistentDisk', projected: 'projected', portworxVolume: 'portworxVolume', scaleIO: 'scaleIO',
  storageos: 'storageos', csi: 'csi',
};

/** The policy type of a pod volume (undefined: a source the policy kind does not know). */
export function volumeType(volume: Loose): string | undefined {
  for (const key of Object.keys(volume)) {
    if (key !== 'name' && volume[key] !== undefined && volume[key] !== null && VOLUME_SOURCE_TYPES[key]) return VOLUME_SOURCE_TYPES[key];
  }
  return undefined;
}

/** Cleans a path as Go's filepath.Clean does (enough for prefix checks: no `.`, `..` resolved, no doubled or trailing `/`). */
function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(part);
  }
  const joined = out.join('/');
  return rooted ? `/${joined}` : joined || '.';
}

/** `s` is `prefix` or lies under it at a path-segment boundary (`/foo` covers `/foo/bar`, not `/foobar`). */
function hasPathPrefix(s: string, prefix: string): boolean {
  const a = cleanPath(s);
  const p = cleanPath(prefix);
  if (a === p) return true;
  if (!a.startsWith(p)) return false;
  return p.endsWith('/') || a[p.length] === '/';
}

/** Whether a host path is allowed by the policy, and whether it must then be mounted read-only. */
export function allowsHostPath(spec: Loose, path: string): { allowed: boolean; readOnly: boolean } {
  const allowed = asArray(spec['allowedHostPaths']).map(asRecord);
  if (allowed.length === 0) return { allowed: true, readOnly: false };
  let result = { allowed: false, readOnly: false };
  for (const a of allowed) {
    if (!hasPathPrefix(path, String(a['pathPrefix'] ?? ''))) continue;
    if (a['readOnly'] !== true) return { allowed: true, readOnly: false };
    result = { allowed: true, readOnly: true };
  }
  return result;
}
