/**
 * PodTolerationRestriction (off by default; mutating and validating, pod CREATE and UPDATE): a
 * namespace may give its pods default tolerations and limit which tolerations they may have.
 * Established behaviour, kept:
 *
 * - namespace annotations `scheduler.alpha.svc.io/defaultTolerations` and
 *   `scheduler.alpha.svc.io/tolerationsWhitelist` (the `scheduler.alpha.kubernetes.io/...`
 *   spellings as aliases), each a JSON list of tolerations; an annotation that is present but empty
 *   means "none" (it still overrides the cluster's), absent means "the cluster's";
 * - the cluster's `default` and `whitelist` come from the configuration
 *   (`podtolerationrestriction.admission.svc.io/v1alpha1` or `.k8s.io/v1alpha1`, kind
 *   Configuration), checked at start as tolerations;
 * - mutate: on CREATE the defaults are merged into the pod's tolerations; a pod that is not
 *   BestEffort also gets `node.svc.io/memory-pressure:NoSchedule` (Exists); the merge keeps a
 *   toleration only when no other one tolerates a superset of it (pkg/util/tolerations);
 * - validate (also after mutate): when the pod has tolerations and a whitelist applies (the
 *   namespace's, else the cluster's), each must be covered by a whitelist entry, else the plain
 *   error `pod tolerations (possibly merged with namespace default tolerations) conflict with its
 *   <namespace|cluster> whitelist` (a 500 without reason, as the established server answers it);
 * - a namespace annotation that is not a JSON list of tolerations is such a plain error too.
 */
import { isSuperset, mergeTolerations } from '../../api/tolerations.js';
import type { SvcObject } from '../../api/types.js';
import type { Toleration } from '../../api/kind-parts.js';
import { internalError } from '../../api/status.js';
import { qosClass, validateTolerations } from '../../api/kinds/core/pod-spec.js';
import { TAINT_NODE_MEMORY_PRESSURE } from '../../api/well-known-labels.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { pluginConfigError, typedConfiguration, type PluginConfiguration } from './config-file.js';
import { unclassifiedError } from './refusal.js';

export const POD_TOLERATION_RESTRICTION_GROUPS = ['podtolerationrestriction.admission.svc.io', 'podtolerationrestriction.admission.k8s.io'] as const;
export const DEFAULT_TOLERATIONS_ANNOTATIONS = ['scheduler.alpha.svc.io/defaultTolerations', 'scheduler.alpha.kubernetes.io/defaultTolerations'] as const;
export const TOLERATIONS_WHITELIST_ANNOTATIONS = ['scheduler.alpha.svc.io/tolerationsWhitelist', 'scheduler.alpha.kubernetes.io/tolerationsWhitelist'] as const;

export interface TolerationRestrictionConfig {
  default: Toleration[];
  whitelist: Toleration[];
}

export function parsePodTolerationRestrictionConfiguration(cfg: PluginConfiguration | undefined): TolerationRestrictionConfig {
  if (!cfg) return { default: [], whitelist: [] };
  const doc = typedConfiguration(cfg, POD_TOLERATION_RESTRICTION_GROUPS, 'v1alpha1', 'Configuration');
  const errs: string[] = [];
  for (const k of Object.keys(doc)) if (!['apiVersion', 'kind', 'default', 'whitelist'].includes(k)) errs.push(`${k}: unknown field (known: default, whitelist)`);
  const list = (field: 'default' | 'whitelist'): Toleration[] => {
    const v = doc[field] ?? [];
    if (!Array.isArray(v)) {
      errs.push(`${field}: must be a list of tolerations`);
      return [];
    }
    errs.push(...validateTolerations(v, field).map((e) => `${e.field}: ${e.message}`));
    return v as Toleration[];
  };
  const out = { default: list('default'), whitelist: list('whitelist') };
  if (errs.length) throw pluginConfigError('PodTolerationRestriction', cfg.source, errs.join(', '));
  return out;
}

// One home for the established toleration helpers (src/api/tolerations.ts); kept exported here for this plugin's tests.
export { isSuperset, mergeTolerations };

/** Every toleration covered by some whitelist entry (an empty whitelist or no tolerations: true). */
export function verifyAgainstWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

export interface PodTolerationRestrictionLookups {
  /** The namespace as the cache has it, else as stored (undefined when absent). */
  namespace(name: string): Promise<SvcObject | undefined>;
}

export function podTolerationRestriction(config: TolerationRestrictionConfig, lookups: PodTolerationRestrictionLookups): AdmissionPlugin {
  /** The namespace's list under the first of `keys` it carries; undefined when it carries none. */
  const namespaceTolerations = async (a: AdmissionAttributes, keys: readonly string[]): Promise<Toleration[] | undefined> => {
    const ns = await lookups.namespace(a.namespace);
    if (!ns) throw internalError(`Internal error occurred: namespace ${a.namespace} does not exist`);
    const annotations = ns.metadata.annotations ?? {};
    const key = keys.find((k) => k in annotations);
    if (key === undefined) return undefined;
    const text = annotations[key]!;
    if (text.length === 0) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw unclassifiedError((err as Error).message);
    }
    if (parsed === null) return [];
    if (!Array.isArray(parsed) || parsed.some((t) => t === null || typeof t !== 'object' || Array.isArray(t))) {
      throw unclassifiedError(`json: cannot unmarshal ${JSON.stringify(text)} into Go value of type []v1.Toleration`);
    }
    return parsed as Toleration[];
  };
  const tolerationsOf = (a: AdmissionAttributes): Toleration[] => ((a.object?.['spec'] as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []);
  const validate = async (a: AdmissionAttributes): Promise<void> => {
    const tolerations = tolerationsOf(a);
    if (tolerations.length === 0) return;
    let whitelist = await namespaceTolerations(a, TOLERATIONS_WHITELIST_ANNOTATIONS);
    let scope = 'namespace';
    if (whitelist === undefined) {
      whitelist = config.whitelist;
      scope = 'cluster';
    }
    if (!verifyAgainstWhitelist(tolerations, whitelist)) {
      throw unclassifiedError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    }
  };
  return {
    name: 'PodTolerationRestriction',
    sideEffects: 'None',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.def.group === '' && a.def.plural === 'pods' && a.subresource === '' && !!a.object,
    async mutate(a) {
      const extra: Toleration[] = [];
      if (a.operation === 'CREATE') extra.push(...((await namespaceTolerations(a, DEFAULT_TOLERATIONS_ANNOTATIONS)) ?? config.default));
      const spec = (a.object!['spec'] ?? {}) as Record<string, unknown>;
      if (qosClass(spec) !== 'BestEffort') extra.push({ key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' });
      if (extra.length > 0) a.object!['spec'] = { ...spec, tolerations: mergeTolerations(tolerationsOf(a), extra) };
      await validate(a);
    },
    validate,
  };
}
