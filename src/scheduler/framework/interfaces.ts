/**
 * The extension points of the scheduling framework, one small interface each, in the order a
 * scheduling cycle calls them:
 *
 *   queue sort -> pre-filter -> filter (per node) -> post-filter (only when no node fits)
 *   -> pre-score -> score (per feasible node) -> normalize -> reserve -> [binding cycle:] pre-bind -> bind
 *
 * A plugin implements any subset; the framework calls each implemented point for every pod of a
 * profile that enables the plugin. Filter and score run for many nodes per pod and must be
 * synchronous and allocation-light; only post-filter, pre-bind and bind may be asynchronous (they
 * talk to the API server). Plugins never mutate the snapshot or the objects in it.
 */
import type { ApiClient } from '../../client/types.js';
import type { CycleState } from './cycle-state.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';
import type { Snapshot } from './snapshot.js';
import type { Verdict } from './status.js';
import type {
  Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, ReplicaSet, ReplicationController, Service, StatefulSet, StorageClass,
} from './objects.js';

export interface Plugin {
  /** The plugin's registry name, e.g. `NodeResourcesFit`. */
  readonly name: string;
}

/** Orders the active queue. Exactly one per profile; the default is priority, then arrival. */
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Returned by a pre-filter: Success, Skip (this plugin's filter need not run), or a rejection of the pod on every node. */
export interface PreFilterResult {
  verdict: Verdict;
  /** When set, only these nodes can possibly fit (e.g. `spec.nodeName`); the others are not evaluated. */
  nodeNames?: ReadonlySet<string>;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: PodInfo, snapshot: Snapshot): PreFilterResult;
  /** For preemption's what-if: called as a victim is removed or re-added on `node`; keeps pre-filter state consistent. */
  removePod?(state: CycleState, pod: PodInfo, victim: PodInfo, node: NodeInfo): void;
  addPod?(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): void;
}

/** Success, or why `node` cannot run `pod` (Unschedulable: removing pods could help; unresolvable: it could not). */
export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Verdict;
}

export interface PostFilterResult {
  verdict: Verdict;
  /** The node the pod was nominated to (preemption): its victims are being deleted. */
  nominatedNodeName?: string;
  /** How many pods were evicted to make room (metrics). */
  victims?: number;
}

/** Runs only when no node passed the filters; preemption is the default one. */
export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: PodInfo, rejections: ReadonlyMap<string, Verdict>): Promise<PostFilterResult>;
}

/** Computes what the scores of all feasible nodes share; Skip means the plugin's score is not needed. */
export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Verdict;
}

export interface ScorePlugin extends Plugin {
  /** A raw score for `node`; after `normalizeScores` every score must lie in [0, MAX_NODE_SCORE]. */
  score(state: CycleState, pod: PodInfo, node: NodeInfo): number;
  /** Maps raw scores (in place) onto [0, MAX_NODE_SCORE]; absent when raw scores already are. */
  normalizeScores?(state: CycleState, pod: PodInfo, scores: NodeScore[]): void;
}

/** Reserve is told that the pod is assumed on `nodeName`; unreserve undoes it when a later step fails. */
export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): Verdict;
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/** Work before binding (e.g. binding volumes); a failure un-assumes the pod and re-queues it. */
export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Verdict>;
}

/** Binds the pod; Skip passes to the next bind plugin. The default POSTs `pods/<name>/binding`. */
export interface BindPlugin extends Plugin {
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Verdict>;
}

/** The cluster changes that can make a pod this plugin refused schedulable (it is moved back to the queue). */
export interface EnqueueExtensions {
  readonly events: readonly ClusterEvent[];
}

export type ClusterResource =
  | 'Pod' | 'Node' | 'PersistentVolume' | 'PersistentVolumeClaim' | 'Service' | 'StorageClass' | 'Namespace' | 'PodDisruptionBudget';
export type ClusterAction = 'Add' | 'Update' | 'Delete';

export interface ClusterEvent {
  readonly resource: ClusterResource;
  readonly actions: readonly ClusterAction[];
}

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

