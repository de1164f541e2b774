/**
 * `PodInfo`: a pod with what every scheduling cycle needs computed once — its requests, its
 * affinity terms with parsed selectors, its host ports — so that filtering thousands of nodes does
 * not re-parse the pod thousands of times. Built when a pod enters the queue or the cache.
 */
import { labelSelectorFromObject, type LabelSelector as ParsedSelector } from '../../api/labels.js';
import type { Pod, PodAffinityTerm } from './objects.js';
import { podKey } from './objects.js';
import { podRequests, type Resources } from './resources.js';

/** An affinity term with its selector parsed and its namespaces resolved. */
export interface AffinityTerm {
  readonly selector: ParsedSelector;
  readonly topologyKey: string;
  /** Namespaces the term applies to; empty with no namespaceSelector means the pod's own. */
  readonly namespaces: ReadonlySet<string>;
  /** A namespaceSelector, when given (an empty one selects every namespace). */
  readonly namespaceSelector: ParsedSelector | undefined;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

export interface PodInfo {
  readonly pod: Pod;
  readonly key: string;
  readonly uid: string;
  readonly priority: number;
  /** `Never`: the pod waits for room instead of preempting (its own or its PriorityClass's policy). */
  readonly preemptionPolicy: PreemptionPolicy;
  /** Requests as resources-fit counts them (init containers and overhead included). */
  readonly requests: Resources;
  /** The same with scoring's non-zero defaults for containers that request nothing. */
  readonly nonZeroRequests: Resources;
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly preferredAffinity: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedAffinityTerm[];
  readonly hostPorts: readonly HostPort[];
}

export type PreemptionPolicy = 'PreemptLowerPriority' | 'Never';

/** A pod's priority and preemption policy as the scheduler acts on them. */
export interface ResolvedPriority {
  priority: number;
  preemptionPolicy: PreemptionPolicy;
}

/** From the pod's own fields only: `spec.priority` (else 0) and `spec.preemptionPolicy`. */
export function podPriority(pod: Pod): ResolvedPriority {
  const p = pod.spec?.priority;
  return { priority: typeof p === 'number' ? p : 0, preemptionPolicy: pod.spec?.preemptionPolicy === 'Never' ? 'Never' : 'PreemptLowerPriority' };
}

function affinityTerm(pod: Pod, t: PodAffinityTerm): AffinityTerm {
  const own = pod.metadata.namespace ?? 'default';
  const namespaces = new Set(t.namespaces ?? []);
  const namespaceSelector = t.namespaceSelector ? labelSelectorFromObject(t.namespaceSelector) : undefined;
  if (namespaces.size === 0 && !namespaceSelector) namespaces.add(own);
  return {
    selector: labelSelectorFromObject(t.labelSelector ?? {}),
    topologyKey: t.topologyKey ?? '',
    namespaces,
    namespaceSelector,
  };
}

/** Whether `term` (of some pod) selects `pod`, given the labels of pod's namespace. */
export function termMatches(term: AffinityTerm, pod: Pod, namespaceLabels?: Readonly<Record<string, string>>): boolean {
  const ns = pod.metadata.namespace ?? 'default';
  const inNamespace = term.namespaces.has(ns) || (term.namespaceSelector !== undefined && term.namespaceSelector.matches(namespaceLabels ?? {}));
  return inNamespace && term.selector.matches(pod.metadata.labels ?? {});
}

export interface PodInfoOptions {
  /** Count `spec.overhead` (feature gate PodOverhead, on by default). */
  podOverhead?: boolean;
}

/** `resolved` overrides the pod's own fields (the scheduler applies its NonPreemptingPriority gate to them). */
export function newPodInfo(pod: Pod, resolved: ResolvedPriority = podPriority(pod), opts: PodInfoOptions = {}): PodInfo {
  const aff = pod.spec?.affinity;
  const hostPorts: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (typeof p.hostPort === 'number' && p.hostPort > 0) hostPorts.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return {
    pod,
    key: podKey(pod),
    uid: pod.metadata.uid ?? '',
    priority: resolved.priority,
    preemptionPolicy: resolved.preemptionPolicy,
    requests: podRequests(pod, { overhead: opts.podOverhead !== false }),
    nonZeroRequests: podRequests(pod, { nonZero: true, overhead: opts.podOverhead !== false }),
    requiredAffinity: (aff?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t)),
    requiredAntiAffinity: (aff?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t)),
    preferredAffinity: (aff?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({ ...affinityTerm(pod, w.podAffinityTerm ?? {}), weight: w.weight ?? 0 })),
    preferredAntiAffinity: (aff?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({ ...affinityTerm(pod, w.podAffinityTerm ?? {}), weight: w.weight ?? 0 })),
    hostPorts,
  };
}
