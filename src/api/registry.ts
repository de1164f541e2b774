/**
 * The list of built-in kinds and the registry the server looks kinds up in, with `--runtime-config`
 * deciding which group/versions (and, rarely, single resources) are served.
 *
 * --runtime-config keys: `api/all`, `api/ga`, `api/beta`, `api/alpha`, `api/legacy` (the core v1,
 * deprecated), `v1` or `api/v1` (core), `<group>/<version>`, `<group>/<version>/<resource>` (the group in
 * our spelling or the established one: `flowcontrol.apiserver.k8s.io/v1beta1`); values
 * `true`, `false` or empty (= true). Broad keys apply first, then group/versions, then resources,
 * so a specific key always wins over a broad one whatever the order given. Unknown keys throw.
 */
import type { ResourceDefinition } from './types.js';
import { canonicalGroup } from './established-spelling.js';
import {
  apiServiceDefinition, apiServiceV1beta1Definition, certificateSigningRequestDefinition, customResourceDefinitionDefinition, clusterRoleBindingDefinition, clusterRoleDefinition, configMapDefinition, controllerRevisionDefinition,
  cronJobDefinition, cronJobV1beta1Definition, csiDriverDefinition, csiNodeDefinition, daemonSetDefinition, deploymentDefinition, endpointSliceDefinition,
  endpointSliceV1beta1Definition, endpointsDefinition, eventDefinition, eventsV1EventDefinition,
  horizontalPodAutoscalerDefinition, horizontalPodAutoscalerV1Definition, horizontalPodAutoscalerV2beta2Definition, ingressClassDefinition, ingressDefinition,
  jobDefinition, leaseDefinition, limitRangeDefinition, namespaceDefinition, networkPolicyDefinition, nodeDefinition,
  persistentVolumeClaimDefinition, persistentVolumeDefinition, podDefinition, podDisruptionBudgetDefinition, podDisruptionBudgetV1beta1Definition,
  podSecurityPolicyDefinition, priorityClassDefinition, replicaSetDefinition, replicationControllerDefinition, resourceQuotaDefinition, roleBindingDefinition, roleDefinition,
  runtimeClassDefinition, runtimeClassV1beta1Definition, secretDefinition, serviceAccountDefinition, serviceDefinition, statefulSetDefinition,
  storageClassDefinition, podMetricsDefinition, nodeMetricsDefinition, selfSubjectAccessReviewDefinition, selfSubjectRulesReviewDefinition,
  subjectAccessReviewDefinition, localSubjectAccessReviewDefinition, volumeAttachmentDefinition, tokenReviewDefinition, selfSubjectReviewDefinition,
  mutatingWebhookConfigurationDefinition, mutatingWebhookConfigurationV1beta1Definition, validatingWebhookConfigurationDefinition,
  validatingWebhookConfigurationV1beta1Definition,
  flowSchemaDefinition, priorityLevelConfigurationDefinition, auditSinkDefinition, podPresetDefinition,
} from './kinds/index.js';

/**
 * A kind served in several versions appears once per version; its storage version (the kind's
 * own definition, the one `resources.<plural>` refers to) comes first, the versions converted from
 * it after (src/api/versions.ts).
 */
const BUILTIN: readonly ResourceDefinition[] = [
  namespaceDefinition, podDefinition, nodeDefinition, serviceDefinition, endpointsDefinition, configMapDefinition, secretDefinition,
  serviceAccountDefinition, eventDefinition, replicationControllerDefinition, persistentVolumeDefinition, persistentVolumeClaimDefinition,
  resourceQuotaDefinition, limitRangeDefinition,
  deploymentDefinition, replicaSetDefinition, statefulSetDefinition, daemonSetDefinition, controllerRevisionDefinition,
  jobDefinition, cronJobDefinition,
  leaseDefinition, endpointSliceDefinition, podDisruptionBudgetDefinition, horizontalPodAutoscalerDefinition, priorityClassDefinition,
  roleDefinition, roleBindingDefinition, clusterRoleDefinition, clusterRoleBindingDefinition,
  selfSubjectAccessReviewDefinition, selfSubjectRulesReviewDefinition, subjectAccessReviewDefinition, localSubjectAccessReviewDefinition,
  tokenReviewDefinition, selfSubjectReviewDefinition,
  certificateSigningRequestDefinition,
  customResourceDefinitionDefinition,
  apiServiceDefinition,
  podMetricsDefinition, nodeMetricsDefinition,
  ingressDefinition, ingressClassDefinition, networkPolicyDefinition,
  storageClassDefinition, csiDriverDefinition, csiNodeDefinition, volumeAttachmentDefinition,
  runtimeClassDefinition,
  mutatingWebhookConfigurationDefinition, validatingWebhookConfigurationDefinition,
  flowSchemaDefinition, priorityLevelConfigurationDefinition,
  podSecurityPolicyDefinition,
  auditSinkDefinition,
  podPresetDefinition,
  cronJobV1beta1Definition, podDisruptionBudgetV1beta1Definition, endpointSliceV1beta1Definition,
  horizontalPodAutoscalerV2beta2Definition, horizontalPodAutoscalerV1Definition, runtimeClassV1beta1Definition,
  mutatingWebhookConfigurationV1beta1Definition, validatingWebhookConfigurationV1beta1Definition,
  eventsV1EventDefinition, apiServiceV1beta1Definition,
];