export interface NodeScore {
  readonly name: string;
  score: number;
}

/** A pod in the scheduling queue: its info plus queueing bookkeeping. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod first entered the queue (end-to-end latency starts here). */
  readonly initialAttemptTimestamp: number;
  /** When it was last (re)added to the active queue: the tie-breaker after priority. */
  timestamp: number;
  attempts: number;
  /** Plugins that refused it in its last attempt: only their events move it back. */
  unschedulablePlugins: Set<string>;
}

/** Read access to the cluster objects plugins need beyond pods and nodes (from the scheduler's informers). */
export interface ClusterListers {
  services(namespace: string): readonly Service[];
  replicaSets(namespace: string): readonly ReplicaSet[];
  statefulSets(namespace: string): readonly StatefulSet[];
  replicationControllers(namespace: string): readonly ReplicationController[];
  persistentVolumeClaim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  persistentVolume(name: string): PersistentVolume | undefined;
  persistentVolumes(): readonly PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined;
  podDisruptionBudgets(namespace: string): readonly PodDisruptionBudget[];
  node(name: string): Node | undefined;
}

/** The profile's filters, for preemption's what-if runs (a node with some pods removed). */
export interface FilterRunner {
  runFilters(state: CycleState, pod: PodInfo, node: NodeInfo): Verdict;
  /** Tells the pre-filters that `victim` left `node` (their cycle data must follow). */
  removePod(state: CycleState, pod: PodInfo, victim: PodInfo, node: NodeInfo): void;
  addPod(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): void;
}

/** What a plugin's constructor receives. */
export interface FrameworkHandle {
  /** The profile's own filters (available once the profile is built, i.e. during cycles). */
  filters(): FilterRunner;
  /** The snapshot of the current cycle (replaced at the start of every cycle). */
  snapshot(): Snapshot;
  listers: ClusterListers;
  /** For post-filter and bind plugins only. */
  client: ApiClient;
  /** The profile's scheduler name (for Events and bindings). */
  schedulerName: string;
  /** Injected time (ms). */
  now(): number;
  /** Pods nominated to a node (preemptors waiting for victims to leave). */
  nominatedPodsFor(nodeName: string): readonly PodInfo[];
  /** Records an Event about `pod` (aggregated and rate-limited; never throws). */
  event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** Constructs a plugin from its (defaulted) arguments. */
export type PluginFactory = (args: Readonly<Record<string, unknown>>, handle: FrameworkHandle) => Plugin;

/** Type guards for the extension points, by method presence. */
export const implementsFilter = (p: Plugin): p is FilterPlugin => typeof (p as Partial<FilterPlugin>).filter === 'function';
export const implementsPreFilter = (p: Plugin): p is PreFilterPlugin => typeof (p as Partial<PreFilterPlugin>).preFilter === 'function';
export const implementsPostFilter = (p: Plugin): p is PostFilterPlugin => typeof (p as Partial<PostFilterPlugin>).postFilter === 'function';
export const implementsPreScore = (p: Plugin): p is PreScorePlugin => typeof (p as Partial<PreScorePlugin>).preScore === 'function';
export const implementsScore = (p: Plugin): p is ScorePlugin => typeof (p as Partial<ScorePlugin>).score === 'function';
export const implementsReserve = (p: Plugin): p is ReservePlugin => typeof (p as Partial<ReservePlugin>).reserve === 'function';
export const implementsPreBind = (p: Plugin): p is PreBindPlugin => typeof (p as Partial<PreBindPlugin>).preBind === 'function';
export const implementsBind = (p: Plugin): p is BindPlugin => typeof (p as Partial<BindPlugin>).bind === 'function';
export const implementsQueueSort = (p: Plugin): p is QueueSortPlugin => typeof (p as Partial<QueueSortPlugin>).less === 'function';
export const enqueueEvents = (p: Plugin): readonly ClusterEvent[] => (p as Partial<EnqueueExtensions>).events ?? [];
