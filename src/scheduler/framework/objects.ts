/**
 * The typed objects the scheduler reads, all derived from the one schema per kind (src/api):
 * nothing here declares a kind's shape, it only names the parts the framework and plugins use.
 */
import type {
  Affinity, Container, Node, NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim,
  Pod, PodDisruptionBudget, PriorityClass, ReplicaSet, Service, StatefulSet, StorageClass, ReplicationController,
} from '../../api/generated/kinds.js';
import type {
  PodAffinityTerm, PreferredSchedulingTerm, Taint, Toleration, TopologySpreadConstraint, WeightedPodAffinityTerm,
} from '../../api/kind-parts.js';

export type {
  Affinity, Container, Node, NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim,
  Pod, PodAffinityTerm, PodDisruptionBudget, PriorityClass, ReplicaSet, Service, StatefulSet, StorageClass, ReplicationController, Taint, Toleration,
  TopologySpreadConstraint, WeightedPodAffinityTerm, PreferredSchedulingTerm,
};

/** `namespace/name` of a pod: the key of the queue, the cache and the explanations. */
export function podKey(pod: Pick<Pod, 'metadata'>): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/** The labels of an object, never undefined. */
export function labelsOf(o: { metadata: { labels?: Record<string, string> } }): Readonly<Record<string, string>> {
  return o.metadata.labels ?? EMPTY_LABELS;
}

const EMPTY_LABELS: Readonly<Record<string, string>> = Object.freeze({});