/**
 * The name a built-in resource goes by in `resources` and `BuiltinKinds`: its plural, or
 * `<plural>.<group>` when an earlier built-in kind has that plural (`pods.metrics.svc.io`), or
 * `<plural>.<version>.<group>` for another version of a kind (`cronjobs.v1beta1.batch`), as
 * kubectl spells a fully qualified resource.
 */
export function builtinResourceKey(def: ResourceDefinition): string {
  const first = BUILTIN.find((d) => d.plural === def.plural);
  if (first === undefined || first === def) return def.plural;
  return first.group === def.group ? `${def.plural}.${def.version}.${def.group}` : `${def.plural}.${def.group}`;
}

/** Is this one of the built-in kinds (not a custom resource)? */
export function isBuiltinResource(def: ResourceDefinition): boolean {
  return BUILTIN.includes(def);
}

/** Every built-in kind's definition (a new array each call; the definitions are shared). */
export function builtinResources(): ResourceDefinition[] {
  return [...BUILTIN];
}

export type VersionStage = 'ga' | 'beta' | 'alpha';

/** v1 -> ga, v1beta1 -> beta, v2alpha1 -> alpha. */
export function versionStage(version: string): VersionStage {
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha';
  if (/^v\d+beta\d+$/.test(version)) return 'beta';
  return 'ga';
}

/** Orders versions the established way: GA before beta before alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [-1, 0, 0];
    const stage = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = parse(a);
  const [sb, mb, nb] = parse(b);
  return sb - sa || mb - ma || nb - na || (a < b ? -1 : a > b ? 1 : 0);
}

/** Discovery order of groups (the established server's priority list, in our names). */
const GROUP_ORDER = [
  // apiregistration first among the named groups, as the established aggregator lists it.
  '', 'apiregistration.svc.io', 'apps', 'events.svc.io', 'authentication.svc.io', 'authorization.svc.io', 'autoscaling', 'batch', 'certificates.svc.io',
  'networking.svc.io', 'policy', 'rbac.authorization.svc.io', 'settings.svc.io', 'storage.svc.io', 'admissionregistration.svc.io',
  'apiextensions.svc.io', 'scheduling.svc.io', 'coordination.svc.io', 'node.svc.io', 'discovery.svc.io', 'flowcontrol.apiserver.svc.io', 'auditregistration.svc.io', 'metrics.svc.io',
];

export interface GroupVersionRef {
  group: string;
  version: string;
}

export interface ApiGroupInfo {
  /** '' for the core group. */
  name: string;
  /** Enabled versions, preferred first. */
  versions: string[];
  preferredVersion: string;
}

const gvKey = (group: string, version: string): string => (group ? `${group}/${version}` : version);

function parseBool(key: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw new Error(`--runtime-config: invalid value ${JSON.stringify(value)} for key ${JSON.stringify(key)}: must be true or false`);
}

/** Why a custom resource's names cannot be accepted (the CRD's NamesAccepted=False condition). */
export interface NameConflict {
  reason: 'PluralConflict' | 'KindConflict' | 'ListKindConflict' | 'ShortNamesConflict';
  message: string;
}

