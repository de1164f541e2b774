/**
 * Names for parts of the generated kind types (src/api/generated/kinds.ts) that code reads on their
 * own. Each is an indexed access into a generated type, never a second declaration of a shape.
 */
import type { Affinity, NodeSpec, PodAffinity, PodSpec } from './generated/kinds.js';

type Item<T> = NonNullable<T> extends readonly (infer U)[] ? U : never;

export type Toleration = Item<PodSpec['tolerations']>;
export type Taint = Item<NodeSpec['taints']>;
export type TopologySpreadConstraint = Item<PodSpec['topologySpreadConstraints']>;
export type PodVolume = Item<PodSpec['volumes']>;
export type PodAffinityTerm = Item<PodAffinity['requiredDuringSchedulingIgnoredDuringExecution']>;
export type WeightedPodAffinityTerm = Item<PodAffinity['preferredDuringSchedulingIgnoredDuringExecution']>;
export type PreferredSchedulingTerm = Item<NonNullable<Affinity['nodeAffinity']>['preferredDuringSchedulingIgnoredDuringExecution']>;
export type ContainerPort = Item<NonNullable<PodSpec['containers']>[number]['ports']>;
