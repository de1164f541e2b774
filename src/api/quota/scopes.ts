/**
 * Quota scopes: which pods a scoped ResourceQuota counts, and which resources it may track.
 *
 * Contract (established rules): `spec.scopes` entries are selectors with operator Exists;
 * `spec.scopeSelector.matchExpressions` add In/NotIn/Exists/DoesNotExist selectors. A quota
 * matches an object only when every selector matches it; selectors only ever match pods, so a
 * quota with any scope counts pods alone. Terminating: `activeDeadlineSeconds` set (>= 0);
 * BestEffort: no container or init container asks for or limits cpu or memory; PriorityClass:
 * `priorityClassName` (In/NotIn its values, Exists: set); CrossNamespacePodAffinity: an affinity
 * term names namespaces or a namespace selector. A BestEffort quota tracks `pods` only; the
 * other scopes track pods and their compute resources.
 */
import type { ResourceQuota } from '../generated/kinds.js';

export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] as const;
export type QuotaScope = (typeof QUOTA_SCOPES)[number];

export interface ScopeSelector {
  scopeName: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** The parts of a pod the scopes read. */
export interface ScopedPod {
  spec?: {
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
    affinity?: Record<string, unknown>;
    containers?: { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }[];
    initContainers?: { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }[];
  };
}

/** Every selector of a quota: its scopes (Exists) and its scopeSelector's expressions. */
export function quotaSelectors(q: ResourceQuota): ScopeSelector[] {
  const out: ScopeSelector[] = (q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  const sel = q.spec?.scopeSelector as { matchExpressions?: ScopeSelector[] } | undefined;
  for (const e of sel?.matchExpressions ?? []) out.push({ scopeName: e.scopeName, operator: e.operator, ...(e.values ? { values: e.values } : {}) });
  return out;
}

export function isBestEffort(pod: ScopedPod): boolean {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of all) {
    for (const list of [c.resources?.requests, c.resources?.limits]) {
      if (list && (list['cpu'] !== undefined || list['memory'] !== undefined)) return false;
    }
  }
  return true;
}

function usesCrossNamespaceAffinity(pod: ScopedPod): boolean {
  const aff = pod.spec?.affinity as Record<string, Record<string, unknown[]> | undefined> | undefined;
  if (!aff) return false;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = aff[kind];
    if (!a) continue;
    const terms = [
      ...((a['requiredDuringSchedulingIgnoredDuringExecution'] ?? []) as Record<string, unknown>[]),
      ...((a['preferredDuringSchedulingIgnoredDuringExecution'] ?? []) as { podAffinityTerm?: Record<string, unknown> }[]).map((w) => w.podAffinityTerm ?? {}),
    ];
    for (const t of terms) if ((Array.isArray(t['namespaces']) && t['namespaces'].length > 0) || t['namespaceSelector'] !== undefined) return true;
  }
  return false;
}

/** Whether one selector matches a pod. */
export function podMatchesSelector(pod: ScopedPod, s: ScopeSelector): boolean {
  switch (s.scopeName) {
    case 'Terminating': return typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating': return !(typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0);
    case 'BestEffort': return isBestEffort(pod);
    case 'NotBestEffort': return !isBestEffort(pod);
    case 'CrossNamespacePodAffinity': return usesCrossNamespaceAffinity(pod);
    case 'PriorityClass': {
      const pc = pod.spec?.priorityClassName ?? '';
      switch (s.operator) {
        case 'Exists': return pc !== '';
        case 'DoesNotExist': return pc === '';
        case 'In': return (s.values ?? []).includes(pc);
        case 'NotIn': return !(s.values ?? []).includes(pc);
      }
      return false;
    }
    default: return false;
  }
}

/** Whether the quota's selectors (none: everything) admit the object; only pods meet a selector. */
export function quotaSelects(q: ResourceQuota, isPod: boolean, obj: unknown): boolean {
  const sels = quotaSelectors(q);
  if (sels.length === 0) return true;
  if (!isPod) return false;
  return sels.every((s) => podMatchesSelector(obj as ScopedPod, s));
}

/** Resources a pod quota with these selectors may track. */
export function scopeAllowsResource(sels: readonly ScopeSelector[], resource: string, podComputeResource: (r: string) => boolean): boolean {
  for (const s of sels) {
    if (s.scopeName === 'BestEffort') {
      if (resource !== 'pods' && resource !== 'count/pods') return false;
    } else if (!podComputeResource(resource) && resource !== 'pods' && resource !== 'count/pods') return false;
  }
  return true;
}