export class ResourceRegistry {
  private readonly defs: readonly ResourceDefinition[];
  /** Definitions learnt at run time (custom resources), by owner (the CRD's name); always served. */
  private readonly dynamic = new Map<string, readonly ResourceDefinition[]>();
  private readonly listeners = new Set<() => void>();
  private readonly enabledGV = new Set<string>();
  private readonly disabledResources = new Set<string>();
  private readonly enabledResourcesSet = new Set<string>();

  /** Throws an Error naming the key for unknown keys or values (a startup configuration error). */
  constructor(defs: readonly ResourceDefinition[], runtimeConfig: Record<string, string> = {}) {
    const seen = new Set<string>();
    for (const d of defs) {
      const k = `${gvKey(d.group, d.version)}/${d.plural}`;
      if (seen.has(k)) throw new Error(`duplicate resource definition ${k}`);
      seen.add(k);
    }
    this.defs = [...defs];
    this.applyRuntimeConfig(runtimeConfig);
  }

  private allGroupVersions(): GroupVersionRef[] {
    const out = new Map<string, GroupVersionRef>();
    for (const d of this.defs) out.set(gvKey(d.group, d.version), { group: d.group, version: d.version });
    return [...out.values()];
  }

  private applyRuntimeConfig(rc: Record<string, string>): void {
    const all = this.allGroupVersions();
    // Default: GA and beta on, alpha off.
    for (const gv of all) if (versionStage(gv.version) !== 'alpha') this.enabledGV.add(gvKey(gv.group, gv.version));
    const broad: [string, boolean][] = [];
    const specific: [string, boolean][] = [];
    const resources: [string, boolean][] = [];
    const known = new Set(all.map((gv) => gvKey(gv.group, gv.version)));
    for (const [rawKey, rawValue] of Object.entries(rc)) {
      // A group may be given in its established spelling (auditregistration.k8s.io/v1alpha1).
      const [first, ...rest] = rawKey.trim().split('/');
      const key = rest.length > 0 && first !== 'api' ? [canonicalGroup(first!), ...rest].join('/') : rawKey.trim();
      const on = parseBool(key, rawValue);
      if (key === 'api/all' || key === 'api/ga' || key === 'api/beta' || key === 'api/alpha') broad.push([key, on]);
      else if (key === 'api/legacy' || key === 'api/v1' || key === 'v1') specific.push(['v1', on]);
      else if (known.has(key)) specific.push([key, on]);
      else if (this.defs.some((d) => `${gvKey(d.group, d.version)}/${d.plural}` === key)) resources.push([key, on]);
      else {
        throw new Error(
          `--runtime-config: unknown key ${JSON.stringify(key)}: expected api/all, api/ga, api/beta, api/alpha, api/legacy, v1, ` +
            `<group>/<version> or <group>/<version>/<resource>; known group/versions: ${[...known].sort().join(', ')}`,
        );
      }
    }
    // "all" first, then stage selectors, so api/all=false,api/ga=true enables exactly GA.
    broad.sort(([a], [b]) => (a === 'api/all' ? -1 : b === 'api/all' ? 1 : 0));
    for (const [key, on] of broad) {
      for (const gv of all) {
        const stage = versionStage(gv.version);
        if (key === 'api/all' || key === `api/${stage}`) {
          if (on) this.enabledGV.add(gvKey(gv.group, gv.version));
          else this.enabledGV.delete(gvKey(gv.group, gv.version));
        }
      }
    }
    for (const [key, on] of specific) {
      if (on) this.enabledGV.add(key);
      else this.enabledGV.delete(key);
    }
    for (const [key, on] of resources) {
      if (on) {
        this.enabledResourcesSet.add(key);
        this.disabledResources.delete(key);
      } else {
        this.disabledResources.add(key);
        this.enabledResourcesSet.delete(key);
      }
    }
  }

  private isEnabled(d: ResourceDefinition): boolean {
    const k = `${gvKey(d.group, d.version)}/${d.plural}`;
    if (this.disabledResources.has(k)) return false;
    return this.enabledResourcesSet.has(k) || this.enabledGV.has(gvKey(d.group, d.version));
  }

  private dynamicResources(): ResourceDefinition[] {
    return [...this.dynamic.values()].flat();
  }

  /**
   * Serves `defs` (the served versions of one custom resource) for `owner`, replacing what it
   * served before; --runtime-config does not apply to them. Check `nameConflict` first.
   */
  setDynamic(owner: string, defs: readonly ResourceDefinition[]): void {
    this.dynamic.set(owner, [...defs]);
    this.changed();
  }

