/**
 * The deprecated legacy scheduling policy (`--policy-config-file`, `--policy-configmap`) and
 * `--algorithm-provider`, translated onto the plugins of one profile, as the established scheduler
 * does: each predicate becomes filter (and pre-filter) plugins, each priority a weighted score
 * plugin; everything not named is disabled. A predicate or priority with no plugin here is an
 * error naming it, never silently dropped. Callers log the deprecation warning.
 */
import { parse } from 'yaml';
import { SchedulerConfigError } from '../profile.js';
import type { PluginConfig, PluginRef, SchedulerProfile } from './types.js';

export const ALGORITHM_PROVIDERS = ['DefaultProvider', 'ClusterAutoscalerProvider'] as const;
export type AlgorithmProvider = (typeof ALGORITHM_PROVIDERS)[number];

/** Legacy predicate -> the plugins that implement it at filter (and pre-filter where they have one). */
const PREDICATES: Readonly<Record<string, readonly string[]>> = {
  PodFitsResources: ['NodeResourcesFit'],
  PodFitsHostPorts: ['NodePorts'],
  PodFitsPorts: ['NodePorts'],
  HostName: ['NodeName'],
  MatchNodeSelector: ['NodeAffinity'],
  GeneralPredicates: ['NodeResourcesFit', 'NodeName', 'NodePorts', 'NodeAffinity'],
  CheckNodeUnschedulable: ['NodeUnschedulable'],
  PodToleratesNodeTaints: ['TaintToleration'],
  NoDiskConflict: ['VolumeRestrictions'],
  NoVolumeZoneConflict: ['VolumeZone'],
  CheckVolumeBinding: ['VolumeBinding'],
  MatchInterPodAffinity: ['InterPodAffinity'],
  EvenPodsSpread: ['PodTopologySpread'],
};

/** Legacy priority -> score plugin. */
const PRIORITIES: Readonly<Record<string, string>> = {
  LeastRequestedPriority: 'NodeResourcesLeastAllocated',
  MostRequestedPriority: 'NodeResourcesMostAllocated',
  BalancedResourceAllocation: 'NodeResourcesBalancedAllocation',
  SelectorSpreadPriority: 'DefaultPodTopologySpread',
  ServiceSpreadingPriority: 'DefaultPodTopologySpread',
  InterPodAffinityPriority: 'InterPodAffinity',
  NodeAffinityPriority: 'NodeAffinity',
  TaintTolerationPriority: 'TaintToleration',
  ImageLocalityPriority: 'ImageLocality',
  NodePreferAvoidPodsPriority: 'NodePreferAvoidPods',
  EvenPodsSpreadPriority: 'PodTopologySpread',
  ResourceLimitsPriority: 'NodeResourceLimits',
};

/** Plugins with a pre-filter step that must run with their filter. */
const WITH_PRE_FILTER = new Set(['NodeResourcesFit', 'NodePorts', 'PodTopologySpread', 'InterPodAffinity', 'VolumeBinding', 'NodeAffinity', 'NodeName']);
/** Plugins with a pre-score step that must run with their score. */
const WITH_PRE_SCORE = new Set(['InterPodAffinity', 'PodTopologySpread', 'DefaultPodTopologySpread', 'TaintToleration', 'NodeAffinity']);

