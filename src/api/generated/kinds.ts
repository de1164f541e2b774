// TEMPORARY stand-in until the generated file lands (branch wt-types). Not to be merged to main.
import type { SvcObject } from '../types.js';
type Q = string | number;
export interface LabelSelectorRequirement { key?: string; operator?: string; values?: string[] }
export interface LabelSelector { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] }
export interface NodeSelectorRequirement { key?: string; operator?: string; values?: string[] }
export interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }
export interface NodeSelector { nodeSelectorTerms?: NodeSelectorTerm[] }
export interface PreferredSchedulingTerm { weight?: number; preference?: NodeSelectorTerm }
export interface NodeAffinity { requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector; preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[] }
export interface PodAffinityTerm { labelSelector?: LabelSelector; namespaces?: string[]; topologyKey?: string; namespaceSelector?: LabelSelector }
export interface WeightedPodAffinityTerm { weight?: number; podAffinityTerm?: PodAffinityTerm }
export interface PodAffinity { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[]; preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[] }
export interface PodAntiAffinity { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[]; preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[] }
export interface Affinity { nodeAffinity?: NodeAffinity; podAffinity?: PodAffinity; podAntiAffinity?: PodAntiAffinity }
export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }
export interface Taint { key?: string; value?: string; effect?: string; timeAdded?: string }
export interface ContainerPort { containerPort?: number; hostPort?: number; hostIP?: string; protocol?: string; name?: string }
export interface ResourceRequirements { requests?: Record<string, Q>; limits?: Record<string, Q> }
export interface Container { name?: string; image?: string; ports?: ContainerPort[]; resources?: ResourceRequirements }
export interface TopologySpreadConstraint { maxSkew?: number; topologyKey?: string; whenUnsatisfiable?: string; labelSelector?: LabelSelector }
export interface Volume { name?: string; persistentVolumeClaim?: { claimName?: string; readOnly?: boolean } }
export interface Condition { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string; lastProbeTime?: string | null }
export interface PodSpec {
  containers?: Container[]; initContainers?: Container[]; nodeName?: string; nodeSelector?: Record<string, string>; affinity?: Affinity;
  tolerations?: Toleration[]; schedulerName?: string; priority?: number; priorityClassName?: string; preemptionPolicy?: string;
  overhead?: Record<string, Q>; topologySpreadConstraints?: TopologySpreadConstraint[]; volumes?: Volume[];
}
export interface PodStatus { phase?: string; conditions?: Condition[]; nominatedNodeName?: string }
export interface Pod extends SvcObject { spec?: PodSpec; status?: PodStatus }
export interface NodeSpec { unschedulable?: boolean; taints?: Taint[] }
export interface NodeStatus { capacity?: Record<string, Q>; allocatable?: Record<string, Q>; conditions?: Condition[]; images?: { names?: string[]; sizeBytes?: number }[] }
export interface Node extends SvcObject { spec?: NodeSpec; status?: NodeStatus }
export interface PersistentVolume extends SvcObject { spec?: Record<string, unknown> }
export interface PersistentVolumeClaim extends SvcObject { spec?: Record<string, unknown> }
export interface PodDisruptionBudget extends SvcObject { spec?: Record<string, unknown>; status?: Record<string, unknown> }
export interface PriorityClass extends SvcObject { value?: number; globalDefault?: boolean; preemptionPolicy?: string }
export interface ReplicaSet extends SvcObject { spec?: Record<string, unknown> }
export interface Service extends SvcObject { spec?: Record<string, unknown> }
export interface StatefulSet extends SvcObject { spec?: Record<string, unknown> }
export interface ReplicationController extends SvcObject { spec?: Record<string, unknown> }