  removeDynamic(owner: string): void {
    if (this.dynamic.delete(owner)) this.changed();
  }

  /** Calls `listener` after every change of the served definitions; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** The first name of `def` another served resource of its group already uses (owner's own excluded). */
  nameConflict(owner: string, def: Pick<ResourceDefinition, 'group' | 'plural' | 'kind' | 'listKind' | 'shortNames'>): NameConflict | undefined {
    const mine = this.dynamic.get(owner) ?? [];
    for (const d of this.enabledResources()) {
      if (d.group !== def.group || mine.includes(d)) continue;
      if (d.plural === def.plural) return { reason: 'PluralConflict', message: `"${def.plural}" is already in use` };
      if (d.kind === def.kind) return { reason: 'KindConflict', message: `"${def.kind}" is already in use` };
      if (d.listKind === def.listKind) return { reason: 'ListKindConflict', message: `"${def.listKind}" is already in use` };
      const taken = def.shortNames.filter((n) => d.shortNames.includes(n) || d.plural === n);
      if (taken.length) return { reason: 'ShortNamesConflict', message: `"${taken.join('", "')}" is already in use` };
    }
    return undefined;
  }

  /** Every definition, enabled or not (custom resources included). */
  allResources(): ResourceDefinition[] {
    return [...this.defs, ...this.dynamicResources()];
  }

  /** The definitions served under the current --runtime-config, then the custom resources. */
  enabledResources(): ResourceDefinition[] {
    return [...this.defs.filter((d) => this.isEnabled(d)), ...this.dynamicResources()];
  }

  /** Group/versions with at least one served resource. */
  enabledGroupVersions(): GroupVersionRef[] {
    const out = new Map<string, GroupVersionRef>();
    for (const d of this.enabledResources()) out.set(gvKey(d.group, d.version), { group: d.group, version: d.version });
    return [...out.values()];
  }

  lookup(group: string, version: string, plural: string): ResourceDefinition | undefined {
    const match = (d: ResourceDefinition) => d.group === group && d.version === version && d.plural === plural;
    const builtin = this.defs.find((d) => match(d) && this.isEnabled(d));
    if (builtin || this.dynamic.size === 0) return builtin;
    return this.dynamicResources().find(match);
  }

  byKind(group: string, version: string, kind: string): ResourceDefinition | undefined {
    return this.enabledResources().find((d) => d.group === group && d.version === version && d.kind === kind);
  }

  /**
   * Resolves what a user types (`po`, `pods`, `pod`, `deployments.apps`) to served definitions,
   * preferred versions first.
   */
  resolveName(name: string): ResourceDefinition[] {
    const n = name.toLowerCase();
    const dot = n.indexOf('.');
    const base = dot >= 0 ? n.slice(0, dot) : n;
    const group = dot >= 0 ? n.slice(dot + 1) : undefined;
    const preferred = new Map(this.groups().map((g) => [g.name, g.versions]));
    return this.enabledResources()
      .filter((d) => (group === undefined || d.group === group) && (d.plural === base || d.singular === base || d.shortNames.includes(base)))
      .sort((a, b) => (preferred.get(a.group) ?? []).indexOf(a.version) - (preferred.get(b.group) ?? []).indexOf(b.version));
  }

  /** Served groups in discovery order ('' = core first), each with its versions, preferred first. */
  groups(): ApiGroupInfo[] {
    const byGroup = new Map<string, Set<string>>();
    for (const gv of this.enabledGroupVersions()) {
      let s = byGroup.get(gv.group);
      if (!s) byGroup.set(gv.group, (s = new Set()));
      s.add(gv.version);
    }
    const rank = (g: string): number => {
      const i = GROUP_ORDER.indexOf(g);
      return i >= 0 ? i : GROUP_ORDER.length;
    };
    return [...byGroup.entries()]
      .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, vs]) => {
        const versions = [...vs].sort(compareVersions);
        return { name, versions, preferredVersion: versions[0]! };
      });
  }

  /** Served definitions of one group/version. */
  resourcesFor(group: string, version: string): ResourceDefinition[] {
    return this.enabledResources().filter((d) => d.group === group && d.version === version);
  }
}