export interface LegacyPolicy {
  predicates?: { name: string }[];
  priorities?: { name: string; weight?: number }[];
  hardPodAffinitySymmetricWeight?: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses a policy document (JSON or YAML, `kind: Policy`); `source` names the file or ConfigMap in errors. */
export function parseLegacyPolicy(text: string, source: string): LegacyPolicy {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new SchedulerConfigError(source, `not valid JSON or YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc)) throw new SchedulerConfigError(source, 'must be a Policy object');
  if (doc['kind'] !== undefined && doc['kind'] !== 'Policy') throw new SchedulerConfigError(`${source}: kind`, `must be Policy, got ${JSON.stringify(doc['kind'])}`);
  const out: LegacyPolicy = {};
  for (const key of ['predicates', 'priorities'] as const) {
    const list = doc[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new SchedulerConfigError(`${source}: ${key}`, 'must be a list');
    list.forEach((x, i) => {
      if (!isRecord(x) || typeof x['name'] !== 'string') throw new SchedulerConfigError(`${source}: ${key}[${i}].name`, 'is required');
      if (key === 'priorities' && x['weight'] !== undefined && (typeof x['weight'] !== 'number' || !Number.isInteger(x['weight']) || x['weight'] < 1)) {
        throw new SchedulerConfigError(`${source}: priorities[${i}].weight`, `must be a positive integer, got ${JSON.stringify(x['weight'])}`);
      }
    });
    if (key === 'predicates') out.predicates = list as { name: string }[];
    else out.priorities = list as { name: string; weight?: number }[];
  }
  const w = doc['hardPodAffinitySymmetricWeight'];
  if (w !== undefined) {
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 0 || w > 100) {
      throw new SchedulerConfigError(`${source}: hardPodAffinitySymmetricWeight`, `must be an integer between 0 and 100, got ${JSON.stringify(w)}`);
    }
    out.hardPodAffinitySymmetricWeight = w;
  }
  return out;
}

/** The profile a legacy policy describes. Absent predicates or priorities keep the defaults of that stage. */
export function profileFromPolicy(policy: LegacyPolicy, schedulerName: string, source: string): SchedulerProfile {
  const profile: SchedulerProfile = { schedulerName, plugins: {} };
  const plugins = profile.plugins!;
  if (policy.predicates) {
    const filters: string[] = [];
    policy.predicates.forEach((p, i) => {
      const names = PREDICATES[p.name];
      if (!names) throw new SchedulerConfigError(`${source}: predicates[${i}].name`, `predicate ${JSON.stringify(p.name)} is not supported (known: ${Object.keys(PREDICATES).join(', ')})`);
      for (const n of names) if (!filters.includes(n)) filters.push(n);
    });
    const refs = (list: string[]): PluginRef[] => list.map((name) => ({ name }));
    plugins.filter = { disabled: [{ name: '*' }], enabled: refs(filters) };
    plugins.preFilter = { disabled: [{ name: '*' }], enabled: refs(filters.filter((n) => WITH_PRE_FILTER.has(n))) };
  }
  if (policy.priorities) {
    const scores: PluginRef[] = [];
    policy.priorities.forEach((p, i) => {
      const name = PRIORITIES[p.name];
      if (!name) throw new SchedulerConfigError(`${source}: priorities[${i}].name`, `priority ${JSON.stringify(p.name)} is not supported (known: ${Object.keys(PRIORITIES).join(', ')})`);
      const weight = p.weight ?? 1;
      const existing = scores.find((s) => s.name === name);
      if (existing) existing.weight = (existing.weight ?? 0) + weight;
      else scores.push({ name, weight });
    });
    plugins.score = { disabled: [{ name: '*' }], enabled: scores };
    plugins.preScore = { disabled: [{ name: '*' }], enabled: scores.filter((s) => WITH_PRE_SCORE.has(s.name)).map((s) => ({ name: s.name })) };
  }
  if (policy.hardPodAffinitySymmetricWeight !== undefined) {
    const pc: PluginConfig = { name: 'InterPodAffinity', args: { hardPodAffinityWeight: policy.hardPodAffinitySymmetricWeight } };
    profile.pluginConfig = [pc];
  }
  return profile;
}

/** `--algorithm-provider`: DefaultProvider is the default profile; ClusterAutoscalerProvider packs nodes. */
export function profileFromAlgorithmProvider(provider: AlgorithmProvider, schedulerName: string): SchedulerProfile {
  if (provider === 'DefaultProvider') return { schedulerName };
  return {
    schedulerName,
    plugins: { score: { disabled: [{ name: 'NodeResourcesLeastAllocated' }], enabled: [{ name: 'NodeResourcesMostAllocated', weight: 1 }] } },
  };
}
